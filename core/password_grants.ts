/**
 * The grant an access cookie holds once a password was verified (a short
 * URL's, a share link's): not the password but its expiry and an HMAC, under
 * the server secret, of the subject, its current hash, that expiry and the
 * client's IP. Checking one costs an HMAC, never argon2; a new password voids
 * every grant, and a grant serves only the address that earned it.
 */
import { hmac, safeEqual } from "./secrets.ts";
import type { Services } from "./services.ts";

/** What a grant opens: its kind (`url`, `share`), its id and its current password hash. */
export interface GrantSubject {
  kind: string;
  id: string;
  hash: string | null;
}

/** A grant of `subject` for `ip`, valid `seconds` from now. */
export function issueGrant(
  s: Services,
  subject: GrantSubject,
  ip: string,
  seconds: number,
): string {
  const expires = Math.floor(s.clock.now() / 1000) + seconds;
  return `${expires}.${grantMac(s, subject, expires, ip)}`;
}

/** Whether `grant` is a live grant of `subject` for `ip`. */
export function grantHolds(s: Services, subject: GrantSubject, grant: string, ip: string): boolean {
  const match = /^(\d{1,12})\.([\w-]{1,64})$/.exec(grant);
  if (!match) return false;
  const expires = Number(match[1]);
  if (expires * 1000 <= s.clock.now()) return false;
  return safeEqual(match[2], grantMac(s, subject, expires, ip));
}

/** HMAC of the subject, its current hash, the expiry and the client IP under the server secret. */
function grantMac(s: Services, subject: GrantSubject, expires: number, ip: string): string {
  return hmac(s.secret, `${subject.kind}\0${subject.id}\0${subject.hash}\0${expires}\0${ip}`);
}
