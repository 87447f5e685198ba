/**
 * Small cryptographic helpers shared by sessions, tokens and signatures:
 * constant-time comparison, SHA-256, HMAC and base64url.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

const encoder = new TextEncoder();

/** Compares two strings in time independent of where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  if (x.length !== y.length) {
    timingSafeEqual(x, x);
    return false;
  }
  return timingSafeEqual(x, y);
}

/** Base64url without padding. */
export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** SHA-256 of the UTF-8 text, as base64url. */
export async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return base64url(new Uint8Array(digest));
}

/**
 * {@link sha256} computed at once, without a promise: for the lookup of every
 * request made with an API key, where WebCrypto's round trip would cost more
 * than the hash.
 */
export function sha256Now(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("base64url");
}

/** HMAC-SHA-256 of the UTF-8 text under `key`, as base64url. */
export function hmac(key: string, text: string): string {
  return createHmac("sha256", key).update(text).digest("base64url");
}
