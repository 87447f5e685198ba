/**
 * The one time-to-live idiom: answers of a load by key, each used until its
 * time is up, then loaded again. The time comes in as a parameter (`now`, in
 * milliseconds, from the caller's clock), so a test moves a manual clock
 * instead of sleeping. Every memo with an expiry is one of these: the serving
 * store's names, users and lists (`serving.ts`), and, held per `Services`,
 * the health probe, the version check, OAuth discovery and decrypted tokens.
 *
 * A load in flight is shared by every caller of its key, whatever the time;
 * a failed load is not kept. With `staleWhileRefresh`, an answer past its
 * time is still given while one new load replaces it (a list that takes a
 * while to read). With `refreshAheadMs`, an answer asked for in the last
 * moments of its time starts one new load that replaces it when it arrives,
 * so that a busy key is never missing while its next load runs, and no
 * answer is used past its time (a busy redirect's name). Each cache is bounded in entries and in bytes (an
 * estimate, {@link approxBytes}), the oldest answers going first.
 */

/** How a {@link FreshCache} keeps its answers. */
export interface FreshOptions<V> {
  /** How long an answer is used (ms) from when its load began; a function of it when it depends on it. */
  ttlMs: number | ((value: V) => number);
  /** Answers kept at most. */
  maxEntries: number;
  /** Bytes kept at most, as `sizeOf` estimates them; an answer larger than this is not kept. */
  maxBytes: number;
  /** An answer's size in bytes; {@link approxBytes} unless given. */
  sizeOf?: (value: V) => number;
  /** Past its time, an answer is still given while one new load replaces it. */
  staleWhileRefresh?: boolean;
  /**
   * An answer asked for (by `get`, or by `peek` given a load) this many ms or
   * less before its time is up starts one new load, which replaces it when
   * it arrives (fresh from that load's start); meanwhile it is still given,
   * never past its time.
   */
  refreshAheadMs?: number;
}

/** One cached answer. */
interface Entry<V> {
  value: Promise<V>;
  /** When its load began (ms). */
  since: number;
  /** Until when it is used (ms); `Infinity` while its load is in flight. */
  until: number;
  /** The answer, once it has arrived. */
  settled?: { value: V };
  /** What it counts against the byte bound, once settled. */
  bytes: number;
  /** The load replacing it (`staleWhileRefresh`), while in flight. */
  next?: Promise<V>;
}

/** Answers of a load by key, each fresh for a time; see the module's comment. */
export class FreshCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #options: FreshOptions<V>;
  #bytes = 0;

  constructor(options: FreshOptions<V>) {
    this.#options = options;
  }

  /** The answers kept, and their estimated bytes. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#bytes };
  }

  /**
   * The answer for `key` once it has arrived and while it is fresh at `now`;
   * else `undefined`. Given a `load`, a fresh answer near its end
   * (`refreshAheadMs`) starts its replacement; a missing one starts nothing.
   */
  peek(key: string, now: number, load?: () => Promise<V>): { value: V } | undefined {
    const hit = this.#entries.get(key);
    if (hit === undefined || hit.until <= now) return undefined;
    if (load !== undefined) this.#refreshAhead(key, hit, now, load);
    return hit.settled;
  }

  /**
   * The answer for `key`: cached and fresh at `now`, or in flight, or (with
   * `staleWhileRefresh`) past its time while a new load runs; past its time
   * with its replacement in flight (refreshed ahead), the replacement's; else
   * `load()`'s.
   */
  get(key: string, now: number, load: () => Promise<V>): Promise<V> {
    const hit = this.#entries.get(key);
    if (hit) {
      if (hit.until > now) {
        this.#refreshAhead(key, hit, now, load);
        return hit.value;
      }
      if (this.#options.staleWhileRefresh) {
        this.#refresh(key, hit, now, load);
        return hit.value;
      }
      if (hit.next) return hit.next;
      this.#remove(key, hit);
    }
    return this.#load(key, now, load).value;
  }

  /** Keeps `value` as the answer for `key` from `now`, as if a load had given it. */
  set(key: string, now: number, value: V): void {
    const old = this.#entries.get(key);
    if (old) this.#remove(key, old);
    const entry: Entry<V> = {
      value: Promise.resolve(value),
      since: now,
      until: Infinity,
      bytes: 0,
    };
    this.#insert(key, entry);
    this.#settle(key, entry, value);
  }

  /** Forgets the answer for `key` (and a load replacing it): after a write that changed only it. */
  delete(key: string): void {
    const hit = this.#entries.get(key);
    if (hit) this.#remove(key, hit);
  }

  /** Forgets every answer: after any write. */
  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  /** Starts `load()` as the answer for `key` from `now`. */
  #load(key: string, now: number, load: () => Promise<V>): Entry<V> {
    const value = load();
    const entry: Entry<V> = { value, since: now, until: Infinity, bytes: 0 };
    this.#insert(key, entry);
    value.then(
      (settled) => this.#settle(key, entry, settled),
      () => {
        if (this.#entries.get(key) === entry) this.#remove(key, entry);
      },
    );
    return entry;
  }

  /** Starts the replacement of the fresh `hit` when its time ends within `refreshAheadMs`. */
  #refreshAhead(key: string, hit: Entry<V>, now: number, load: () => Promise<V>): void {
    const ahead = this.#options.refreshAheadMs;
    if (ahead !== undefined && hit.until - now <= ahead) this.#refresh(key, hit, now, load);
  }

  /** Starts the load that replaces `stale` when it arrives, unless `stale` is forgotten first. */
  #refresh(key: string, stale: Entry<V>, now: number, load: () => Promise<V>): void {
    if (stale.next) return;
    const next = stale.next = load();
    next.then((value) => {
      if (this.#entries.get(key) !== stale) return;
      this.#remove(key, stale);
      const entry: Entry<V> = { value: next, since: now, until: Infinity, bytes: 0 };
      this.#insert(key, entry);
      this.#settle(key, entry, value);
    }, () => stale.next = undefined);
  }

  /** Adds `entry` as the newest, making room by the entry bound. */
  #insert(key: string, entry: Entry<V>): void {
    this.#entries.set(key, entry);
    if (this.#entries.size > this.#options.maxEntries) this.#evictOldest();
  }

  /** Dates and sizes an arrived answer, making room by the byte bound (itself too, when too large). */
  #settle(key: string, entry: Entry<V>, value: V): void {
    if (this.#entries.get(key) !== entry) return;
    const { ttlMs, sizeOf = approxBytes } = this.#options;
    entry.settled = { value };
    entry.until = entry.since + (typeof ttlMs === "number" ? ttlMs : ttlMs(value));
    entry.bytes = key.length * 2 + sizeOf(value);
    this.#bytes += entry.bytes;
    while (this.#bytes > this.#options.maxBytes && this.#entries.size > 0) this.#evictOldest();
  }

  #evictOldest(): void {
    const [key, entry] = this.#entries.entries().next().value!;
    this.#remove(key, entry);
  }

  #remove(key: string, entry: Entry<V>): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}

/** Array elements measured at most; a longer array's size is extrapolated from these. */
const SAMPLED = 16;

/**
 * A cheap estimate of the memory `value` holds, in bytes: two a string
 * character (the strings dominate the records cached), eight a number, date
 * or reference, and sixteen an object. A long array is measured from
 * {@link SAMPLED} of its elements spread over it.
 */
export function approxBytes(value: unknown): number {
  switch (typeof value) {
    case "string":
      return 16 + value.length * 2;
    case "number":
    case "boolean":
    case "bigint":
      return 8;
    case "object": {
      if (value === null) return 8;
      if (value instanceof Date) return 32;
      if (Array.isArray(value)) {
        if (value.length <= SAMPLED) return value.reduce((n, v) => n + 8 + approxBytes(v), 16);
        const step = value.length / SAMPLED;
        let sampled = 0;
        for (let i = 0; i < SAMPLED; i++) sampled += approxBytes(value[Math.floor(i * step)]);
        return 16 + value.length * 8 + Math.ceil(sampled / SAMPLED * value.length);
      }
      let bytes = 16;
      for (const key in value) {
        bytes += 8 + approxBytes((value as Record<string, unknown>)[key]);
      }
      return bytes;
    }
    default:
      return 8;
  }
}

/**
 * Runs `write` with `forget` called before and after it: what a cache held
 * before the write, or took in while it ran, is not used after it.
 */
export async function forgetAround<T>(forget: () => void, write: () => Promise<T>): Promise<T> {
  forget();
  try {
    return await write();
  } finally {
    forget();
  }
}
