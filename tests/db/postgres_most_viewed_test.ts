/**
 * PostgreSQL's most viewed files (migration 046, `FileStore.mostViewed`):
 * over 20,000 files, the viewed ones are read from `files_most_viewed` and
 * the unviewed rest from each owner's name order (`files_list_name_asc`),
 * never by a pass over every file, with the answer the rule gives.
 */
import assert from "node:assert/strict";
import { mostViewedOf } from "../../db/files.ts";
import { mostViewedQuery, unviewedQuery } from "../../db/postgres/files.ts";
import { migratedPostgresTest, storedUser } from "../helpers/stores.ts";

migratedPostgresTest(
  "postgres 046: the most viewed files and the unviewed rest are index scans, at 20,000 files",
  async (sql, store) => {
    const [owner, other] = [await storedUser(store), await storedUser(store)];
    const at = new Date(Date.UTC(2026, 0, 1));
    // 1 in 1000 viewed (1 to 3 views), 1 in 500 pending, 1 in 10 without an owner.
    await sql`INSERT INTO files (id, name, size, type, user_id, created_at, updated_at,
      views, pending)
    SELECT 'f' || i, 'n' || i, 1, 'text/plain',
      CASE WHEN i % 10 = 0 THEN NULL WHEN i % 10 = 1 THEN ${other.id} ELSE ${owner.id} END,
      ${at}, ${at},
      CASE WHEN i % 1000 = 7 THEN i % 3 + 1 ELSE 0 END,
      i % 500 = 3
    FROM generate_series(1, 20000) AS i`;
    await sql`ANALYZE files`;
    const plans: [string, ReturnType<typeof mostViewedQuery>, RegExp][] = [
      ["viewed", mostViewedQuery(sql, 10), /using files_most_viewed\b/],
      ["unviewed", unviewedQuery(sql, 10), /using files_list_name_asc\b/],
    ];
    for (const [label, query, index] of plans) {
      const plan = (await sql`EXPLAIN ${query}`).map((row) => row["QUERY PLAN"]).join("\n");
      assert.match(plan, index, `${label}:\n${plan}`);
      assert.doesNotMatch(plan, /Seq Scan on files/, `${label}:\n${plan}`);
    }
    const all = [];
    for await (const f of store.files.iterate()) all.push(f);
    for (const take of [5, 20, 100]) {
      assert.deepEqual(
        (await store.files.mostViewed(take)).map((f) => f.name),
        mostViewedOf(all, take).map((f) => f.name),
        `take ${take}`,
      );
    }
  },
);
