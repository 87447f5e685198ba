/**
 * Rate-limit counters, shared by every server process through the store.
 * Each area of the store beyond users, sessions and settings is its own
 * interface in `db/`, reached as a property of the {@link Store}, with one
 * module per backend (`kv/rate_limits.ts`, `postgres/rate_limits.ts`).
 */

/** The answer to one counted request. */
export interface RateLimitHit {
  /** `false` once the window already holds `max` requests: this one was not counted. */
  allowed: boolean;
  /** Requests counted in the window, this one included when allowed. */
  count: number;
}

/** Fixed-window counters. */
export interface RateLimitStore {
  /**
   * Counts one request for `key` in the window starting at `windowStart` (ms)
   * and lasting `windowMs`, unless the window already holds `max`. Atomic:
   * of concurrent requests racing for the last slot, exactly one is allowed.
   */
  hit(key: string, windowStart: number, windowMs: number, max: number): Promise<RateLimitHit>;
  /** Removes the windows that ended before `now`; returns how many. */
  sweep(now: number): Promise<number>;
}

/**
 * Where this process counts: `memory` while it is the only process counting
 * (see `db/rate_limit_owner.ts`), `store` while it shares the counts with
 * others, `none` before its first request or after a quiet spell.
 */
export type CountingPlace = "memory" | "store" | "none";

/** The store's {@link RateLimitStore}: counters plus where they are counted and a clean exit. */
export interface SharedRateLimits extends RateLimitStore {
  /** Where this process counts now (diagnostics and tests). */
  counting(): CountingPlace;
  /** Writes what this process counted in memory and leaves the counting, so others need not wait. */
  close(): Promise<void>;
}

/** Requests to add to one window, uncapped: what a counting owner hands to the store. */
export interface WindowCount {
  key: string;
  windowStart: number;
  windowMs: number;
  n: number;
}

/**
 * The one record that says who counts: a single process that counts in its
 * memory (`owner`, its claim good until `until`, ms), or, when `owner` is
 * `null`, every process in the store, each listed in `members` with when it
 * last said so (ms). `wanted` asks the owner to hand over.
 */
export interface CountingRecord {
  owner: string | null;
  until: number;
  wanted: boolean;
  members: Record<string, number>;
}

/** A record with the version a conditional write must match (`null`: none yet). */
export interface Versioned<T> {
  value: T | null;
  version: string | null;
}

/** What each backend (`kv/`, `postgres/`) implements for {@link SharedRateLimits}. */
export interface RateLimitBackend extends RateLimitStore {
  /** Adds each window's `n` requests (no cap): an owner's counts, written behind. */
  add(counts: WindowCount[]): Promise<void>;
  /** Reads the {@link CountingRecord}. */
  readCounting(): Promise<Versioned<CountingRecord>>;
  /** Replaces the record if its version is still `version`; whether it did. */
  swapCounting(version: string | null, record: CountingRecord): Promise<boolean>;
}

/** One request waiting to be counted, as both backends batch them. */
export interface RateLimitAsk {
  key: string;
  windowStart: number;
  windowMs: number;
  max: number;
}

/** The batch key of a request: its counter and window. */
export function windowOf(ask: Pick<RateLimitAsk, "key" | "windowStart">): string {
  return `${ask.key}|${ask.windowStart}`;
}

/**
 * Shares out one window among requests, in arrival order: each is counted
 * while the count is under its own `max`. `before` is the window's count
 * before them; answers one hit per request and the count after them.
 */
export function shareWindow(
  before: number,
  maxes: number[],
): { hits: RateLimitHit[]; count: number } {
  let count = before;
  const hits = maxes.map((max) => {
    if (count >= max) return { allowed: false, count };
    count++;
    return { allowed: true, count };
  });
  return { hits, count };
}
