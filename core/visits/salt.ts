/**
 * The visitor hash: HMAC-SHA-256 of the client's address and user agent
 * under the day's salt, of which 16 hex digits (64 bits) are kept. The salt
 * is random, made by the first instance that needs it on a day and kept in
 * the store so that every instance hashes alike; the retention task deletes
 * the salts of past days, after which yesterday's hashes can no longer be
 * recomputed from an address (and a visitor is not followed from day to day).
 * The address itself is never stored.
 *
 * The HMAC is hash-wasm's, keyed once per day and reused (node:crypto's
 * `createHmac` took about 150 µs a visit, keying included; this takes a few).
 */
import { Buffer } from "node:buffer";
import { createHMAC, createSHA256, type IHasher } from "hash-wasm";
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

/** The visitor hasher under `salt`. */
export async function visitorHasher(salt: string): Promise<VisitorHasher> {
  const hmac: IHasher = await createHMAC(createSHA256(), salt);
  return (ip, userAgent) => hmac.init().update(`${ip}\0${userAgent}`).digest("hex").slice(0, 16);
}
