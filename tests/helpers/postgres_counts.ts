/**
 * What the tests of PostgreSQL's list counters share (issue #32: the time
 * blocks, name blocks, folder counts and tag counts): a database stopped just before the
 * migration that adds a counter, and the files list's pages checked against
 * the same query over every file in memory.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { type FileQuery, type FileRecord, type FileStore, queryFiles } from "../../db/files.ts";
import { migrate } from "../../db/postgres/migrate.ts";
import { MIGRATIONS } from "../../db/postgres/migrations/mod.ts";
import { PostgresStore } from "../../db/postgres/mod.ts";
import { freshDatabase } from "./stores.ts";

/**
 * Runs `fn` on a fresh database migrated up to just before `version`, with a
 * store on it and `migrateIt` to apply that migration alone (asserting it
 * ran); drops the database afterwards.
 */
export async function beforeMigration(
  version: number,
  fn: (sql: postgres.Sql, store: PostgresStore, migrateIt: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const db = await freshDatabase();
  const sql = postgres(db.url, { max: 4, onnotice: () => {} });
  try {
    await migrate(sql, MIGRATIONS.filter((m) => m.version < version));
    const migrateIt = async () => {
      assert.deepEqual(await migrate(sql, MIGRATIONS.filter((m) => m.version <= version)), [
        version,
      ]);
    };
    await fn(sql, new PostgresStore(sql), migrateIt);
  } finally {
    await sql.end();
    await db.drop();
  }
}

/** Asserts that each query's page from `files` is the same query over `all` in memory (total and ids). */
export async function assertPagesAsInMemory(
  files: FileStore,
  all: FileRecord[],
  queries: FileQuery[],
): Promise<void> {
  for (const q of queries) {
    const got = await files.list(q);
    const want = queryFiles(all, q);
    const what = JSON.stringify(q);
    assert.equal(got.total, want.total, what);
    assert.deepEqual(got.files.map((f) => f.id), want.files.map((f) => f.id), what);
  }
}
