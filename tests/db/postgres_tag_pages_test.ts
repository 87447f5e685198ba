/**
 * PostgreSQL's tag pages from the links (issue #32, migration 047): each link
 * carries its file's list keys, which the migration copies for the links
 * already stored and the triggers keep through every write of a file or a
 * link (renames, favourites, folders, views, completions, disowning, links
 * written before their file); a tag's pages in every order at any depth,
 * with the other filters and with two tags, equal the records sorted in
 * memory; and a deep page walks the tag's links in an index of the links
 * alone.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { FILE_SORT_KEYS, type FileLimits, type FileQuery, queryFiles } from "../../db/files.ts";
import { listPageQuery } from "../../db/postgres/files.ts";
import type { PostgresStore } from "../../db/postgres/mod.ts";
import { tagLinks } from "../../db/postgres/tag_pages.ts";
import { beforeMigration } from "../helpers/postgres_counts.ts";
import { fileRecord, ignoreKind, migratedPostgresTest, storedUser } from "../helpers/stores.ts";

const NO_LIMITS: FileLimits = { maxBytes: null, maxFiles: null };

/** The links whose keys differ from their file's, as `file tag`. */
async function keyDrift(sql: postgres.Sql): Promise<string[]> {
  const rows = await sql<{ file_id: string; tag_id: string }[]>`
    SELECT l.file_id, l.tag_id FROM file_tags AS l LEFT JOIN files AS f ON f.id = l.file_id
    WHERE (l.owner, l.created_at, l.updated_at, l.deletes_at, l.name, l.original_name, l.size,
        l.type, l.views, l.favorite, l.folder_id)
      IS DISTINCT FROM (CASE WHEN f.pending THEN NULL ELSE f.user_id END, f.created_at,
        f.updated_at, f.deletes_at, f.name, f.original_name, f.size, f.type, f.views, f.favorite,
        f.folder_id)`;
  return rows.map((r) => `${r.file_id} ${r.tag_id}`);
}

/** A stored tag `name` of `userId` (its id is its name). */
async function storedTag(store: PostgresStore, userId: string, name: string) {
  const at = new Date();
  await store.tags.create({
    id: name,
    name,
    color: "#123456",
    userId,
    createdAt: at,
    updatedAt: at,
  });
}

/**
 * Asserts that the pages of `userId`'s files carrying `tagIds` (each set),
 * in every order, at each of `offsets`, with each of `filters`, are the
 * owner's files carrying them sorted in memory (total and ids).
 */
async function assertTagPages(
  store: PostgresStore,
  userId: string,
  tagSets: string[][],
  offsets: number[],
  filters: Partial<FileQuery>[] = [{}],
) {
  const all = await store.files.listByUser(userId);
  const links = await store.tags.filesOfTags([...new Set(tagSets.flat())]);
  for (const tagIds of tagSets) {
    const ids = all.map((f) => f.id).filter((id) =>
      tagIds.every((t) => links.get(t)?.includes(id))
    );
    for (const sortBy of FILE_SORT_KEYS) {
      for (const order of ["asc", "desc"] as const) {
        for (const filter of filters) {
          for (const offset of offsets) {
            const q: FileQuery = { userId, sortBy, order, offset, limit: 15, ...filter };
            const got = await store.files.list({ ...q, tagIds });
            const want = queryFiles(all, { ...q, ids });
            const what = JSON.stringify({ tagIds, sortBy, order, filter, offset });
            assert.equal(got.total, want.total, what);
            assert.deepEqual(got.files.map((f) => f.id), want.files.map((f) => f.id), what);
          }
        }
      }
    }
  }
}

Deno.test({
  name: "postgres 047: the links already stored take their files' keys, and every write keeps them",
  ignore: ignoreKind("postgres"),
  fn: () =>
    beforeMigration(47, async (sql, store, migrateIt) => {
      const [ann, bob] = [await storedUser(store), await storedUser(store)];
      for (const name of ["t0", "t1"]) await storedTag(store, ann.id, name);
      const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 2) * 1000);
      const annFiles = Array.from({ length: 40 }, (_, i) =>
        fileRecord(ann.id, {
          size: i % 7,
          views: i % 3,
          favorite: i % 4 === 0,
          type: i % 2 ? "image/png" : "text/plain",
          originalName: i % 3 ? `o${i % 5}` : null,
          createdAt: at(i),
          updatedAt: at(i),
        }));
      const pending = fileRecord(ann.id, { pending: true });
      const others = [fileRecord(bob.id), fileRecord(null)];
      await store.files.createMany([...annFiles, ...others]);
      await store.files.create(pending, NO_LIMITS);
      for (const [i, f] of annFiles.entries()) {
        await store.tags.setFileTags(f.id, i % 3 === 0 ? ["t0", "t1"] : [`t${i % 2}`]);
      }
      for (const f of [...others, pending]) await store.tags.setFileTags(f.id, ["t0"]);
      await migrateIt();
      assert.deepEqual(await keyDrift(sql), []);
      const sets = [["t0"], ["t1"], ["t0", "t1"]];
      await assertTagPages(store, ann.id, sets, [0, 7]);

      const later = new Date(Date.UTC(2026, 1, 1));
      await store.files.update(annFiles[3].id, { name: "renamed.txt", favorite: true }, later);
      await store.files.update(
        annFiles[6].id,
        { folderId: "some-folder", deletesAt: later },
        later,
      );
      await store.files.addView(annFiles[9].id);
      await store.files.complete(pending.id, 5, NO_LIMITS, later);
      await store.files.disown(bob.id);
      await store.files.delete(annFiles[12].id);
      // A link written before its file, in one transaction (the foreign key is checked at commit).
      const early = fileRecord(ann.id, { size: 3 });
      await sql.begin(async (tx) => {
        await tx`INSERT INTO file_tags (file_id, tag_id) VALUES (${early.id}, 't1')`;
        await tx`INSERT INTO files (id, name, size, type, views, favorite, user_id, pending,
          created_at, updated_at)
          VALUES (${early.id}, ${early.name}, 3, 'text/plain', 0, false, ${ann.id}, false,
            ${early.createdAt}, ${early.updatedAt})`;
      });
      assert.deepEqual(await keyDrift(sql), []);
      const [owners] = await sql<{ pending: string; bob: string }[]>`
        SELECT count(*) FILTER (WHERE file_id = ${pending.id} AND owner = ${ann.id}) AS pending,
          count(*) FILTER (WHERE file_id = ${others[0].id} AND owner IS NULL) AS bob
        FROM file_tags`;
      assert.deepEqual({ ...owners }, { pending: "1", bob: "1" });
      await assertTagPages(store, ann.id, sets, [0, 7], [{}, { favorite: true }, {
        folderId: "some-folder",
      }]);
    }),
});

migratedPostgresTest(
  "postgres 047: a tag's pages in every order at every depth, with the other filters and two tags, are as in memory",
  async (_sql, store) => {
    const ann = await storedUser(store);
    for (const name of ["rare", "some", "most"]) await storedTag(store, ann.id, name);
    const at = Date.UTC(2026, 0, 1);
    const files = Array.from({ length: 600 }, (_, i) =>
      fileRecord(ann.id, {
        name: `f-${(i * 7919) % 600}.txt`,
        originalName: i % 4 ? `o${(i * 13) % 50}` : null,
        size: (i * 31) % 97,
        views: i % 5,
        favorite: i % 7 === 0,
        type: ["image/png", "text/plain", "application/pdf"][i % 3],
        folderId: i % 4 === 1 ? "folder" : null,
        deletesAt: i % 3 === 0 ? new Date(at + (i % 4) * 1000) : null,
        createdAt: new Date(at + Math.floor(i / 3) * 1000),
        updatedAt: new Date(at + Math.floor(i / 2) * 1000),
      }));
    await store.files.createMany(files);
    for (const [i, f] of files.entries()) {
      const tags = [
        ...(i % 150 === 0 ? ["rare"] : []),
        ...(i % 5 === 0 ? ["some"] : []),
        ...(i % 2 === 0 ? ["most"] : []),
      ];
      if (tags.length) await store.tags.setFileTags(f.id, tags);
    }
    await assertTagPages(store, ann.id, [["rare"], ["some"], ["most"]], [0, 45, 60, 105, 285]);
    await assertTagPages(store, ann.id, [["some", "most"], ["rare", "most"]], [0, 20, 45], [
      { favorite: true },
      { typePrefixes: ["image/", "text/"] },
      { folderId: "folder", favorite: false },
    ]);
  },
);

migratedPostgresTest(
  "postgres 047: a tag's deep page walks an index of the tag's links, not the owner's files",
  async (sql, store) => {
    const owner = await storedUser(store);
    await sql`INSERT INTO files (id, name, size, type, views, favorite, user_id, created_at,
      updated_at)
    SELECT 'f' || lpad(i::text, 5, '0'), 'n' || i, i % 997, 'image/png', 0, i % 20 = 0,
      ${owner.id}, now() + i * interval '1 second', now() + i * interval '1 second'
    FROM generate_series(1, 5000) AS i`;
    for (const t of ["t1", "t2"]) await storedTag(store, owner.id, t);
    await sql`INSERT INTO file_tags (file_id, tag_id)
      SELECT 'f' || lpad(i::text, 5, '0'), 't1' FROM generate_series(1, 5000, 5) AS i`;
    await sql`INSERT INTO file_tags (file_id, tag_id)
      SELECT 'f' || lpad(i::text, 5, '0'), 't2' FROM generate_series(1, 5000) AS i`;
    await sql`VACUUM ANALYZE file_tags`;
    for (const sortBy of ["createdAt", "size", "views", "name"] as const) {
      const q: FileQuery = {
        userId: owner.id,
        sortBy,
        order: "desc",
        offset: 300,
        limit: 15,
        tagIds: ["t1", "t2"],
        favorite: false,
      };
      const { query } = listPageQuery(sql, q, undefined, await tagLinks(sql, q));
      const explained = (await sql`EXPLAIN ${query!}`).map((r) => r["QUERY PLAN"]).join("\n");
      assert.match(explained, /Index Only Scan using file_tags_\w+ on file_tags/, explained);
      // No scan of every link or file, no sort of the links before the page (an incremental
      // sort puts ties of a shared order's backward read right), no walk of the owner's files.
      assert.doesNotMatch(explained, /Seq Scan|->\s+Sort\s|files_list/, explained);
    }
  },
);
