/**
 * PostgreSQL's block counts of the name order (issue #32, migration 043):
 * they stay equal to the files they count through uploads, imports,
 * renames, completions, deletions, an owner's deletion, concurrent uploads
 * and a rolled-back transaction; a database migrated before 043 has its files
 * counted by it; and a deep page sorted by name in either direction, read
 * from its block's edge, is the page the records sorted in memory give
 * (one-character names, long shared prefixes, other scripts and block edges
 * included).
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import type { FileLimits } from "../../db/files.ts";
import { afterPrefix } from "../../db/postgres/file_name_blocks.ts";
import { BLOCKS_FROM } from "../../db/postgres/file_time_blocks.ts";
import { assertPagesAsInMemory, beforeMigration } from "../helpers/postgres_counts.ts";
import { fileRecord, ignoreKind, migratedPostgresTest, storedUser } from "../helpers/stores.ts";

const NO_LIMITS: FileLimits = { maxBytes: null, maxFiles: null };

/** The name block counts that differ from a count of the files, as `owner block: kept/counted`. */
async function drift(sql: postgres.Sql): Promise<string[]> {
  const rows = await sql<{ owner: string; block: string; kept: string; n: string }[]>`
    WITH counted AS (
      SELECT user_id AS owner, left(name, 1) COLLATE "C" AS block, count(*) AS n
      FROM files WHERE NOT pending AND user_id IS NOT NULL GROUP BY 1, 2
    )
    SELECT coalesce(b.owner, c.owner) AS owner, coalesce(b.block, c.block) AS block,
      coalesce(b.files, 0) AS kept, coalesce(c.n, 0) AS n
    FROM (SELECT * FROM file_name_blocks WHERE files <> 0) AS b
    FULL JOIN counted AS c USING (owner, block)
    WHERE coalesce(b.files, 0) <> coalesce(c.n, 0)`;
  return rows.map((r) => `${r.owner} ${r.block}: ${r.kept}/${r.n}`);
}

/** `n` names: random ones, a run sharing a long prefix, one-character ones and other scripts. */
function names(n: number, seed: string): string[] {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyzéñ中😀";
  const chars = [...alphabet];
  let x = 7;
  const random = () => (x = (x * 48271) % 2147483647) / 2147483647;
  return Array.from(
    { length: n },
    (_, i) =>
      i % 10 === 0
        ? `2026-11-27_${seed}${i}.png`
        : i < chars.length && seed === "a"
        ? chars[i]
        : Array.from({ length: 6 }, () => chars[Math.floor(random() * chars.length)]).join("") +
          `${seed}${i}.txt`,
  );
}

Deno.test("afterPrefix: the least string after every string with the prefix", () => {
  assert.equal(afterPrefix("ab"), "ac");
  assert.equal(afterPrefix("a\u{10ffff}"), "b");
  assert.equal(afterPrefix("a\ud7ff"), "a\ue000");
  assert.equal(afterPrefix("\u{10ffff}\u{10ffff}"), null);
});

migratedPostgresTest(
  "postgres 043: name block counts stay right through uploads, imports, renames, completions, deletes, owners' deletion and concurrent uploads",
  async (sql, store) => {
    const [ann, bob] = [await storedUser(store), await storedUser(store)];
    await store.files.createMany(names(3000, "a").map((name) => fileRecord(ann.id, { name })));
    await store.files.createMany([fileRecord(null), fileRecord(bob.id, { name: "Ω" })]);
    assert.deepEqual(await drift(sql), []);
    const [{ n }] = await sql<{ n: string }[]>`SELECT count(*) AS n FROM file_name_blocks`;
    assert.ok(Number(n) > 50, `${n} blocks`);
    // Uploads, concurrent ones of one owner into one block among them.
    await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) => store.files.create(fileRecord(ann.id, { name: `zz-${i}` }), NO_LIMITS),
      ),
    );
    const pending = fileRecord(ann.id, { name: "qq-pending", pending: true, size: 0 });
    await store.files.create(pending, NO_LIMITS);
    assert.deepEqual(await drift(sql), []);
    await store.files.complete(pending.id, 10, NO_LIMITS, new Date());
    // A rename moves a file between blocks.
    const listed = await store.files.listByUser(ann.id);
    await store.files.update(listed[5].id, { name: "é-renamed" }, new Date());
    assert.deepEqual(await drift(sql), []);
    await store.files.delete(listed[0].id);
    await store.files.deleteMany(listed.slice(10, 700).map((f) => f.id));
    assert.deepEqual(await drift(sql), []);
    await store.files.disown(bob.id);
    assert.deepEqual(await drift(sql), []);
    await assert.rejects(store.transaction(async (tx) => {
      await tx.files.createMany([fileRecord(ann.id, { name: "rolled-back" })]);
      throw new Error("stop");
    }));
    assert.deepEqual(await drift(sql), []);
  },
);

migratedPostgresTest(
  "postgres 043: a deep page sorted by name, either way, is the page the files sorted give",
  async (sql, store) => {
    const owner = await storedUser(store);
    await store.files.createMany(names(4000, "a").map((name) => fileRecord(owner.id, { name })));
    const other = await storedUser(store);
    await store.files.createMany(names(500, "b").map((name) => fileRecord(other.id, { name })));
    await sql`VACUUM ANALYZE files`;
    const all = await store.files.listByUser(owner.id);
    const offsets = [BLOCKS_FROM, 1001, 1990, 2000, 2345, 2999, 3333, 3985, 3999, 4000, 4100];
    await assertPagesAsInMemory(
      store.files,
      all,
      (["asc", "desc"] as const).flatMap((order) =>
        offsets.flatMap((offset) =>
          [15, 50].map((limit) => ({
            userId: owner.id,
            sortBy: "name" as const,
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
  name: "postgres 043: the files already stored are counted into their owners' name blocks",
  ignore: ignoreKind("postgres"),
  fn: () =>
    beforeMigration(43, async (sql, store, migrateIt) => {
      const [ann, bob] = [await storedUser(store), await storedUser(store)];
      await store.files.createMany([
        ...names(50, "a").map((name) => fileRecord(ann.id, { name })),
        fileRecord(bob.id),
        fileRecord(ann.id, { pending: true }),
        fileRecord(null),
      ]);
      await migrateIt();
      assert.deepEqual(await drift(sql), []);
      const [{ n }] = await sql<{ n: string }[]>`
      SELECT sum(files) AS n FROM file_name_blocks WHERE owner = ${ann.id}`;
      assert.equal(Number(n), 50);
      await store.files.createMany([fileRecord(bob.id)]);
      assert.deepEqual(await drift(sql), [], "counted on by the triggers");
    }),
});
