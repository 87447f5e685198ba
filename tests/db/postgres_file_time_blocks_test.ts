/**
 * PostgreSQL's block counts of the newest-first order (issue #32, migration
 * 041): they stay equal to the files they count through uploads, imports,
 * completions, deletions, an owner's deletion and concurrent uploads; a
 * database migrated before 041 has its files counted by it; and a deep page
 * in either direction, read from its block's edge, is the page the records
 * sorted in memory give (ties of one instant and block edges included).
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import type { FileLimits } from "../../db/files.ts";
import { BLOCKS_FROM } from "../../db/postgres/file_time_blocks.ts";
import { assertPagesAsInMemory, beforeMigration } from "../helpers/postgres_counts.ts";
import { fileRecord, ignoreKind, migratedPostgresTest, storedUser } from "../helpers/stores.ts";

const NO_LIMITS: FileLimits = { maxBytes: null, maxFiles: null };

/** The block counts that differ from a count of the files, as `owner level block: kept/counted`. */
async function drift(sql: postgres.Sql): Promise<string[]> {
  const rows = await sql<
    { owner: string; level: number; block: string; kept: string; n: string }[]
  >`
    WITH fine AS (
      SELECT user_id AS owner,
        floor(extract(epoch FROM created_at) * 1000000 / 67108864)::bigint AS block
      FROM files WHERE NOT pending AND user_id IS NOT NULL
    ), counted AS (
      SELECT owner, 0 AS level, block, count(*) AS n FROM fine GROUP BY 1, 2, 3
      UNION ALL SELECT owner, 1, block >> 8, count(*) FROM fine GROUP BY 1, 2, 3
    )
    SELECT coalesce(b.owner, c.owner) AS owner, coalesce(b.level, c.level) AS level,
      coalesce(b.block, c.block) AS block, coalesce(b.files, 0) AS kept, coalesce(c.n, 0) AS n
    FROM (SELECT * FROM file_time_blocks WHERE files <> 0) AS b
    FULL JOIN counted AS c USING (owner, level, block)
    WHERE coalesce(b.files, 0) <> coalesce(c.n, 0)`;
  return rows.map((r) => `${r.owner} ${r.level} ${r.block}: ${r.kept}/${r.n}`);
}

migratedPostgresTest(
  "postgres 041: block counts stay right through uploads, imports, completions, deletes, owners' deletion and concurrent uploads",
  async (sql, store) => {
    const [ann, bob] = [await storedUser(store), await storedUser(store)];
    const start = Date.UTC(2026, 0, 1);
    const at = (ms: number) => ({ createdAt: new Date(ms), updatedAt: new Date(ms) });
    // An import: files a few seconds apart, over several fine and coarse blocks, some of one instant.
    await store.files.createMany(
      Array.from(
        { length: 3000 },
        (_, i) => fileRecord(ann.id, at(start + Math.floor(i / 3) * 7000)),
      ),
    );
    await store.files.createMany([fileRecord(null, at(start)), fileRecord(bob.id, at(start))]);
    assert.deepEqual(await drift(sql), []);
    const [{ n }] = await sql<{ n: string }[]>`SELECT count(*) AS n FROM file_time_blocks`;
    assert.ok(Number(n) > 100, `${n} blocks`);
    // Uploads, concurrent ones of one owner in one block among them.
    await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) => store.files.create(fileRecord(ann.id, at(start + 5000 + i)), NO_LIMITS),
      ),
    );
    // A pending upload is not counted until completed.
    const pending = fileRecord(ann.id, { ...at(start + 1), pending: true, size: 0 });
    await store.files.create(pending, NO_LIMITS);
    assert.deepEqual(await drift(sql), []);
    await store.files.complete(pending.id, 10, NO_LIMITS, new Date(start + 2));
    assert.deepEqual(await drift(sql), []);
    // Deletes, one and many; an owner's deletion (the files kept, without an owner).
    const listed = await store.files.listByUser(ann.id);
    await store.files.delete(listed[0].id);
    await store.files.deleteMany(listed.slice(1, 700).map((f) => f.id));
    assert.deepEqual(await drift(sql), []);
    await store.files.disown(bob.id);
    assert.deepEqual(await drift(sql), []);
    // A transaction's writes (an import's), rolled back: nothing moves.
    await assert.rejects(store.transaction(async (tx) => {
      await tx.files.createMany([fileRecord(ann.id, at(start + 99_000_000))]);
      throw new Error("stop");
    }));
    assert.deepEqual(await drift(sql), []);
  },
);

migratedPostgresTest(
  "postgres 041: a deep page of the newest-first order, either way, is the page the files sorted give",
  async (sql, store) => {
    const owner = await storedUser(store);
    const start = Date.UTC(2026, 0, 1);
    // 4,000 files: 3 a second for a while, then 600 of one instant, then gaps of hours;
    // another owner's files in between.
    const times = Array.from(
      { length: 4000 },
      (_, i) =>
        i < 2000
          ? start + Math.floor(i / 3) * 1000
          : i < 2600
          ? start + 1_000_000
          : start + 2_000_000 + (i - 2600) * 3_600_000 / 7,
    );
    await store.files.createMany(
      times.map((ms) => fileRecord(owner.id, { createdAt: new Date(ms), updatedAt: new Date(ms) })),
    );
    const other = await storedUser(store);
    await store.files.createMany(
      Array.from(
        { length: 500 },
        () => fileRecord(other.id, { createdAt: new Date(start + 1_000_000) }),
      ),
    );
    await sql`VACUUM ANALYZE files`;
    const all = await store.files.listByUser(owner.id);
    const offsets = [BLOCKS_FROM, 1001, 1990, 2000, 2300, 2599, 2600, 3333, 3985, 3999, 4000, 4100];
    await assertPagesAsInMemory(
      store.files,
      all,
      (["asc", "desc"] as const).flatMap((order) =>
        offsets.flatMap((offset) =>
          [15, 50].map((limit) => ({
            userId: owner.id,
            sortBy: "createdAt" as const,
            order,
            offset,
            limit,
          }))
        )
      ),
    );
  },
);

Deno.test({
  name: "postgres 041: the files already stored are counted into their owners' blocks",
  ignore: ignoreKind("postgres"),
  fn: () =>
    beforeMigration(41, async (sql, store, migrateIt) => {
      const [ann, bob] = [await storedUser(store), await storedUser(store)];
      await store.files.createMany([
        ...Array.from(
          { length: 50 },
          (_, i) => fileRecord(ann.id, { createdAt: new Date(Date.UTC(2026, 0, 1) + i * 600_000) }),
        ),
        fileRecord(bob.id),
        fileRecord(ann.id, { pending: true }),
        fileRecord(null),
      ]);
      await migrateIt();
      assert.deepEqual(await drift(sql), []);
      const [{ n }] = await sql<{ n: string }[]>`
      SELECT sum(files) AS n FROM file_time_blocks WHERE owner = ${ann.id} AND level = 1`;
      assert.equal(Number(n), 50);
      await store.files.createMany([fileRecord(bob.id)]);
      assert.deepEqual(await drift(sql), [], "counted on by the triggers");
    }),
});
