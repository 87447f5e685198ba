/**
 * PostgreSQL's counts of each tag's files (issue #32, migration 045): they
 * stay equal to the links they count through tagging and untagging, uploads,
 * imports, completions, deletions (one, many), an owner's deletion or
 * disowning, a tag's deletion, concurrent replacements of files' tags and a
 * rolled-back transaction; a tag's list takes its total from them; a
 * database migrated before 045 has its links counted by it; and the recount
 * sets a counter made wrong by hand right.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { type FileLimits, type FileQuery, queryFiles } from "../../db/files.ts";
import { migrate } from "../../db/postgres/migrate.ts";
import type { PostgresStore } from "../../db/postgres/mod.ts";
import type { TagRecord } from "../../db/tags.ts";
import { beforeMigration } from "../helpers/postgres_counts.ts";
import { fileRecord, ignoreKind, migratedPostgresTest, storedUser } from "../helpers/stores.ts";

const NO_LIMITS: FileLimits = { maxBytes: null, maxFiles: null };

/** The tag counts that differ from a count of the links, as `owner tag: kept/counted`. */
async function drift(sql: postgres.Sql): Promise<string[]> {
  const rows = await sql<{ owner: string; tag: string; kept: string; n: string }[]>`
    WITH counted AS (
      SELECT f.user_id AS owner, l.tag_id AS tag, count(*) AS n
      FROM file_tags AS l JOIN files AS f ON f.id = l.file_id
      WHERE NOT f.pending AND f.user_id IS NOT NULL GROUP BY 1, 2
    )
    SELECT coalesce(t.owner, c.owner) AS owner, coalesce(t.tag, c.tag) AS tag,
      coalesce(t.files, 0) AS kept, coalesce(c.n, 0) AS n
    FROM (SELECT * FROM tag_file_counts WHERE files <> 0) AS t
    FULL JOIN counted AS c USING (owner, tag)
    WHERE coalesce(t.files, 0) <> coalesce(c.n, 0)`;
  return rows.map((r) => `${r.owner} ${r.tag}: ${r.kept}/${r.n}`);
}

/** A stored tag `name` of `userId` (its id is its name). */
async function storedTag(store: PostgresStore, userId: string, name: string) {
  const at = new Date();
  const tag: TagRecord = { id: name, name, color: "#123456", userId, createdAt: at, updatedAt: at };
  await store.tags.create(tag);
  return tag;
}

/** Asserts that each tag's pages (total and ids) are the owner's tagged files sorted in memory. */
async function assertTagPages(store: PostgresStore, userId: string, tags: string[]) {
  const all = await store.files.listByUser(userId);
  const links = await store.tags.filesOfTags(tags);
  for (const tag of tags) {
    for (const offset of [0, 15, 45]) {
      for (const order of ["asc", "desc"] as const) {
        const q: FileQuery = { userId, sortBy: "createdAt", order, offset, limit: 15 };
        const got = await store.files.list({ ...q, tagIds: [tag] });
        const want = queryFiles(all, { ...q, ids: links.get(tag) ?? [] });
        const what = `${tag} ${order} ${offset}`;
        assert.equal(got.total, want.total, what);
        assert.deepEqual(got.files.map((f) => f.id), want.files.map((f) => f.id), what);
      }
    }
  }
}

migratedPostgresTest(
  "postgres 045: tag counts stay right through tagging, uploads, imports, completions, deletes, owners' deletion, a tag's deletion, concurrent writes and a rollback",
  async (sql, store) => {
    const [ann, bob, cy] = [
      await storedUser(store),
      await storedUser(store),
      await storedUser(store),
    ];
    for (const name of ["a1", "a2", "a3", "a4"]) await storedTag(store, ann.id, name);
    await storedTag(store, bob.id, "b1");
    await storedTag(store, cy.id, "c1");
    // An import: files, then their tags (as the import's transfer writes them).
    await store.transaction(async (tx) => {
      await tx.files.createMany(Array.from({ length: 200 }, () => fileRecord(ann.id)));
      await tx.files.createMany([fileRecord(ann.id, { pending: true }), fileRecord(null)]);
    });
    const files = await store.files.listByUser(ann.id);
    const tagsOf = (i: number) => ["a1", "a2", "a3"].filter((_, t) => i % (t + 2) === 0);
    // Concurrent replacements of files' tags, swapped between files: no two wait on each other.
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        files.map((f, i) =>
          store.tags.setFileTags(f.id, round % 2 ? tagsOf(i).reverse() : tagsOf(i + round))
        ),
      );
      assert.deepEqual(await drift(sql), [], `round ${round}`);
    }
    const bobs = Array.from({ length: 5 }, () => fileRecord(bob.id));
    const cys = Array.from({ length: 5 }, () => fileRecord(cy.id));
    await store.files.createMany([...bobs, ...cys]);
    for (const f of bobs) await store.tags.setFileTags(f.id, ["b1"]);
    for (const f of cys) await store.tags.setFileTags(f.id, ["c1", "a4"]); // another owner's tag
    assert.deepEqual(await drift(sql), []);
    // Uploads (group-committed or alone), then tagged; a pending upload, tagged, then completed.
    const uploads = Array.from({ length: 8 }, () => fileRecord(ann.id));
    await Promise.all(uploads.map((f) => store.files.create(f, NO_LIMITS)));
    await Promise.all(uploads.map((f) => store.tags.setFileTags(f.id, ["a4"])));
    const pending = fileRecord(ann.id, { pending: true, size: 0 });
    await store.files.create(pending, NO_LIMITS);
    await store.tags.setFileTags(pending.id, ["a1", "a4"]);
    assert.deepEqual(await drift(sql), []);
    const [{ n: before }] = await sql<{ n: string }[]>`
      SELECT files AS n FROM tag_file_counts WHERE owner = ${ann.id} AND tag = 'a4'`;
    await store.files.complete(pending.id, 10, NO_LIMITS, new Date());
    const [{ n: after }] = await sql<{ n: string }[]>`
      SELECT files AS n FROM tag_file_counts WHERE owner = ${ann.id} AND tag = 'a4'`;
    assert.equal(Number(after), Number(before) + 1);
    // A view, a rename: the links' count kept.
    await store.files.addView(files[0].id);
    await store.files.update(files[0].id, { name: "renamed.txt" }, new Date());
    assert.deepEqual(await drift(sql), []);
    // Untagged, deleted one and many (their links removed with them), a tag deleted.
    await store.tags.setFileTags(files[6].id, []);
    await store.files.delete(files[12].id);
    await store.files.deleteMany(files.slice(100, 160).map((f) => f.id));
    const [{ links }] = await sql<{ links: string }[]>`
      SELECT count(*) AS links FROM file_tags WHERE file_id = ANY(${
      files.slice(100, 160).map((f) => f.id)
    })`;
    assert.equal(Number(links), 0);
    assert.deepEqual(await drift(sql), []);
    await store.tags.delete("a3");
    const [{ n: gone }] = await sql<{ n: string }[]>`
      SELECT count(*) AS n FROM tag_file_counts WHERE tag = 'a3'`;
    assert.equal(Number(gone), 0);
    assert.deepEqual(await drift(sql), []);
    // An owner's files disowned; another owner deleted (its files kept without it, its tags gone).
    await store.files.disown(bob.id);
    await store.users.delete(cy.id);
    assert.deepEqual(await drift(sql), []);
    // A rolled-back transaction moves nothing.
    await assert.rejects(store.transaction(async (tx) => {
      await tx.tags.setFileTags(files[1].id, ["a1", "a2", "a4"]);
      await tx.files.delete(files[2].id);
      await tx.files.createMany([fileRecord(ann.id)]);
      throw new Error("stop");
    }));
    assert.deepEqual(await drift(sql), []);
    // By hand: a link written before its file in one transaction, a link moved between files.
    const early = fileRecord(ann.id);
    await sql.begin(async (tx) => {
      await tx`INSERT INTO file_tags (file_id, tag_id) VALUES (${early.id}, 'a2')`;
      await tx`INSERT INTO files (id, name, size, type, views, favorite, user_id, created_at,
        updated_at) VALUES (${early.id}, ${early.name}, 1, 'text/plain', 0, false, ${ann.id},
        ${early.createdAt}, ${early.updatedAt})`;
    });
    await sql`UPDATE file_tags SET file_id = ${files[199].id}
      WHERE file_id = ${files[0].id} AND tag_id = 'a1'`;
    assert.deepEqual(await drift(sql), []);
    // A link to no file still fails, at commit.
    await assert.rejects(sql`INSERT INTO file_tags (file_id, tag_id) VALUES ('nothing', 'a1')`);
    // A tag's list takes its total from its counter, pages from the end included.
    await assertTagPages(store, ann.id, ["a1", "a2", "a4", "none"]);
  },
);

Deno.test({
  name: "postgres 045: the links already stored are counted into their tags",
  ignore: ignoreKind("postgres"),
  fn: () =>
    beforeMigration(45, async (sql, store, migrateIt) => {
      const [ann, bob] = [await storedUser(store), await storedUser(store)];
      await storedTag(store, ann.id, "t0");
      await storedTag(store, ann.id, "t1");
      const annFiles = Array.from({ length: 40 }, () => fileRecord(ann.id));
      const others = [
        fileRecord(bob.id),
        fileRecord(ann.id, { pending: true }),
        fileRecord(null),
      ];
      await store.files.createMany([...annFiles, ...others]);
      for (const [i, f] of annFiles.entries()) await store.tags.setFileTags(f.id, [`t${i % 2}`]);
      for (const f of others) await store.tags.setFileTags(f.id, ["t0"]);
      await migrateIt();
      assert.deepEqual(await drift(sql), []);
      const counts = await sql<{ owner: string; tag: string; files: string }[]>`
        SELECT owner, tag, files FROM tag_file_counts ORDER BY owner, tag`;
      assert.deepEqual(
        counts.map((c) => `${c.owner === ann.id ? "ann" : "bob"} ${c.tag} ${c.files}`).sort(),
        ["ann t0 20", "ann t1 20", "bob t0 1"],
      );
      await store.tags.setFileTags(annFiles[0].id, []);
      await store.files.delete(others[0].id);
      assert.deepEqual(await drift(sql), [], "counted on by the triggers");
      await migrate(sql); // the pages read the links' keys (migration 047)
      await assertTagPages(store, ann.id, ["t0", "t1"]);
    }),
});

migratedPostgresTest(
  "postgres 045: the recount sets right the tag counters made wrong by hand, not those written meanwhile",
  async (sql, store) => {
    const ann = await storedUser(store);
    for (const name of ["t1", "t2", "t3", "t4"]) await storedTag(store, ann.id, name);
    // In id order, the order of the recount's passes.
    const files = Array.from({ length: 120 }, () => fileRecord(ann.id))
      .sort((a, b) => a.id < b.id ? -1 : 1);
    await store.files.createMany(files);
    for (const [i, f] of files.entries()) {
      await store.tags.setFileTags(f.id, i % 3 === 0 ? ["t1", "t2"] : i % 3 === 1 ? ["t3"] : []);
    }
    const right = await sql`SELECT owner, tag, files FROM tag_file_counts ORDER BY tag`;
    const wrong = async () => {
      await sql`UPDATE tag_file_counts SET files = files + 7 WHERE tag = 't1'`;
      await sql`DELETE FROM tag_file_counts WHERE tag = 't2'`;
      await sql`INSERT INTO tag_file_counts (owner, tag, files) VALUES (${ann.id}, 't4', 3)
        ON CONFLICT (owner, tag) DO UPDATE SET files = 3`;
    };
    await wrong();
    assert.equal((await drift(sql)).length, 3);
    const recount = async () => {
      let repaired = 0;
      for (let done = false; !done;) {
        const pass = await store.files.recountStats(ann.id, 50);
        repaired += pass.repaired;
        done = pass.done;
      }
      return repaired;
    };
    assert.equal(await recount(), 3);
    assert.deepEqual(await drift(sql), []);
    assert.deepEqual(
      (await sql`SELECT owner, tag, files FROM tag_file_counts WHERE files <> 0 ORDER BY tag`)
        .map((r) => `${r.tag} ${r.files}`),
      right.map((r) => `${r.tag} ${r.files}`),
    );
    // Written meanwhile: a link moved from a file the recount read to one it has not (one
    // statement, the counter's total the same): that counter is left to the next recount.
    await wrong();
    const pass = await store.files.recountStats(ann.id, 50);
    assert.equal(pass.done, false);
    await sql`UPDATE file_tags SET file_id = ${files[119].id}
      WHERE file_id = ${files[0].id} AND tag_id = 't1'`;
    assert.equal(await recount(), 2, "t2 and t4, not t1");
    assert.deepEqual(await drift(sql), [`${ann.id} t1: ${40 + 7}/40`]);
    assert.equal(await recount(), 1);
    assert.deepEqual(await drift(sql), []);
  },
);
