/** Leases on PostgreSQL: one conditional upsert; claim records replaced by version. */
import type postgres from "postgres";
import type { Sql } from "postgres";
import type { LeaseStore, Versioned } from "../leases.ts";

/** {@link LeaseStore} on PostgreSQL. */
export class PostgresLeases implements LeaseStore {
  constructor(private readonly sql: Sql) {}

  async acquire(name: string, holder: string, now: Date, termMs: number): Promise<boolean> {
    const rows = await this.sql`
      INSERT INTO leases (name, holder, taken_at) VALUES (${name}, ${holder}, ${now})
      ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, taken_at = excluded.taken_at
        WHERE leases.taken_at <= ${new Date(now.getTime() - termMs)}
      RETURNING name`;
    return rows.length === 1;
  }

  async readClaim<T>(name: string): Promise<Versioned<T>> {
    const [row] = await this.sql<{ claim: T; version: string }[]>`
      SELECT claim, version FROM lease_claims WHERE name = ${name}`;
    return row
      ? { value: row.claim, version: String(row.version) }
      : { value: null, version: null };
  }

  async swapClaim<T>(name: string, version: string | null, claim: T): Promise<boolean> {
    const json = this.sql.json(claim as postgres.JSONValue);
    const rows = version === null
      ? await this.sql`
        INSERT INTO lease_claims (name, claim, version) VALUES (${name}, ${json}, 1)
        ON CONFLICT DO NOTHING RETURNING version`
      : await this.sql`
        UPDATE lease_claims SET claim = ${json}, version = version + 1
        WHERE name = ${name} AND version = ${version}::bigint RETURNING version`;
    return rows.length === 1;
  }
}
