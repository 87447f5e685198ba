/**
 * PostgreSQL's tag filter (issue #32, `FileQuery.tagIds`, migration 038) at
 * 20,000 files of one owner, 1 in 200 carrying the tag (and every one another): a page of the tag's
 * files, first and deep, reads `file_tags` by index (never a scan of the
 * links) and equals the records sorted in memory.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { type FileQuery, queryFiles } from "../../db/files.ts";
import { listPageQuery } from "../../db/postgres/files.ts";
import { migratedPostgresTest, storedUser } from "../helpers/stores.ts";

/** The plan of `query`, one line a node. */
// deno-lint-ignore no-explicit-any
async function plan(sql: postgres.Sql, query: postgres.PendingQuery<any[]>) {
  return (await sql`EXPLAIN ${query}`).map((row) => row["QUERY PLAN"]).join("\n");
}

migratedPostgresTest(
  "postgres 038: the tag filter's pages read file_tags by index",
  async (sql, store) => {
    const owner = await storedUser(store);
    const start = Date.UTC(2026, 0, 1);
    await sql`INSERT INTO files (id, name, size, type, views, favorite, user_id, created_at,
      updated_at)
    SELECT 'f' || lpad(i::text, 5, '0'), 'n' || i, i % 997, 'image/png', 0, i % 20 = 0,
      ${owner.id}, ${new Date(start)}::timestamptz + i * interval '1 second',
      ${new Date(start)}::timestamptz + i * interval '1 second'
    FROM generate_series(1, 20000) AS i`;
    const at = new Date(start);
    const tag = {
      id: "t1",
      name: "t",
      color: "#123456",
      userId: owner.id,
      createdAt: at,
      updatedAt: at,
    };
    await store.tags.create(tag);
    await store.tags.create({ ...tag, id: "t2", name: "every" });
    await sql`INSERT INTO file_tags (file_id, tag_id)
    SELECT 'f' || lpad(i::text, 5, '0'), 't1' FROM generate_series(1, 20000, 200) AS i`;
    // Another tag on every file: the tag's 100 links among 20,100, a scan would read them all.
    await sql`INSERT INTO file_tags (file_id, tag_id)
      SELECT 'f' || lpad(i::text, 5, '0'), 't2' FROM generate_series(1, 20000) AS i`;
    await sql`VACUUM ANALYZE files`;
    await sql`VACUUM ANALYZE file_tags`;
    const all = await store.files.listByUser(owner.id);
    const tagged = all.filter((f) => (Number(f.id.slice(1)) - 1) % 200 === 0).map((f) => f.id);
    for (const offset of [0, 60]) {
      for (const sortBy of ["createdAt", "size"] as const) {
        const q: FileQuery = { userId: owner.id, sortBy, order: "desc", offset, limit: 15 };
        const got = await store.files.list({ ...q, tagIds: ["t1"] });
        const want = queryFiles(all, { ...q, ids: tagged });
        assert.equal(got.total, 100);
        assert.deepEqual(got.files.map((f) => f.id), want.files.map((f) => f.id));
        const explained = await plan(sql, listPageQuery(sql, { ...q, tagIds: ["t1"] }, 100).query!);
        assert.doesNotMatch(explained, /Seq Scan on file_tags/, explained);
        assert.match(explained, /file_tags_tag_file|file_tags_pkey/, explained);
      }
    }
  },
);
