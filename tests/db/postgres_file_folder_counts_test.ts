/**
 * PostgreSQL's counts of each folder's files (issue #32, migration 044):
 * they stay equal to the files they count through uploads, imports,
 * completions, moves between folders, deletions, an owner's deletion and a
 * rolled-back transaction; a folder's list takes its total from them; and a
 * database migrated before 044 has its files counted by it.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import type { FileLimits } from "../../db/files.ts";
import { assertPagesAsInMemory, beforeMigration } from "../helpers/postgres_counts.ts";
import { fileRecord, ignoreKind, migratedPostgresTest, storedUser } from "../helpers/stores.ts";

const NO_LIMITS: FileLimits = { maxBytes: null, maxFiles: null };

/** The folder counts that differ from a count of the files, as `owner folder: kept/counted`. */
async function drift(sql: postgres.Sql): Promise<string[]> {
  const rows = await sql<{ owner: string; folder: string; kept: string; n: string }[]>`
    WITH counted AS (
      SELECT user_id AS owner, folder_id AS folder, count(*) AS n FROM files
      WHERE NOT pending AND user_id IS NOT NULL AND folder_id IS NOT NULL GROUP BY 1, 2
    )
    SELECT coalesce(f.owner, c.owner) AS owner, coalesce(f.folder, c.folder) AS folder,
      coalesce(f.files, 0) AS kept, coalesce(c.n, 0) AS n
    FROM (SELECT * FROM file_folder_counts WHERE files <> 0) AS f
    FULL JOIN counted AS c USING (owner, folder)
    WHERE coalesce(f.files, 0) <> coalesce(c.n, 0)`;
  return rows.map((r) => `${r.owner} ${r.folder}: ${r.kept}/${r.n}`);
}

migratedPostgresTest(
  "postgres 044: folder counts stay right through uploads, imports, completions, moves, deletes, owners' deletion and a rollback",
  async (sql, store) => {
    const [ann, bob] = [await storedUser(store), await storedUser(store)];
    const folderOf = (i: number) => i % 3 === 0 ? null : `folder-${i % 4}`;
    await store.files.createMany(
      Array.from({ length: 300 }, (_, i) => fileRecord(ann.id, { folderId: folderOf(i) })),
    );
    await store.files.createMany([
      fileRecord(null, { folderId: "folder-1" }),
      fileRecord(bob.id, { folderId: "folder-1" }),
      fileRecord(ann.id, { folderId: "folder-9", pending: true }),
    ]);
    assert.deepEqual(await drift(sql), []);
    await Promise.all(
      Array.from(
        { length: 12 },
        () => store.files.create(fileRecord(ann.id, { folderId: "folder-2" }), NO_LIMITS),
      ),
    );
    const pending = fileRecord(ann.id, { folderId: "folder-3", pending: true, size: 0 });
    await store.files.create(pending, NO_LIMITS);
    assert.deepEqual(await drift(sql), []);
    await store.files.complete(pending.id, 10, NO_LIMITS, new Date());
    const listed = await store.files.listByUser(ann.id);
    await store.files.update(listed[1].id, { folderId: "folder-3" }, new Date());
    await store.files.update(listed[2].id, { folderId: null }, new Date());
    await store.files.update(listed[3].id, { folderId: "folder-5" }, new Date());
    assert.deepEqual(await drift(sql), []);
    await store.files.delete(listed[4].id);
    await store.files.deleteMany(listed.slice(10, 100).map((f) => f.id));
    assert.deepEqual(await drift(sql), []);
    await store.files.disown(bob.id);
    assert.deepEqual(await drift(sql), []);
    await assert.rejects(store.transaction(async (tx) => {
      await tx.files.createMany([fileRecord(ann.id, { folderId: "folder-1" })]);
      throw new Error("stop");
    }));
    assert.deepEqual(await drift(sql), []);
    // A folder's list takes its total from its counter, pages from the end included.
    const all = await store.files.listByUser(ann.id);
    const folders = ["folder-1", "folder-2", "folder-3", "folder-5", "folder-none"];
    await assertPagesAsInMemory(
      store.files,
      all,
      folders.flatMap((folderId) =>
        [0, 15, 60].flatMap((offset) =>
          (["asc", "desc"] as const).map((order) => ({
            userId: ann.id,
            folderId,
            sortBy: "size" as const,
            order,
            offset,
            limit: 15,
          }))
        )
      ),
    );
  },
);

Deno.test({
  name: "postgres 044: the files already stored are counted into their folders",
  ignore: ignoreKind("postgres"),
  fn: () =>
    beforeMigration(44, async (sql, store, migrateIt) => {
      const [ann, bob] = [await storedUser(store), await storedUser(store)];
      await store.files.createMany([
        ...Array.from({ length: 50 }, (_, i) => fileRecord(ann.id, { folderId: `f${i % 3}` })),
        fileRecord(bob.id, { folderId: "f0" }),
        fileRecord(ann.id, { folderId: "f0", pending: true }),
        fileRecord(null, { folderId: "f0" }),
        fileRecord(ann.id),
      ]);
      await migrateIt();
      assert.deepEqual(await drift(sql), []);
      const [{ n }] = await sql<{ n: string }[]>`
      SELECT files AS n FROM file_folder_counts WHERE owner = ${ann.id} AND folder = 'f0'`;
      assert.equal(Number(n), 17);
      await store.files.createMany([fileRecord(bob.id, { folderId: "f0" })]);
      assert.deepEqual(await drift(sql), [], "counted on by the triggers");
    }),
});
