/**
 * Rate-limit counters on Deno KV: a checked read-modify-write, expiring with
 * the window. Concurrent requests are combined (see `db/coalesce.ts`), so a
 * busy instance commits once per batch of windows instead of once per request.
 * The count and versionstamp each window had after this process's last
 * commit are remembered, so a batch is usually one checked commit with no
 * read: when another process wrote a window meanwhile (or it expired), the
 * check fails, the batch's windows are read afresh, and it retries. The record
 * of who counts is one more key, replaced with a checked commit.
 */
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

/** The record of who counts (see `db/rate_limit_owner.ts`). */
const COUNTING_KEY = ["ratelimit-counting"];

/** {@link RateLimitBackend} on Deno KV. Windows also expire on their own (`expireIn`). */
export class KvRateLimits implements RateLimitBackend {
  private readonly batches = new Coalescer<RateLimitAsk, RateLimitHit>(
    (asks) => this.count(asks),
  );
  /** Windows by {@link windowOf}, as this process's last commit or read left them. */
  private readonly known = new Map<string, Known>();

  constructor(private readonly kv: Deno.Kv) {}

  hit(key: string, windowStart: number, windowMs: number, max: number): Promise<RateLimitHit> {
    return this.batches.run({ key, windowStart, windowMs, max });
  }

  async add(counts: WindowCount[]): Promise<void> {
    for (let i = 0; i < counts.length; i += WINDOWS_PER_COMMIT) {
      const some = counts.slice(i, i + WINDOWS_PER_COMMIT);
      await this.update(some, (before, g) => before + some[g].n);
    }
  }

  async readCounting(): Promise<Versioned<CountingRecord>> {
    const entry = await this.kv.get<CountingRecord>(COUNTING_KEY);
    return { value: entry.value, version: entry.versionstamp };
  }

  async swapCounting(version: string | null, record: CountingRecord): Promise<boolean> {
    const op = this.kv.atomic().check({ key: COUNTING_KEY, versionstamp: version });
    return await commit(op.set(COUNTING_KEY, record)) !== null;
  }

  private async count(asks: RateLimitAsk[]): Promise<RateLimitHit[]> {
    if (this.known.size > MAX_KNOWN) this.known.clear();
    const groups = [...groupBy(asks, windowOf).values()];
    const hits: RateLimitHit[] = new Array(asks.length);
    for (let i = 0; i < groups.length; i += WINDOWS_PER_COMMIT) {
      const some = groups.slice(i, i + WINDOWS_PER_COMMIT);
      await this.update(some.map((group) => asks[group[0]]), (before, g) => {
        const share = shareWindow(before, some[g].map((index) => asks[index].max));
        some[g].forEach((index, k) => hits[index] = share.hits[k]);
        return share.count;
      });
    }
    return hits;
  }

  /**
   * Sets up to {@link WINDOWS_PER_COMMIT} windows' counts to `next(count
   * before, index)` in one checked commit, reading the windows afresh and
   * trying again when another process wrote one of them meanwhile.
   */
  private async update(
    windows: Omit<WindowCount, "n">[],
    next: (before: number, index: number) => number,
  ): Promise<void> {
    const keys = windows.map((w) => ["ratelimit", w.key, w.windowStart]);
    const ids = windows.map(windowOf);
    while (true) {
      const before = ids.map((id, g) =>
        this.known.get(id) ??
          { count: 0, versionstamp: null, ends: windows[g].windowStart + windows[g].windowMs }
      );
      const op = this.kv.atomic();
      const after = before.map((known, g) => {
        const count = next(known.count, g);
        op.check({ key: keys[g], versionstamp: known.versionstamp });
        if (count !== known.count) {
          const expireIn = Math.max(1, known.ends - Date.now()) + 1000;
          op.set(keys[g], { count, ends: known.ends } satisfies Window, { expireIn });
        }
        return count;
      });
      const versionstamp = await commit(op);
      if (versionstamp === null) {
        await this.read(keys, ids, before);
        continue;
      }
      after.forEach((count, g) => {
        if (count !== before[g].count) {
          this.known.set(ids[g], { ...before[g], count, versionstamp });
        }
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
