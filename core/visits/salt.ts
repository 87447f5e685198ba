/**
 * The visitor hash: HMAC-SHA-256 of the client's address and user agent
 * under the day's salt, of which 16 hex digits (64 bits) are kept. The salt
 * is random, made by the first instance that needs it on a day and kept in
 * the store so that every instance hashes alike; the retention task deletes
 * the salts of past days, after which yesterday's hashes can no longer be
 * recomputed from an address (and a visitor is not followed from day to day).
 * The address itself is never stored.
 */
import { Buffer } from "node:buffer";
import { createHmac } from "node:crypto";
import { dayName } from "../../db/visit_rollup.ts";
import { perServices, type Services } from "../services.ts";

/** Salts read this process, by day (a day's salt never changes). */
const salts = perServices((_: Services) => new Map<string, Promise<string>>());

/** The salt of the UTC day of `at` (ms): the stored one, or a new one stored. */
export function daySalt(s: Services, at: number): Promise<string> {
  const day = dayName(at);
  const held = salts(s);
  let salt = held.get(day);
  if (salt === undefined) {
    salt = s.store.visits.salt(day, Buffer.from(s.random.bytes(32)).toString("hex"));
    salt.catch(() => held.delete(day));
    // Only today's and yesterday's are ever needed: older ones go.
    for (const old of held.keys()) if (old < dayName(at - 86_400_000)) held.delete(old);
    held.set(day, salt);
  }
  return salt;
}

/** The visitor hash of `ip` and `userAgent` under `salt`. */
export function visitorHash(salt: string, ip: string, userAgent: string): string {
  return createHmac("sha256", salt).update(`${ip}\0${userAgent}`).digest("hex").slice(0, 16);
}
