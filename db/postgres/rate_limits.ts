/**
 * Rate-limit counters on PostgreSQL. Concurrent requests are combined into
 * one upsert per batch (see `db/coalesce.ts`): the row lock that
 * `ON CONFLICT DO UPDATE` takes keeps each window's count exact across
 * server processes, and the old count (`prev`) says which requests fit. The
 * record of who counts is the one row of `rate_limit_counting`, replaced only
 * while its `version` is the one read.
 */
import type postgres from "postgres";
import type { Sql } from "postgres";
import { Coalescer, groupBy } from "../coalesce.ts";
import {
  type CountingRecord,
  type RateLimitAsk,
  type RateLimitBackend,
  type RateLimitHit,
  shareWindow,
  type Versioned,
  type WindowCount,
  windowOf,
} from "../rate_limits.ts";

interface Row {
  key: string;
  window_start: string;
  prev: number;
}

/** {@link RateLimitBackend} on PostgreSQL. */
export class PostgresRateLimits implements RateLimitBackend {
  private readonly batches = new Coalescer<RateLimitAsk, RateLimitHit>(
    (asks) => this.count(asks),
  );

  constructor(private readonly sql: Sql) {}

  hit(key: string, windowStart: number, windowMs: number, max: number): Promise<RateLimitHit> {
    return this.batches.run({ key, windowStart, windowMs, max });
  }

  /**
   * Counts a batch with one statement. A window's requests share the
   * smallest `max` among them (they differ only while the settings change),
   * so the database alone decides how many fit: the old count plus the
   * requests, capped, and never lowered.
   */
  private async count(asks: RateLimitAsk[]): Promise<RateLimitHit[]> {
    const groups = [...groupBy(asks, windowOf).values()];
    const first = groups.map((g) => asks[g[0]]);
    const caps = groups.map((g) => Math.min(...g.map((i) => asks[i].max)));
    const before = groups.length === 1
      ? new Map([[windowOf(first[0]), await this.countOne(first[0], groups[0].length, caps[0])]])
      : await this.countMany(first, groups, caps);
    const hits: RateLimitHit[] = new Array(asks.length);
    groups.forEach((group, g) => {
      const shared = shareWindow(before.get(windowOf(first[g])) ?? 0, group.map(() => caps[g]));
      group.forEach((index, i) => hits[index] = shared.hits[i]);
    });
    return hits;
  }

  /** Adds `n` requests to one window (the usual batch): its count before them. */
  private async countOne(ask: RateLimitAsk, n: number, cap: number): Promise<number> {
    const [row] = await this.sql<{ prev: number }[]>`
      INSERT INTO rate_limits AS r (key, window_start, count, prev, ends_at)
      VALUES (
        ${ask.key}, ${ask.windowStart}::bigint, LEAST(${n}::int, ${cap}::int), 0,
        to_timestamp(${ask.windowStart + ask.windowMs}::bigint / 1000.0)
      )
      ON CONFLICT (key, window_start) DO UPDATE SET
        prev = r.count,
        count = GREATEST(r.count, LEAST(r.count + ${n}::int, ${cap}::int))
      RETURNING prev`;
    return row.prev;
  }

  /** Adds each window's requests with one statement: each window's count before them. */
  private async countMany(
    first: RateLimitAsk[],
    groups: number[][],
    caps: number[],
  ): Promise<Map<string, number>> {
    const rows = await this.sql<Row[]>`
      WITH input AS (
        SELECT * FROM unnest(
          ${first.map((a) => a.key)}::text[],
          ${first.map((a) => a.windowStart)}::bigint[],
          ${groups.map((g) => g.length)}::int[],
          ${caps}::int[],
          ${first.map((a) => a.windowStart + a.windowMs)}::bigint[]
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
    return new Map(rows.map((row) => [`${row.key}|${row.window_start}`, row.prev]));
  }

  async add(counts: WindowCount[]): Promise<void> {
    if (counts.length === 0) return;
    await this.sql`
      INSERT INTO rate_limits AS r (key, window_start, count, prev, ends_at)
      SELECT key, window_start, n, 0, to_timestamp(ends_ms / 1000.0)
      FROM unnest(
        ${counts.map((c) => c.key)}::text[],
        ${counts.map((c) => c.windowStart)}::bigint[],
        ${counts.map((c) => c.n)}::int[],
        ${counts.map((c) => c.windowStart + c.windowMs)}::bigint[]
      ) AS t(key, window_start, n, ends_ms)
      ORDER BY key, window_start
      ON CONFLICT (key, window_start) DO UPDATE SET count = r.count + EXCLUDED.count`;
  }

  async readCounting(): Promise<Versioned<CountingRecord>> {
    const [row] = await this.sql<{ record: CountingRecord; version: string }[]>`
      SELECT record, version FROM rate_limit_counting`;
    return row
      ? { value: row.record, version: String(row.version) }
      : { value: null, version: null };
  }

  async swapCounting(version: string | null, record: CountingRecord): Promise<boolean> {
    const json = this.sql.json(record as unknown as postgres.JSONValue);
    const rows = version === null
      ? await this.sql`
        INSERT INTO rate_limit_counting (record, version) VALUES (${json}, 1)
        ON CONFLICT DO NOTHING RETURNING version`
      : await this.sql`
        UPDATE rate_limit_counting SET record = ${json}, version = version + 1
        WHERE version = ${version}::bigint RETURNING version`;
    return rows.length === 1;
  }

  async sweep(now: number): Promise<number> {
    const result = await this.sql`DELETE FROM rate_limits WHERE ends_at < ${new Date(now)}`;
    return result.count;
  }
}
