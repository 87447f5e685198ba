/** Rate-limit counters on PostgreSQL: one conditional upsert per request. */
import type { Sql } from "postgres";
import type { RateLimitHit, RateLimitStore } from "../rate_limits.ts";

/** {@link RateLimitStore} on PostgreSQL. */
export class PostgresRateLimits implements RateLimitStore {
  constructor(private readonly sql: Sql) {}

  async hit(
    key: string,
    windowStart: number,
    windowMs: number,
    max: number,
  ): Promise<RateLimitHit> {
    const ends = new Date(windowStart + windowMs);
    const [row] = await this.sql<{ count: number }[]>`
      INSERT INTO rate_limits (key, window_start, count, ends_at)
      VALUES (${key}, ${windowStart}, 1, ${ends})
      ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limits.count + 1
        WHERE rate_limits.count < ${max}
      RETURNING count`;
    return row ? { allowed: true, count: row.count } : { allowed: false, count: max };
  }

  async sweep(now: number): Promise<number> {
    const result = await this.sql`DELETE FROM rate_limits WHERE ends_at < ${new Date(now)}`;
    return result.count;
  }
}
