/**
 * API tokens. The store keeps a random token per user; clients hold it
 * encrypted with the server secret (AES-256-GCM, key = SHA-256 of the secret),
 * in Zipline's format: `base64(timestamp) "." base64(ivHex "." cipherHex "." tagHex)`.
 * Decryption failure tells a mangled token from one that matches no user.
 */
import { Buffer } from "node:buffer";
import { createCipheriv, createDecipheriv, createHash } from "node:crypto";
import { FreshCache } from "../db/fresh_cache.ts";
import { type Random, randomString } from "./clock.ts";
import { perServices, type Services } from "./services.ts";

/**
 * A new stored token: `base64(now) "." base64(32 random alphanumerics) "." userId`.
 * Carrying the user id lets authentication find the user with one store read
 * (by id) and then compare tokens in constant time.
 */
export function newStoredToken(now: number, random: Random, userId: string): string {
  return `${btoa(String(now))}.${btoa(randomString(random, 32))}.${userId}`;
}

/** The user id inside a stored token, or `null` for one without. */
export function tokenUserId(stored: string): string | null {
  return stored.split(".")[2] || null;
}

function key(secret: string): Uint8Array {
  return createHash("sha256").update(secret, "utf8").digest();
}

/** Encrypts `plain` as `ivHex.cipherHex.tagHex`. */
export function encrypt(plain: string, secret: string, random: Random): string {
  const iv = random.bytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(secret), iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [iv, body, cipher.getAuthTag()].map((b) => Buffer.from(b).toString("hex")).join(".");
}

/** Decrypts what {@link encrypt} made; `null` when it is malformed or forged. */
export function decrypt(sealed: string, secret: string): string | null {
  const parts = sealed.split(".");
  if (parts.length !== 3 || parts.some((p) => !/^[0-9a-f]*$/i.test(p) || p.length % 2)) {
    return null;
  }
  const [iv, body, tag] = parts.map((p) => Buffer.from(p, "hex"));
  if (iv.length !== 12 || tag.length !== 16) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key(secret), iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}

/** The token a client holds for the stored token. A new IV each time; all stay valid. */
export function clientToken(stored: string, now: number, secret: string, random: Random): string {
  return `${btoa(String(now))}.${btoa(encrypt(stored, secret, random))}`;
}

/**
 * Decrypted client tokens, per instance (whose secret is one): a client sends
 * the same token with every request, and decrypting it (SHA-256 of the secret,
 * AES-GCM through the Node layer) was ~40 µs of each authenticated request
 * (bench/results/uploads.md). A pure function's memo: what it holds is only
 * what the token already says, and a revoked token is refused by the
 * comparison with the user's stored token that follows; its hour and its
 * bounds only make room.
 */
const decrypted = perServices((_: Pick<Services, "secret" | "clock">) =>
  new FreshCache<string>({ ttlMs: 60 * 60 * 1000, maxEntries: 1024, maxBytes: 1024 * 1024 })
);

/** The stored token inside a client token, or `null` when it cannot be decrypted with `s.secret`. */
export function storedTokenOf(
  s: Pick<Services, "secret" | "clock">,
  client: string,
): string | null {
  const memo = decrypted(s);
  const now = s.clock.now();
  const known = memo.peek(client, now);
  if (known) return known.value;
  const stored = decryptClientToken(client, s.secret);
  if (stored !== null) memo.set(client, now, stored);
  return stored;
}

function decryptClientToken(client: string, secret: string): string | null {
  const [stamp, sealed, ...rest] = client.split(".");
  if (!stamp || !sealed || rest.length) return null;
  try {
    if (!Number.isFinite(parseInt(atob(stamp), 10))) return null;
    return decrypt(atob(sealed), secret);
  } catch {
    return null;
  }
}
