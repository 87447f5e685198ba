/**
 * Rate-limit counters on Deno KV: a checked read-modify-write of up to
 * {@link WINDOWS_PER_COMMIT} windows per commit, tried again when another
 * process wrote one of them meanwhile. Each window's entry expires on its own
 * (`expireIn`) soon after the window ends. The count and versionstamp each
 * window had after this process's last commit are remembered, so a commit
 * usually needs no read first: the check fails only when another process
 * wrote the window since (or it expired), and then the windows are read.
 */
import { type RateLimitBackend, windowOf, type WindowTake } from "../rate_limits.ts";
import { tryCommit } from "./helpers.ts";

interface Window {
  count: number;
  /** When the window ends (ms). */
  ends: number;
}

/** A window as this process last wrote or read it. */
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

/** {@link RateLimitBackend} on Deno KV. */
export class KvRateLimits implements RateLimitBackend {
  /** Windows by {@link windowOf}. */
  private readonly known = new Map<string, Known>();

  constructor(private readonly kv: Deno.Kv) {}

  async take(windows: WindowTake[]): Promise<number[]> {
    if (this.known.size > MAX_KNOWN) this.known.clear();
    const before: number[] = [];
    for (let i = 0; i < windows.length; i += WINDOWS_PER_COMMIT) {
      before.push(...await this.takeSome(windows.slice(i, i + WINDOWS_PER_COMMIT)));
    }
    return before;
  }

  /** {@link take} for windows one commit can hold. */
  private async takeSome(windows: WindowTake[]): Promise<number[]> {
    const keys = windows.map((w) => ["ratelimit", w.key, w.windowStart]);
    const ids = windows.map(windowOf);
    let known = windows.map((w, i) =>
      this.known.get(ids[i]) ?? { count: 0, versionstamp: null, ends: w.windowStart + w.windowMs }
    );
    while (true) {
      const op = this.kv.atomic();
      const after = known.map(({ count, versionstamp, ends }, i) => {
        const { n, cap, windowMs } = windows[i];
        const next = Math.max(count, Math.min(count + n, cap));
        op.check({ key: keys[i], versionstamp });
        if (next !== count) {
          op.set(keys[i], { count: next, ends } satisfies Window, { expireIn: windowMs + 1000 });
        }
        return next;
      });
      const versionstamp = await tryCommit(op);
      if (versionstamp !== null) {
        known.forEach((k, i) => {
          if (after[i] !== k.count) this.known.set(ids[i], { ...k, count: after[i], versionstamp });
        });
        return known.map((k) => k.count);
      }
      known = await this.read(keys, ids, known);
    }
  }

  /** Reads the windows afresh, after a failed check. */
  private async read(keys: Deno.KvKey[], ids: string[], stale: Known[]): Promise<Known[]> {
    const reads = [];
    for (let i = 0; i < keys.length; i += READ_LIMIT) {
      reads.push(this.kv.getMany<Window[]>(keys.slice(i, i + READ_LIMIT)));
    }
    return (await Promise.all(reads)).flat().map((entry, i) => {
      const fresh = {
        count: entry.value?.count ?? 0,
        versionstamp: entry.versionstamp,
        ends: stale[i].ends,
      };
      this.known.set(ids[i], fresh);
      return fresh;
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
