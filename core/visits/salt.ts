/**
 * The visitor hash: HMAC-SHA-256 of the client's address and user agent
 * under the day's salt, of which 16 hex digits (64 bits) are kept. The salt
 * is random, made by the first instance that needs it on a day and kept in
 * the store so that every instance hashes alike; the retention task deletes
 * the salts of past days, after which yesterday's hashes can no longer be
 * recomputed from an address (and a visitor is not followed from day to day).
 * The address itself is never stored.
 *
 * The HMAC (RFC 2104) is keyed once per day: the SHA-256 states after the
 * key's inner and outer pads are kept, and each visitor's hash continues
 * copies of them (measured: 27 µs a visitor, where node:crypto's
 * `createHmac`, keyed anew each time, took 44 µs; hash-wasm's 10 µs cost
 * its WebAssembly module in the server's memory, bench/results/memory.md).
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { dayName } from "../../db/visit_rollup.ts";
import { perServices, type Services } from "../services.ts";

/** Hashes a visitor: its address and user agent. */
export type VisitorHasher = (ip: string, userAgent: string) => string;

/** Each day's hasher this process made (a day's salt never changes). */
const hashers = perServices((_: Services) => new Map<string, Promise<VisitorHasher>>());

/** The hasher of the UTC day of `at` (ms), under the stored salt or a new one stored. */
export function dayHasher(s: Services, at: number): Promise<VisitorHasher> {
  const day = dayName(at);
  const held = hashers(s);
  let hasher = held.get(day);
  if (hasher === undefined) {
    const fresh = Buffer.from(s.random.bytes(32)).toString("hex");
    hasher = s.store.visits.salt(day, fresh).then(visitorHasher);
    hasher.catch(() => held.delete(day));
    // Only today's and yesterday's are ever needed: older ones go.
    const yesterday = dayName(at - 86_400_000);
    for (const old of held.keys()) if (old < yesterday) held.delete(old);
    held.set(day, hasher);
  }
  return hasher;
}

/** SHA-256's block, in bytes: an HMAC key is padded (or first hashed) to it. */
const BLOCK = 64;

/** The visitor hasher under `salt`: HMAC-SHA-256 of `ip\0userAgent`, 16 hex digits. */
export function visitorHasher(salt: string): VisitorHasher {
  let key: Uint8Array = Buffer.from(salt, "utf8");
  if (key.byteLength > BLOCK) key = createHash("sha256").update(key).digest();
  const padded = new Uint8Array(BLOCK);
  padded.set(key);
  const inner = createHash("sha256").update(padded.map((b) => b ^ 0x36));
  const outer = createHash("sha256").update(padded.map((b) => b ^ 0x5c));
  return (ip, userAgent) => {
    const digest = inner.copy().update(`${ip}\0${userAgent}`).digest();
    return outer.copy().update(digest).digest("hex").slice(0, 16);
  };
}
