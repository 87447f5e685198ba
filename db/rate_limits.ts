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

/** One request waiting to be counted, as both backends batch them. */
export interface RateLimitAsk {
  key: string;
  windowStart: number;
  windowMs: number;
  max: number;
}

/** The batch key of a request: its counter and window. */
export function windowOf(ask: RateLimitAsk): string {
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
