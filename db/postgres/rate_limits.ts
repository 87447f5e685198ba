/**
 * Rate-limit counters on PostgreSQL: one upsert per batch of windows. The row
 * lock that `ON CONFLICT DO UPDATE` takes keeps each window's count exact
 * across server processes, and the old count (`prev`) says how many fit.
 */
import type { Sql } from "postgres";
import { type RateLimitBackend, windowOf, type WindowTake } from "../rate_limits.ts";

/** {@link RateLimitBackend} on PostgreSQL. */
export class PostgresRateLimits implements RateLimitBackend {
  constructor(private readonly sql: Sql) {}

  async take(windows: WindowTake[]): Promise<number[]> {
    if (windows.length === 1) return [await this.takeOne(windows[0])];
    const rows = await this.sql<{ key: string; window_start: string; prev: number }[]>`
      WITH input AS (
        SELECT * FROM unnest(
          ${windows.map((w) => w.key)}::text[],
          ${windows.map((w) => w.windowStart)}::bigint[],
          ${windows.map((w) => w.n)}::int[],
          ${windows.map((w) => w.cap)}::int[],
          ${windows.map((w) => w.windowStart + w.windowMs)}::bigint[]
        ) AS t(key, window_start, n, cap, ends_ms)
      )
      INSERT INTO rate_limits AS r (key, window_start, count, prev, ends_at)
      SELECT key, window_start, LEAST(n, cap), 0, to_timestamp(ends_ms / 1000.0)
      FROM input ORDER BY key, window_start
      ON CONFLICT (key, window_start) DO UPDATE SET
        prev = r.count,
        count = (
          SELECT GREATEST(r.count, LEAST(r.count + i.n, i.cap)) FROM input i
          WHERE i.key = EXCLUDED.key AND i.window_start = EXCLUDED.window_start
        )
      RETURNING key, window_start, prev`;
    const prev = new Map(
      rows.map((
        row,
      ) => [windowOf({ key: row.key, windowStart: Number(row.window_start) }), row.prev]),
    );
    return windows.map((w) => prev.get(windowOf(w)) ?? 0);
  }

  /** {@link take} for one window (the usual batch), with a plainer statement. */
  private async takeOne(w: WindowTake): Promise<number> {
    const [row] = await this.sql<{ prev: number }[]>`
      INSERT INTO rate_limits AS r (key, window_start, count, prev, ends_at)
      VALUES (
        ${w.key}, ${w.windowStart}::bigint, LEAST(${w.n}::int, ${w.cap}::int), 0,
        to_timestamp(${w.windowStart + w.windowMs}::bigint / 1000.0)
      )
      ON CONFLICT (key, window_start) DO UPDATE SET
        prev = r.count,
        count = GREATEST(r.count, LEAST(r.count + ${w.n}::int, ${w.cap}::int))
      RETURNING prev`;
    return row.prev;
  }

  async sweep(now: number): Promise<number> {
    const result = await this.sql`DELETE FROM rate_limits WHERE ends_at < ${new Date(now)}`;
    return result.count;
  }
}
