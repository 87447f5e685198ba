/**
 * Applies pending migrations, each in its own transaction. Every transaction
 * first takes an advisory lock and re-reads what is applied, so two processes
 * starting at once never apply the same migration twice.
 */
import type { Sql } from "postgres";
import { type Migration, MIGRATIONS } from "./migrations/mod.ts";

const LOCK_ID = 0x66657272; // "ferr"

/** Applies every migration newer than the database; returns the versions applied. */
export async function migrate(sql: Sql, migrations: Migration[] = MIGRATIONS): Promise<number[]> {
  const applied: number[] = [];
  for (const migration of migrations) {
    const ran = await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${LOCK_ID})`;
      await tx`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`;
      const [done] = await tx`SELECT 1 FROM schema_migrations WHERE version = ${migration.version}`;
      if (done) return false;
      await tx.unsafe(migration.sql);
      await tx`INSERT INTO schema_migrations (version, name)
        VALUES (${migration.version}, ${migration.name})`;
      return true;
    });
    if (ran) applied.push(migration.version);
  }
  return applied;
}

/** The newest migration version applied, 0 for an empty database. */
export async function currentVersion(sql: Sql): Promise<number> {
  const [row] = await sql<{ version: number | null }[]>`
    SELECT max(version) AS version FROM schema_migrations`;
  return row?.version ?? 0;
}
