/**
 * PostgreSQL's files list at 20,000 files of one owner (issue #32,
 * migrations 028, 034, 040 and 048): the favourites' and a folder's page in every
 * order, deep in it, read from their partial index, never by sorting the
 * owner's files (but the ties of an order read backwards from the other
 * direction's index, migration 040); a page past the middle read backwards from the end of its
 * index; the short URLs past their view limit read from their index
 * (migration 035); and a recount pass reads its budget of files from the
 * owner's id order (migration 036). Each answer is also compared with the
 * records sorted in memory.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { FILE_SORT_KEYS, type FileQuery, queryFiles } from "../../db/files.ts";
import { groupPageQuery, listPageQuery } from "../../db/postgres/files.ts";
import { listedOrder, orderGroups } from "../../db/postgres/file_order_groups.ts";
import { fileRecord, migratedPostgresTest, storedUser } from "../helpers/stores.ts";

/** The plan of `query`, one line a node. */
// deno-lint-ignore no-explicit-any
async function plan(sql: postgres.Sql, query: postgres.PendingQuery<any[]>) {
  return (await sql`EXPLAIN ${query}`).map((row) => row["QUERY PLAN"]).join("\n");
}

migratedPostgresTest(
  "postgres 034–036: filtered pages, pages past the middle, URLs and recounts read indexes",
  async (sql, store) => {
    const owner = await storedUser(store);
    const start = Date.UTC(2026, 0, 1);
    // 1 in 20 a favourite, 1 in 50 in the folder, a few types, sizes and views repeating.
    await sql`INSERT INTO files (id, name, original_name, size, type, views, favorite,
      user_id, folder_id, created_at, updated_at, deletes_at)
    SELECT 'f' || lpad(i::text, 5, '0'), 'n' || i, CASE WHEN i % 4 <> 0 THEN 'o' || i END,
      i % 997, (ARRAY['image/png', 'text/plain', 'video/mp4'])[i % 3 + 1], i % 13,
      i % 20 = 0, ${owner.id}, CASE WHEN i % 50 = 0 THEN 'folder' END,
      ${new Date(start)}::timestamptz + i * interval '1 second',
      ${new Date(start)}::timestamptz + i * interval '1 second',
      CASE WHEN i % 3 = 0 THEN ${new Date(start)}::timestamptz + (i % 7) * interval '1 day' END
    FROM generate_series(1, 20000) AS i`;
    await sql`VACUUM ANALYZE files`;
    const all = await store.files.listByUser(owner.id);
    const check = async (asked: FileQuery, total: number, index: RegExp | null) => {
      const q = listedOrder(asked);
      // The orders read as two groups (migration 048): their sizes counted as the store counts.
      const groups = orderGroups(q);
      const expiring = all.filter((f) => f.deletesAt !== null).length;
      const favorites = all.filter((f) => f.favorite).length;
      const small = groups?.[0].condition === "favorite" || groups?.[1].condition === "favorite"
        ? favorites
        : expiring;
      const query = groups
        ? groupPageQuery(
          sql,
          q,
          groups,
          groups[0].small ? [small, total - small] : [
            total - small,
            small,
          ],
        )
        : listPageQuery(sql, q, total).query;
      const what = JSON.stringify(q);
      const shown = await plan(sql, query!);
      // A group order's part may be the favourites' alone (their index).
      if (index) {
        assert.match(shown, groups ? /files_(list|favorites)_/ : index, `${what}:\n${shown}`);
      }
      assert.doesNotMatch(shown, /Seq Scan/, `${what}:\n${shown}`);
      // No sort but of the page's own rows (after the join of its ids), or of the ties of an
      // order read backwards from the other direction's index (migration 040): an incremental
      // sort over the index's order.
      for (const [, rows] of shown.matchAll(/(?<!Incremental )Sort {2}\(cost=[\d.]+ rows=(\d+)/g)) {
        assert.ok(Number(rows) <= q.limit, `${what}: a sort of ${rows} rows:\n${shown}`);
      }
      for (
        const [, key] of shown.matchAll(
          /Incremental Sort[^\n]*\n\s*Sort Key: [^\n]*\n\s*Presorted Key: ([^\n]*)/g,
        )
      ) {
        assert.match(key, /(created|updated)_at|size/, `${what}: ties of ${key}:\n${shown}`);
      }
      assert.equal(
        shown.match(/Incremental Sort/g)?.length ?? 0,
        shown.match(/Presorted Key/g)?.length ?? 0,
        `${what}:\n${shown}`,
      );
      const got = await store.files.list(q);
      const want = queryFiles(all, q);
      assert.equal(got.total, want.total, what);
      assert.deepEqual(got.files.map((f) => f.id), want.files.map((f) => f.id), what);
    };
    for (const sortBy of FILE_SORT_KEYS) {
      for (const order of ["asc", "desc"] as const) {
        const q = { userId: owner.id, sortBy, order, limit: 15 };
        // Page 60 of the favourites (1,000), page 20 of the folder's (400).
        await check({ ...q, offset: 885, favorite: true }, 1000, /files_(favorites|list)_/);
        await check({ ...q, offset: 285, folderId: "folder" }, 400, /files_(folder|list)_/);
        // Page 21 of every file, and the first: forward in the order's index (or the other
        // direction's, read backwards: migration 040).
        await check({ ...q, offset: 300 }, 20000, /files_(list|user_listing)/);
        await check({ ...q, offset: 0 }, 20000, /files_(list|user_listing)/);
        // Past the middle of every file: from the end, backwards (each group's part from its
        // own end, past its middle).
        if (!orderGroups({ ...q, offset: 15000 })) {
          assert.ok(listPageQuery(sql, { ...q, offset: 15000 }, 20000).backwards);
        }
        await check({ ...q, offset: 15000 }, 20000, null);
      }
    }

    // Migration 040: one index for both directions of the NOT NULL orders without large ties.
    const names = (await sql<{ name: string }[]>`
      SELECT indexname AS name FROM pg_indexes WHERE tablename = 'files'`).map((r) => r.name);
    for (const gone of ["id_desc", "name_desc", "created_at_asc", "updated_at_desc", "size_desc"]) {
      for (const kind of ["list", "favorites", "folder"]) {
        assert.ok(!names.includes(`files_${kind}_${gone}`), `files_${kind}_${gone} is dropped`);
      }
    }

    // The short URLs at their view limit: from `urls_exhausted` alone.
    await sql`INSERT INTO urls (id, code, destination, views, max_views, user_id,
      created_at, updated_at)
    SELECT 'u' || i, 'c' || i, 'https://example.com/', 3,
      CASE WHEN i % 1000 = 1 THEN 3 WHEN i % 100 = 2 THEN 9 END, ${owner.id},
      now(), now()
    FROM generate_series(1, 20000) AS i`;
    await sql`ANALYZE urls`;
    const urls = await plan(
      sql,
      sql`SELECT * FROM urls WHERE max_views IS NOT NULL AND views >= max_views
      ORDER BY id COLLATE "C" LIMIT 500`,
    );
    assert.match(urls, /urls_exhausted/, urls);
    const exhausted = await store.urls.exhausted(500);
    assert.equal(exhausted.length, 20);
    assert.ok(exhausted.every((u) => u.maxViews === 3));

    // A recount reads its budget a pass.
    const passes = [];
    for (let done = false; !done;) {
      const pass = await store.files.recountStats(owner.id, 6000);
      passes.push(pass.read);
      done = pass.done;
    }
    assert.deepEqual(passes, [6000, 6000, 6000, 2000]);
  },
);

migratedPostgresTest(
  "postgres: an import's bulk inserts refresh the planner's statistics of files",
  async (sql, store) => {
    const owner = await storedUser(store);
    for (let run = 0; run < 12; run++) {
      await store.files.createMany(Array.from({ length: 1000 }, () => fileRecord(owner.id)));
    }
    const [{ counted }] = await sql<{ counted: number }[]>`
    SELECT reltuples::float8 AS counted FROM pg_class WHERE oid = 'files'::regclass`;
    assert.ok(counted >= 10_000, `the planner counts ${counted} files`);
    // (The pages' all-visible bits are not asserted: the test cluster commits asynchronously,
    // and a vacuum right after the commit may not mark pages whose commit is not flushed yet.)
    // Inside a transaction (an import's), the statistics alone.
    await store.transaction(async (tx) => {
      for (let run = 0; run < 12; run++) {
        await tx.files.createMany(Array.from({ length: 1000 }, () => fileRecord(owner.id)));
      }
    });
    const [{ now }] = await sql<{ now: number }[]>`
    SELECT reltuples::float8 AS now FROM pg_class WHERE oid = 'files'::regclass`;
    assert.ok(now >= 20_000, `the planner counts ${now} files`);
  },
);
