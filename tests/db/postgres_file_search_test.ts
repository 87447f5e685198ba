/**
 * PostgreSQL's trigram indexes of the files search (migration 029): over
 * 100,000 files of one owner, a search's page and count read
 * `files_search_name` (and the original name's and type's), not every file.
 */
import assert from "node:assert/strict";
import { searchCondition } from "../../db/postgres/files.ts";
import { migratedPostgresTest, storedUser } from "../helpers/stores.ts";

migratedPostgresTest(
  "postgres 029: a search's page and count read the trigram indexes, at 100,000 files",
  async (sql, store) => {
    const owner = await storedUser(store);
    await sql`INSERT INTO files (id, name, original_name, size, type, user_id, created_at,
      updated_at)
    SELECT 'f' || i, 'N' || md5(i::text) || '.png', 'Holiday-' || i || '.PNG', 1,
      CASE WHEN i % 1000 = 0 THEN 'application/x-Rare'
        ELSE (ARRAY['image/png', 'text/plain', 'video/mp4'])[i % 3 + 1] END, ${owner.id},
      now() - i * interval '1 second', now()
    FROM generate_series(1, 100000) AS i`;
    await sql`ANALYZE files`;
    const plans: Record<string, string> = {};
    for (
      const [field, query, index] of [
        ["name", "3C59DC0", "files_search_name"],
        ["originalName", "holiday-33333", "files_search_original_name"],
        ["type", "X-RARE", "files_search_type"],
      ] as const
    ) {
      const where = sql`user_id = ${owner.id} AND NOT pending
      AND ${searchCondition(sql, { field, query })}`;
      for (
        const [what, statement] of [
          ["count", sql`EXPLAIN SELECT count(*) FROM files WHERE ${where}`],
          [
            "page",
            sql`EXPLAIN SELECT * FROM files WHERE ${where}
            ORDER BY created_at DESC NULLS LAST, id COLLATE "C" LIMIT 15`,
          ],
        ] as const
      ) {
        const plan = (await statement).map((row) => row["QUERY PLAN"]).join("\n");
        plans[`${field} ${what}`] = plan;
        if (field !== "type" || what === "count") {
          assert.match(plan, new RegExp(index), `${field} ${what}:\n${plan}`);
        }
      }
    }
    const page = await store.files.list({
      userId: owner.id,
      offset: 0,
      limit: 15,
      sortBy: "createdAt",
      order: "desc",
      search: { field: "originalName", query: "HOLIDAY-3333." },
    });
    assert.equal(page.total, 1, "3333, not 33330");
    assert.deepEqual(page.files.map((f) => f.id).slice(0, 2), ["f3333"]);
  },
);
