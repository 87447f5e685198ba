/**
 * Rate-limit counters on Deno KV: a checked read-modify-write, expiring with
 * the window. Concurrent requests are combined (see `db/coalesce.ts`), so a
 * busy instance commits once per batch of windows instead of once per request.
 * The count and versionstamp each window had after this process's last
 * commit are remembered, so a batch is usually one checked commit with no
 * read: when another process wrote a window meanwhile (or it expired), the
 * check fails, the batch's windows are read afresh, and it retries.
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

/** A window as this process last saw it. */
interface Known {
  count: number;
  versionstamp: string | null;
  ends: number;
}

/** Keys one `getMany` reads (KV's read limit). */
const READ_LIMIT = 10;
/** Windows one commit checks and writes (KV's check limit). */
const WINDOWS_PER_COMMIT = 100;
/** Past this many remembered windows, the memory starts afresh (it is only a hint). */
const MAX_KNOWN = 100_000;

/**
 * Commits `op`; its versionstamp, or `null` when a check failed or when
 * another handle on the same local KV file held SQLite's write lock (Deno KV
 * reports that as an error rather than waiting), both of which the caller
 * retries after reading.
 */
async function commit(op: Deno.AtomicOperation): Promise<string | null> {
  try {
    const result = await op.commit();
    return result.ok ? result.versionstamp : null;
  } catch (error) {
    if (error instanceof TypeError && error.message === "database is locked") {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      return null;
    }
    throw error;
  }
}

/** {@link RateLimitStore} on Deno KV. Windows also expire on their own (`expireIn`). */
export class KvRateLimits implements RateLimitStore {
  private readonly batches = new Coalescer<RateLimitAsk, RateLimitHit>(
    (asks) => this.count(asks),
  );
  /** Windows by {@link windowOf}, as this process's last commit or read left them. */
  private readonly known = new Map<string, Known>();

  constructor(private readonly kv: Deno.Kv) {}

  hit(key: string, windowStart: number, windowMs: number, max: number): Promise<RateLimitHit> {
    return this.batches.run({ key, windowStart, windowMs, max });
  }

  private async count(asks: RateLimitAsk[]): Promise<RateLimitHit[]> {
    if (this.known.size > MAX_KNOWN) this.known.clear();
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
    const firsts = groups.map((g) => asks[g[0]]);
    const keys = firsts.map((a) => ["ratelimit", a.key, a.windowStart]);
    const ids = firsts.map(windowOf);
    while (true) {
      const before = ids.map((id, g) =>
        this.known.get(id) ??
          { count: 0, versionstamp: null, ends: firsts[g].windowStart + firsts[g].windowMs }
      );
      const op = this.kv.atomic();
      const shares = groups.map((group, g) => {
        const share = shareWindow(before[g].count, group.map((i) => asks[i].max));
        op.check({ key: keys[g], versionstamp: before[g].versionstamp });
        if (share.count !== before[g].count) {
          const { ends } = before[g];
          const expireIn = Math.max(1, ends - Date.now()) + 1000;
          op.set(keys[g], { count: share.count, ends } satisfies Window, { expireIn });
        }
        return share;
      });
      const versionstamp = await commit(op);
      if (versionstamp === null) {
        await this.read(keys, ids, before);
        continue;
      }
      groups.forEach((group, g) => {
        if (shares[g].count !== before[g].count) {
          this.known.set(ids[g], { ...before[g], count: shares[g].count, versionstamp });
        }
        group.forEach((index, i) => hits[index] = shares[g].hits[i]);
      });
      return;
    }
  }

  /** Reads the windows afresh into the memory (after a failed check). */
  private async read(keys: Deno.KvKey[], ids: string[], before: Known[]): Promise<void> {
    const reads = [];
    for (let i = 0; i < keys.length; i += READ_LIMIT) {
      reads.push(this.kv.getMany<Window[]>(keys.slice(i, i + READ_LIMIT)));
    }
    (await Promise.all(reads)).flat().forEach((entry, g) => {
      this.known.set(ids[g], {
        count: entry.value?.count ?? 0,
        versionstamp: entry.versionstamp,
        ends: before[g].ends,
      });
    });
  }

  async sweep(now: number): Promise<number> {
    for (const [id, window] of this.known) if (window.ends < now) this.known.delete(id);
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
