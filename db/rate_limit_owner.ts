/**
 * Rate-limit counting that pays no store write per request while one process
 * counts alone, and stays exact when several share the store.
 *
 * One claim record in the store's leases (a {@link CountingClaim}) says who
 * counts. A process that finds nobody else counting claims it and counts in
 * its memory: a window's first request goes to the store, which answers the
 * count other processes or an earlier run left; the rest are decided in
 * memory, and what they add is written behind once a second, when the claim
 * is renewed. A process that finds the claim held marks it `wanted` and
 * waits: the owner, which looks every {@link POLL_MS}, stops counting in
 * memory, writes what it counted and releases the claim; from then on every
 * process counts in the store, each listed in the claim as a member. So
 * whenever more than one process counts, the store's counts are exact. A
 * process that counted nothing for {@link IDLE_MS} writes its counts and
 * leaves (as `close()` does); once the others have left, the one still
 * counting claims the record again.
 *
 * The protocol rests on time. An owner that stops renewing (a crash) loses
 * its claim {@link TERM_MS} after its last renewal, and with it the counts of
 * its last second. An owner counts in memory, and a member in the store, for
 * {@link HOLD_MS} after its last renewal only; others take the claim from an
 * owner after {@link TERM_MS}, and from members after {@link STALE_MS}. The
 * processes' clocks may differ by up to two seconds.
 *
 * Requests counted in the store go through one write-combining batcher
 * (`coalesce.ts`); the store's {@link RateLimitBackend} only adds to windows.
 */
import { systemTimer, type Timer } from "../core/clock.ts";
import { Coalescer, groupBy } from "./coalesce.ts";
import type { LeaseStore } from "./leases.ts";
import {
  type CountingPlace,
  NO_CAP,
  type RateLimitBackend,
  type RateLimitHit,
  type SharedRateLimits,
  windowOf,
  type WindowTake,
} from "./rate_limits.ts";

/** How often a counting process looks at the claim (ms): how long a newcomer may wait. */
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
/** The name of the claim record in the {@link LeaseStore}. */
export const CLAIM = "ratelimit-counting";

/**
 * Who counts: a single process in its memory (`owner`, its claim good until
 * `until`, ms), or, when `owner` is `null`, every process in the store, each
 * listed in `members` with when it last said so (ms). `wanted` asks the owner
 * to hand over.
 */
export interface CountingClaim {
  owner: string | null;
  until: number;
  wanted: boolean;
  members: Record<string, number>;
}

/** One request to count. */
interface Ask {
  key: string;
  windowStart: number;
  windowMs: number;
  max: number;
}

/** One window counted in memory. */
interface Window {
  key: string;
  windowStart: number;
  windowMs: number;
  count: number;
  /** The part of `count` already in the store. */
  stored: number;
  /** Whether a request counted in the store has told `count` yet. */
  known: boolean;
  /** Requests of this window being counted in the store: memory decides none until they are. */
  inflight: number;
}

/** {@link SharedRateLimits} over a store's {@link RateLimitBackend} and {@link LeaseStore}. */
export class OwnedRateLimits implements SharedRateLimits {
  readonly #me = crypto.randomUUID();
  readonly #batches = new Coalescer<Ask, RateLimitHit>((asks) => this.#countInStore(asks));
  #mode: "none" | "owner" | "member" = "none";
  /** Until when this process may count as its mode says, by its clock (ms). */
  #deadline = 0;
  /** When the claim or the membership was last written (ms). */
  #renewed = 0;
  #lastHit = 0;
  #windows = new Map<string, Window>();
  #stopTicks: (() => void) | undefined;
  /** A join, hand-over or leave under way: requests wait for it. */
  #changing: Promise<void> | undefined;
  #ticking: Promise<void> | undefined;
  #flushing: Promise<void> | undefined;
  #closed = false;

  constructor(
    private readonly backend: RateLimitBackend,
    private readonly leases: LeaseStore,
    private readonly timer: Timer = systemTimer,
  ) {}

  counting(): CountingPlace {
    if (this.#mode === "owner") return "memory";
    return this.#mode === "member" ? "store" : "none";
  }

  hit(key: string, windowStart: number, windowMs: number, max: number): Promise<RateLimitHit> {
    const ask = { key, windowStart, windowMs, max };
    const now = this.timer.now();
    this.#lastHit = now;
    if (this.#closed) return this.#batches.run(ask);
    if (now < this.#deadline && this.#changing === undefined) {
      return this.#mode === "owner" ? this.#countInMemory(ask) : this.#batches.run(ask);
    }
    return (this.#changing ?? this.#change(() => this.#join()))
      .then(() => this.hit(key, windowStart, windowMs, max));
  }

  async sweep(now: number): Promise<number> {
    await this.#flush();
    for (const [id, w] of this.#windows) {
      const settled = w.inflight === 0 && w.count === w.stored;
      if (settled && w.windowStart + w.windowMs < now) this.#windows.delete(id);
    }
    return await this.backend.sweep(now);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopTicks?.();
    await this.#ticking;
    await this.#changing?.catch(() => {});
    // Best effort: should the store be unreachable, others wait for the claim to run out.
    if (this.#mode !== "none") await this.#leave().catch(() => {});
  }

  /**
   * Counts a batch in the store. A window's requests share the smallest `max`
   * among them (they differ only while the settings change); in arrival
   * order, each is allowed while the window is under it.
   */
  async #countInStore(asks: Ask[]): Promise<RateLimitHit[]> {
    const groups = [...groupBy(asks, windowOf).values()];
    const takes = groups.map((group): WindowTake => {
      const { key, windowStart, windowMs } = asks[group[0]];
      const cap = Math.min(...group.map((i) => asks[i].max));
      return { key, windowStart, windowMs, n: group.length, cap };
    });
    const before = await this.backend.take(takes);
    const hits: RateLimitHit[] = new Array(asks.length);
    groups.forEach((group, g) => {
      const { cap } = takes[g];
      group.forEach((index, k) => {
        const count = before[g] + k;
        hits[index] = count < cap
          ? { allowed: true, count: count + 1 }
          : { allowed: false, count: Math.max(before[g], cap) };
      });
    });
    return hits;
  }

  /** Decides a request in memory once its window's count is known; until then, in the store. */
  #countInMemory(ask: Ask): Promise<RateLimitHit> {
    const id = windowOf(ask);
    let window = this.#windows.get(id);
    if (window?.known && window.inflight === 0) {
      if (window.count >= ask.max) return Promise.resolve({ allowed: false, count: window.count });
      window.count++;
      return Promise.resolve({ allowed: true, count: window.count });
    }
    if (window === undefined) {
      const { key, windowStart, windowMs } = ask;
      window = { key, windowStart, windowMs, count: 0, stored: 0, known: false, inflight: 0 };
      this.#windows.set(id, window);
    }
    return this.#load(window, ask);
  }

  /** Counts `ask` in the store and keeps its window's count from the answer. */
  async #load(window: Window, ask: Ask): Promise<RateLimitHit> {
    window.inflight++;
    try {
      const hit = await this.#batches.run(ask);
      window.count = window.stored = Math.max(window.stored, hit.count);
      window.known = true;
      return hit;
    } finally {
      window.inflight--;
    }
  }

  /** Writes what memory counted beyond the store, one write at a time. */
  #flush(): Promise<void> {
    const previous = this.#flushing;
    const run = (async () => {
      await previous?.catch(() => {});
      const windows = [...this.#windows.values()].filter((w) => w.count > w.stored);
      if (windows.length === 0) return;
      const takes = windows.map(({ key, windowStart, windowMs, count, stored }) => ({
        key,
        windowStart,
        windowMs,
        n: count - stored,
        cap: NO_CAP,
      }));
      await this.backend.take(takes);
      windows.forEach((w, i) => w.stored += takes[i].n);
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

  /** Starts a join from a tick, which does not wait for it: it may wait for another process. */
  #beginJoin(): void {
    // A join that fails is tried again by the next request.
    this.#change(() => this.#join()).catch(() => {});
  }

  /** Starts counting: claims the record when nobody else counts, else joins the members. */
  async #join(): Promise<void> {
    await this.#stopCounting();
    while (true) {
      const { value, version } = await this.leases.readClaim<CountingClaim>(CLAIM);
      const now = this.timer.now();
      if (this.#heldByOther(value, now)) {
        if (!value.wanted) await this.leases.swapClaim(CLAIM, version, { ...value, wanted: true });
        await this.timer.sleep(WAIT_MS);
        continue;
      }
      const next = this.#next(value, now);
      if (await this.leases.swapClaim(CLAIM, version, next)) return this.#adopt(next, now);
    }
  }

  /** Whether another process's claim on `value` still holds at `now`. */
  #heldByOther(value: CountingClaim | null, now: number): value is CountingClaim {
    return !!value?.owner && value.owner !== this.#me && value.until > now;
  }

  /** The claim this process writes to count at `now`: its own when nobody else counts. */
  #next(value: CountingClaim | null, now: number): CountingClaim {
    const others = Object.entries(value?.members ?? {})
      .filter(([id, seen]) => id !== this.#me && seen > now - STALE_MS);
    if (others.length === 0) {
      return { owner: this.#me, until: now + TERM_MS, wanted: false, members: {} };
    }
    return countingInStore(Object.fromEntries([...others, [this.#me, now]]));
  }

  /** Takes up the mode `claim` (written at `now`) gives this process. */
  #adopt(claim: CountingClaim, now: number): void {
    this.#mode = claim.owner === this.#me ? "owner" : "member";
    this.#renewed = now;
    this.#deadline = now + HOLD_MS;
    if (this.#stopTicks === undefined && !this.#closed) {
      this.#stopTicks = this.timer.every(POLL_MS, () => this.#tick());
    }
  }

  /** Starts a look at the claim unless one or a change is under way; resolves when it is done. */
  #tick(): Promise<void> {
    if (this.#ticking || this.#changing) return Promise.resolve();
    const ticking = this.#tickOnce()
      // A failed look is tried again on the next tick; requests wait once the hold runs out.
      .catch(() => {})
      .finally(() => this.#ticking = undefined);
    this.#ticking = ticking;
    return ticking;
  }

  /** Leaves when idle; as owner, hands over when wanted and renews; as member, says it is there. */
  async #tickOnce(): Promise<void> {
    const now = this.timer.now();
    if (now - this.#lastHit >= IDLE_MS) return await this.#change(() => this.#leave());
    if (this.#mode === "member" && now - this.#renewed < RENEW_MS) return;
    const { value, version } = await this.leases.readClaim<CountingClaim>(CLAIM);
    if (this.#mode === "owner") {
      if (value?.owner !== this.#me) return this.#beginJoin();
      if (value.wanted) return await this.#change(() => this.#handOver());
      if (now - this.#renewed < RENEW_MS) return;
      await this.#flush();
      const renewed = { ...value, until: now + TERM_MS };
      if (await this.leases.swapClaim(CLAIM, version, renewed)) this.#adopt(renewed, now);
      return;
    }
    if (this.#heldByOther(value, now)) return this.#beginJoin();
    const next = this.#next(value, now);
    if (await this.leases.swapClaim(CLAIM, version, next)) this.#adopt(next, now);
  }

  /** Stops counting in memory, writes the counts and opens the claim to every process. */
  async #handOver(): Promise<void> {
    await this.#stopCounting();
    while (true) {
      const { value, version } = await this.leases.readClaim<CountingClaim>(CLAIM);
      if (value?.owner !== this.#me) return;
      const now = this.timer.now();
      const next = countingInStore({ [this.#me]: now });
      if (await this.leases.swapClaim(CLAIM, version, next)) return this.#adopt(next, now);
    }
  }

  /** Writes the memory's counts and takes this process off the claim. */
  async #leave(): Promise<void> {
    this.#stopTicks?.();
    this.#stopTicks = undefined;
    await this.#stopCounting();
    while (true) {
      const { value, version } = await this.leases.readClaim<CountingClaim>(CLAIM);
      if (value === null) return;
      const owner = value.owner === this.#me;
      if (!owner && !(this.#me in value.members)) return;
      const members = { ...value.members };
      delete members[this.#me];
      const next = owner ? countingInStore(members) : { ...value, members };
      if (await this.leases.swapClaim(CLAIM, version, next)) return;
    }
  }
}

/** The claim by which `members` count in the store, nobody in memory. */
function countingInStore(members: Record<string, number>): CountingClaim {
  return { owner: null, until: 0, wanted: false, members };
}
