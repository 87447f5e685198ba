/**
 * The visitor hash: SipHash-2-4 (`siphash.ts`, a keyed pseudorandom function
 * of 64 bits) of the client's address and user agent under a key made from
 * the day's salt, as 16 hex digits. The salt is random, made by the first
 * instance that needs it on a day and kept in the store so that every
 * instance hashes alike; the retention task deletes the salts of past days,
 * after which yesterday's hashes can no longer be recomputed from an address
 * (and a visitor is not followed from day to day). The address itself is
 * never stored.
 *
 * The key is the first 16 bytes of SHA-256 of the salt (made once a day).
 * Until the change to SipHash (the visits' CPU cost, `bench/results/visits.md`)
 * the hash was HMAC-SHA-256 of the same text under the salt: 4–7 µs a visitor
 * against under 1 µs; a visitor seen on the day of the upgrade both before and
 * after it counts twice in that day's unique visitors.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { dayName } from "../../db/visit_rollup.ts";
import { perServices, type Services } from "../services.ts";
import { sipHash24, SIPHASH_KEY_BYTES } from "./siphash.ts";

/** Hashes a visitor: its address and user agent. */
export type VisitorHasher = (ip: string, userAgent: string) => string;

/** Each day's salt this process read or made (a day's salt never changes). */
const salts = perServices((_: Services) => new Map<string, Promise<string>>());

/** The salt of the UTC day of `at` (ms): the stored one, or a new one stored. */
export function daySalt(s: Services, at: number): Promise<string> {
  return dayMemo(salts(s), at, (day) => {
    const fresh = Buffer.from(s.random.bytes(32)).toString("hex");
    return s.store.visits.salt(day, fresh);
  });
}

/**
 * `held`'s value for the day of `at`, made by `make` when missing (and
 * forgotten when it fails); only today's and yesterday's are ever needed,
 * older ones go.
 */
function dayMemo<T>(
  held: Map<string, Promise<T>>,
  at: number,
  make: (day: string) => Promise<T>,
): Promise<T> {
  const day = dayName(at);
  let value = held.get(day);
  if (value === undefined) {
    value = make(day);
    value.catch(() => held.delete(day));
    const yesterday = dayName(at - 86_400_000);
    for (const old of held.keys()) if (old < yesterday) held.delete(old);
    held.set(day, value);
  }
  return value;
}

/**
 * The visitor hasher under `salt`: SipHash-2-4 of `ip\0userAgent` (UTF-8)
 * under the first 16 bytes of SHA-256 of the salt, 16 hex digits.
 */
export function visitorHasher(salt: string): VisitorHasher {
  const key = new Uint8Array(createHash("sha256").update(salt, "utf8").digest())
    .slice(0, SIPHASH_KEY_BYTES);
  let buffer = new Uint8Array(512);
  // The agents' UTF-8 bytes, each made once: a batch's visitors share a few agents.
  const agents = new Map<string, Uint8Array>();
  return (ip, userAgent) => {
    let agentBytes = agents.get(userAgent);
    if (agentBytes === undefined) {
      if (agents.size >= KEPT_AGENTS) agents.clear();
      agents.set(userAgent, agentBytes = encoder.encode(userAgent));
    }
    const length = 3 * ip.length + 1 + agentBytes.length;
    if (buffer.length < length) buffer = new Uint8Array(2 * length);
    // The address is ASCII (as every address is) written as it is, else as UTF-8.
    let at = 0;
    for (; at < ip.length; at++) {
      const c = ip.charCodeAt(at);
      if (c > 127) break;
      buffer[at] = c;
    }
    if (at < ip.length) at = encoder.encodeInto(ip, buffer).written;
    buffer[at++] = 0;
    buffer.set(agentBytes, at);
    return sipHash24(key, buffer, at + agentBytes.length);
  };
}

const encoder = new TextEncoder();
/** Agents whose bytes a hasher keeps. */
const KEPT_AGENTS = 256;
