/**
 * Rate-limit counters, shared by every server process through the store.
 * Each area of the store is its own interface in `db/`, reached as a
 * property of the store. Here the counting protocol is one module
 * (`rate_limit_owner.ts`, which the serving store puts in front) over a
 * {@link RateLimitBackend} per backend (`kv/rate_limits.ts`,
 * `postgres/rate_limits.ts`), which only counts.
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

/** Requests to add to one window, up to a cap. */
export interface WindowTake {
  key: string;
  windowStart: number;
  windowMs: number;
  /** Requests to add. */
  n: number;
  /** The count the window may reach: it is never raised past it, nor lowered. */
  cap: number;
}

/** The cap of counts written behind, which were already decided: none (PostgreSQL's `int`). */
export const NO_CAP = 2 ** 31 - 1;

/** What each store (`kv/`, `postgres/`) implements: the counting, nothing more. */
export interface RateLimitBackend {
  /**
   * Adds each window's `n` requests, so far as its count stays within its
   * `cap`: the count becomes `max(count, min(count + n, cap))`. Atomic per
   * window across processes. Answers each window's count before.
   */
  take(windows: WindowTake[]): Promise<number[]>;
  /** Removes the windows that ended before `now`; returns how many. */
  sweep(now: number): Promise<number>;
}

/** The key of a window: its counter and start. */
export function windowOf(w: { key: string; windowStart: number }): string {
  return `${w.key}|${w.windowStart}`;
}
