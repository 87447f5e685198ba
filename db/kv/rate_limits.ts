/**
 * Rate-limit counters on Deno KV: a checked read-modify-write, expiring with
 * the window. Concurrent requests are combined (see `db/coalesce.ts`), so a
 * busy instance commits once per batch of windows instead of once per request;
 * other processes still meet the versionstamp check and the batch retries.
 */
import { Coalescer, groupBy } from "../coalesce.ts";
import {
  type RateLimitAsk,
  type RateLimitHit,
  type RateLimitStore,
  shareWindow,
  windowOf,
} from "../rate_limits.ts";

interface Window {
  count: number;
  /** When the window ends (ms). */
  ends: number;
}

/** Keys one `getMany` reads (KV's read limit). */
const READ_LIMIT = 10;
/** Windows one commit checks and writes (KV's check limit). */
const WINDOWS_PER_COMMIT = 100;

/**
 * Commits `op`; `false` when a check failed or when another handle on the
 * same local KV file held SQLite's write lock (Deno KV reports that as an
 * error rather than waiting), both of which the caller retries.
 */
async function committed(op: Deno.AtomicOperation): Promise<boolean> {
  try {
    return (await op.commit()).ok;
  } catch (error) {
    if (error instanceof TypeError && error.message === "database is locked") {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      return false;
    }
    throw error;
  }
}

/** {@link RateLimitStore} on Deno KV. Windows also expire on their own (`expireIn`). */
export class KvRateLimits implements RateLimitStore {
  private readonly batches = new Coalescer<RateLimitAsk, RateLimitHit>((asks) => this.count(asks));

  constructor(private readonly kv: Deno.Kv) {}

  hit(key: string, windowStart: number, windowMs: number, max: number): Promise<RateLimitHit> {
    return this.batches.run({ key, windowStart, windowMs, max });
  }

  private async count(asks: RateLimitAsk[]): Promise<RateLimitHit[]> {
    const groups = [...groupBy(asks, windowOf).values()];
    const hits: RateLimitHit[] = new Array(asks.length);
    for (let i = 0; i < groups.length; i += WINDOWS_PER_COMMIT) {
      await this.countWindows(asks, groups.slice(i, i + WINDOWS_PER_COMMIT), hits);
    }
    return hits;
  }

  /** Counts up to {@link WINDOWS_PER_COMMIT} windows' requests in one checked commit. */
  private async countWindows(
    asks: RateLimitAsk[],
    groups: number[][],
    hits: RateLimitHit[],
  ): Promise<void> {
    const keys = groups.map((g) => ["ratelimit", asks[g[0]].key, asks[g[0]].windowStart]);
    while (true) {
      const reads = [];
      for (let i = 0; i < keys.length; i += READ_LIMIT) {
        reads.push(this.kv.getMany<Window[]>(keys.slice(i, i + READ_LIMIT)));
      }
      const entries = (await Promise.all(reads)).flat();
      const op = this.kv.atomic();
      const shares = groups.map((group, g) => {
        const ask = asks[group[0]];
        const ends = ask.windowStart + ask.windowMs;
        const share = shareWindow(entries[g].value?.count ?? 0, group.map((i) => asks[i].max));
        op.check(entries[g]);
        if (share.count !== entries[g].value?.count) {
          const expireIn = Math.max(1, ends - Date.now()) + 1000;
          op.set(keys[g], { count: share.count, ends } satisfies Window, { expireIn });
        }
        return share;
      });
      if (!(await committed(op))) continue;
      groups.forEach((group, g) => group.forEach((index, i) => hits[index] = shares[g].hits[i]));
      return;
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
