/** Leases on PostgreSQL: one conditional upsert. */
import type { Sql } from "postgres";
import type { LeaseStore } from "../leases.ts";

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
}
