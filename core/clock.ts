/**
 * Time and randomness come in through these interfaces so that expiry, rate
 * limits and cookies can be tested without sleeping and ids without luck.
 */

/** A source of the current time. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** A source of random bytes. */
export interface Random {
  /** `length` cryptographically strong random bytes. */
  bytes(length: number): Uint8Array;
}

/** A clock that also runs code later: the time a protocol between processes goes by. */
export interface Timer extends Clock {
  /** Calls `tick` every `ms` until the returned function is called. */
  every(ms: number, tick: () => Promise<void>): () => void;
  /** Resolves after `ms`. */
  sleep(ms: number): Promise<void>;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** The real clock and its timers (ticks that do not keep the process alive). */
export const systemTimer: Timer = {
  now: systemClock.now,
  every(ms, tick) {
    const id = setInterval(tick, ms);
    Deno.unrefTimer(id);
    return () => clearInterval(id);
  },
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** The platform's cryptographic random generator. */
export const systemRandom: Random = {
  bytes: (length) => crypto.getRandomValues(new Uint8Array(length)),
};

/** A clock that stands still until moved; for tests. */
export class ManualClock implements Clock {
  constructor(private time = Date.UTC(2026, 0, 1)) {}
  /** The current manual time. */
  now(): number {
    return this.time;
  }
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    this.time += ms;
  }
  /** Sets the clock to `time`. */
  set(time: number): void {
    this.time = time;
  }
}

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A string of `length` characters from `alphabet`, drawn without modulo bias. */
export function randomString(random: Random, length: number, alphabet = ALPHANUMERIC): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    for (const byte of random.bytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** The lowercase base-36 digits ids are made of. */
export const BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz";

/** The first ten characters of an id made at `now` (milliseconds): later ones sort after it. */
export function idTimePrefix(now: number): string {
  return "c" + now.toString(36).padStart(9, "0").slice(-9);
}

/**
 * A new record id made at `now`: 25 lowercase base-36 characters starting
 * with a letter, like Zipline's (cuid): `c`, the time, then 15 random
 * characters (77 bits). Ids made later sort after earlier ones, so new
 * records land together at the end of the stores' indexes (Deno KV's B-tree,
 * PostgreSQL's primary keys) instead of all over them: fewer pages written per commit.
 */
export function newId(random: Random, now: number): string {
  return idTimePrefix(now) + randomString(random, 15, BASE36);
}
