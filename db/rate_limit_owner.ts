/**
 * Rate-limit counting that pays no store write per request while one process
 * counts alone, and stays exact when several share the store.
 *
 * One record in the store (a {@link CountingRecord}) says who counts. A
 * process that finds nobody else counting claims the record and counts in
 * its memory: a window's first request goes to the store, which answers the
 * count other processes or an earlier run left; the rest are decided in
 * memory, and what they add is written behind once a second, when the claim
 * is renewed. A process that finds the claim held marks the record `wanted`
 * and waits: the owner, which looks every {@link POLL_MS}, stops counting in
 * memory, writes what it counted and releases the claim; from then on every
 * process counts in the store (`kv/rate_limits.ts`, `postgres/rate_limits.ts`),
 * each listed in the record as a member. So whenever more than one process
 * counts, the store's counts are exact. A process that counted nothing for
 * {@link IDLE_MS} writes its counts and leaves (as `close()` does); once the
 * others have left, the one still counting claims the record again.
 *
 * The protocol rests on time. An owner that stops renewing (a crash) loses
 * its claim {@link TERM_MS} after its last renewal, and with it the counts of
 * its last second. An owner counts in memory, and a member in the store, for
 * {@link HOLD_MS} after its last renewal only; others take the claim from an
 * owner after {@link TERM_MS}, and from members after {@link STALE_MS}. The
 * processes' clocks may differ by up to two seconds.
 */
import {
  type CountingPlace,
  type CountingRecord,
  type RateLimitBackend,
  type RateLimitHit,
  type SharedRateLimits,
  type WindowCount,
  windowOf,
} from "./rate_limits.ts";

/** How often a counting process looks at the record (ms): how long a newcomer may wait. */
export const POLL_MS = 100;
/** How often an owner writes its counts and renews its claim, and a member says it is there (ms). */
export const RENEW_MS = 1000;
/** How long a process counts after its last renewal without renewing again (ms). */
export const HOLD_MS = 3000;
/** How long others honour an owner's claim after its last renewal (ms). */
export const TERM_MS = 5000;
/** A member not heard from for this long has left (ms). */
export const STALE_MS = 10_000;
/** A process that counted nothing for this long leaves the counting (ms). */
export const IDLE_MS = 5000;
/** How long a process waiting for the owner to hand over sleeps between looks (ms). */
const WAIT_MS = 20;

/** One window counted in memory. */
interface Window extends Omit<WindowCount, "n"> {
  count: number;
  /** The part of `count` already in the store. */
  stored: number;
  /** Settles when the window's first request, counted in the store, is answered. */
  loading?: Promise<void>;
}

/** {@link SharedRateLimits} over a store's {@link RateLimitBackend}. */
export class OwnedRateLimits implements SharedRateLimits {
  readonly #backend: RateLimitBackend;
  readonly #me = crypto.randomUUID();
  #mode: "none" | "owner" | "member" = "none";
  /** Until when this process may count as its mode says, by its clock (ms). */
  #deadline = 0;
  /** When the claim or the membership was last written (ms). */
  #renewed = 0;
  #lastHit = 0;
  #windows = new Map<string, Window>();
  /** Windows whose memory count is ahead of the store. */
  #dirty = new Set<Window>();
  #timer: ReturnType<typeof setInterval> | undefined;
  /** A join, hand-over or leave under way: requests wait for it. */
  #changing: Promise<void> | undefined;
  #ticking: Promise<void> | undefined;
  #flushing: Promise<void> | undefined;
  #closed = false;

  constructor(backend: RateLimitBackend) {
    this.#backend = backend;
  }

  counting(): CountingPlace {
    if (this.#mode === "owner") return "memory";
    return this.#mode === "member" ? "store" : "none";
  }

  hit(key: string, windowStart: number, windowMs: number, max: number): Promise<RateLimitHit> {
    const now = Date.now();
    this.#lastHit = now;
    if (this.#closed) return this.#backend.hit(key, windowStart, windowMs, max);
    if (now < this.#deadline && this.#changing === undefined) {
      if (this.#mode === "owner") return this.#countInMemory(key, windowStart, windowMs, max);
      if (this.#mode === "member") return this.#backend.hit(key, windowStart, windowMs, max);
    }
    return (this.#changing ?? this.#change(() => this.#join()))
      .then(() => this.hit(key, windowStart, windowMs, max));
  }

  async sweep(now: number): Promise<number> {
    if (this.#windows.size > 0) {
      await this.#flush();
      for (const [id, w] of this.#windows) {
        const settled = w.loading === undefined && w.count === w.stored;
        if (settled && w.windowStart + w.windowMs < now) this.#windows.delete(id);
      }
    }
    return await this.#backend.sweep(now);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopTimer();
    await this.#ticking;
    await this.#changing?.catch(() => {});
    // Best effort: should the store be unreachable, others wait for the claim to run out.
    if (this.#mode !== "none") await this.#leave().catch(() => {});
  }

  /** Decides a request in memory; a window's first request is counted in the store. */
  #countInMemory(
    key: string,
    windowStart: number,
    windowMs: number,
    max: number,
  ): Promise<RateLimitHit> {
    const id = windowOf({ key, windowStart });
    const window = this.#windows.get(id);
    if (window === undefined) return this.#load(id, { key, windowStart, windowMs }, max);
    if (window.loading) return window.loading.then(() => this.hit(key, windowStart, windowMs, max));
    if (window.count >= max) return Promise.resolve({ allowed: false, count: window.count });
    window.count++;
    this.#dirty.add(window);
    return Promise.resolve({ allowed: true, count: window.count });
  }

  /** Counts a window's first request in the store and keeps the window's count from there. */
  async #load(
    id: string,
    spec: Omit<WindowCount, "n">,
    max: number,
  ): Promise<RateLimitHit> {
    const window: Window = { ...spec, count: 0, stored: 0 };
    const hit = this.#backend.hit(spec.key, spec.windowStart, spec.windowMs, max);
    window.loading = hit.then(() => {}, () => {});
    this.#windows.set(id, window);
    try {
      const answer = await hit;
      window.count = window.stored = answer.count;
      return answer;
    } catch (error) {
      if (this.#windows.get(id) === window) this.#windows.delete(id);
      throw error;
    } finally {
      window.loading = undefined;
    }
  }

  /** Writes what memory counted beyond the store, one write at a time. */
  #flush(): Promise<void> {
    const previous = this.#flushing;
    const run = (async () => {
      await previous?.catch(() => {});
      if (this.#dirty.size === 0) return;
      const windows = [...this.#dirty];
      this.#dirty.clear();
      const counts = windows.map((w) => ({
        key: w.key,
        windowStart: w.windowStart,
        windowMs: w.windowMs,
        n: w.count - w.stored,
      }));
      try {
        await this.#backend.add(counts);
      } catch (error) {
        for (const w of windows) this.#dirty.add(w);
        throw error;
      }
      windows.forEach((w, i) => w.stored += counts[i].n);
    })();
    this.#flushing = run;
    return run;
  }

  /** Stops counting (requests wait for the change under way), writes the memory's counts and forgets them. */
  async #stopCounting(): Promise<void> {
    this.#mode = "none";
    this.#deadline = 0;
    await this.#flush();
    this.#windows = new Map();
  }

  /** Runs a change of mode; requests wait for it. */
  #change(run: () => Promise<void>): Promise<void> {
    const changing = run().finally(() => {
      if (this.#changing === changing) this.#changing = undefined;
    });
    this.#changing = changing;
    return changing;
  }

  /** Starts counting: claims the record when nobody else counts, else joins the members. */
  async #join(): Promise<void> {
    await this.#stopCounting();
    while (true) {
      const { value, version } = await this.#backend.readCounting();
      const now = Date.now();
      if (this.#heldByOther(value, now)) {
        if (!value.wanted) await this.#backend.swapCounting(version, { ...value, wanted: true });
        await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
        continue;
      }
      const next = this.#next(value, now);
      if (await this.#backend.swapCounting(version, next)) return this.#adopt(next, now);
    }
  }

  /** Whether another process's claim on `value` still holds at `now`. */
  #heldByOther(value: CountingRecord | null, now: number): value is CountingRecord {
    return !!value?.owner && value.owner !== this.#me && value.until > now;
  }

  /** The record this process writes to count at `now`: the claim when nobody else counts. */
  #next(value: CountingRecord | null, now: number): CountingRecord {
    const others = Object.entries(value?.members ?? {})
      .filter(([id, seen]) => id !== this.#me && seen > now - STALE_MS);
    if (others.length === 0) {
      return { owner: this.#me, until: now + TERM_MS, wanted: false, members: {} };
    }
    return countingInStore(Object.fromEntries([...others, [this.#me, now]]));
  }

  /** Takes up the mode `record` (written at `now`) gives this process. */
  #adopt(record: CountingRecord, now: number): void {
    this.#mode = record.owner === this.#me ? "owner" : "member";
    this.#renewed = now;
    this.#deadline = now + HOLD_MS;
    if (this.#timer === undefined && !this.#closed) {
      const timer = setInterval(() => this.#tick(), POLL_MS);
      Deno.unrefTimer(timer);
      this.#timer = timer;
    }
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    if (this.#ticking || this.#changing) return;
    this.#ticking = this.#tickOnce()
      // A failed look is tried again on the next tick; requests wait once the hold runs out.
      .catch(() => {})
      .finally(() => this.#ticking = undefined);
  }

  /** Leaves when idle; as owner, hands over when wanted and renews; as member, says it is there. */
  async #tickOnce(): Promise<void> {
    const now = Date.now();
    if (now - this.#lastHit >= IDLE_MS) return await this.#change(() => this.#leave());
    if (this.#mode === "member" && now - this.#renewed < RENEW_MS) return;
    const { value, version } = await this.#backend.readCounting();
    if (this.#mode === "owner") {
      if (value?.owner !== this.#me) return await this.#change(() => this.#join());
      if (value.wanted) return await this.#change(() => this.#handOver());
      if (now - this.#renewed < RENEW_MS) return;
      await this.#flush();
      const renewed = { ...value, until: now + TERM_MS };
      if (await this.#backend.swapCounting(version, renewed)) this.#adopt(renewed, now);
      return;
    }
    if (this.#heldByOther(value, now)) return await this.#change(() => this.#join());
    const next = this.#next(value, now);
    if (await this.#backend.swapCounting(version, next)) this.#adopt(next, now);
  }

  /** Stops counting in memory, writes the counts and opens the record to every process. */
  async #handOver(): Promise<void> {
    await this.#stopCounting();
    while (true) {
      const { value, version } = await this.#backend.readCounting();
      if (value?.owner !== this.#me) return;
      const now = Date.now();
      const next = countingInStore({ [this.#me]: now });
      if (await this.#backend.swapCounting(version, next)) return this.#adopt(next, now);
    }
  }

  /** Writes the memory's counts and takes this process off the record. */
  async #leave(): Promise<void> {
    this.#stopTimer();
    await this.#stopCounting();
    while (true) {
      const { value, version } = await this.#backend.readCounting();
      if (value === null) return;
      const owner = value.owner === this.#me;
      if (!owner && !(this.#me in value.members)) return;
      const members = { ...value.members };
      delete members[this.#me];
      const next = owner ? countingInStore(members) : { ...value, members };
      if (await this.#backend.swapCounting(version, next)) return;
    }
  }
}

/** The record by which `members` count in the store, nobody in memory. */
function countingInStore(members: Record<string, number>): CountingRecord {
  return { owner: null, until: 0, wanted: false, members };
}
