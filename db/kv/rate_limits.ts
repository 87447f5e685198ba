/** Rate-limit counters on Deno KV: a checked read-modify-write, expiring with the window. */
import type { RateLimitHit, RateLimitStore } from "../rate_limits.ts";

interface Window {
  count: number;
  /** When the window ends (ms). */
  ends: number;
}

/**
 * {@link RateLimitStore} on Deno KV. Windows also expire on their own
 * (`expireIn`). Hits on one key are queued within the process, so its own
 * requests never race each other's checked writes (which made a busy key
 * retry many times); other processes still meet the versionstamp check.
 */
export class KvRateLimits implements RateLimitStore {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly kv: Deno.Kv) {}

  hit(key: string, windowStart: number, windowMs: number, max: number): Promise<RateLimitHit> {
    const before = this.queues.get(key) ?? Promise.resolve();
    const mine = before.then(() => this.count(key, windowStart, windowMs, max));
    const settled = mine.catch(() => {});
    this.queues.set(key, settled);
    settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return mine;
  }

  private async count(
    key: string,
    windowStart: number,
    windowMs: number,
    max: number,
  ): Promise<RateLimitHit> {
    const entryKey = ["ratelimit", key, windowStart];
    const ends = windowStart + windowMs;
    const expireIn = Math.max(1, ends - Date.now()) + 1000;
    while (true) {
      const current = await this.kv.get<Window>(entryKey);
      const count = current.value?.count ?? 0;
      if (count >= max) return { allowed: false, count };
      const next: Window = { count: count + 1, ends };
      const result = await this.kv.atomic().check(current).set(entryKey, next, { expireIn })
        .commit();
      if (result.ok) return { allowed: true, count: count + 1 };
    }
  }

  async sweep(now: number): Promise<number> {
    let removed = 0;
    for await (const entry of this.kv.list<Window>({ prefix: ["ratelimit"] })) {
      if (entry.value.ends < now) {
        await this.kv.atomic().check(entry).delete(entry.key).commit();
        removed++;
      }
    }
    return removed;
  }
}
