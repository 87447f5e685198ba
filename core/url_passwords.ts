/**
 * A short URL's password (reference §6.5): checked once, on `POST
 * /api/user/urls/:id/password`, which answers with a grant for the access
 * cookie `url_pw_<urlId>`: not the password but its expiry and an HMAC, under
 * the server secret, of the URL, its current hash, that expiry and the
 * client's IP. The redirects that follow check the HMAC, never argon2; a new
 * password voids every grant, and a grant serves only the address that earned
 * it. Each check, and each cookie holding no live grant, is an attempt,
 * limited and logged (`password_attempts.ts`).
 */
import type { UrlRecord } from "../db/urls.ts";
import { forbidden, notFound } from "./errors.ts";
import { verifyPassword } from "./passwords.ts";
import { type Attempt, type AttemptTarget, refuseProof, tryPassword } from "./password_attempts.ts";
import { hmac, safeEqual } from "./secrets.ts";
import type { Services } from "./services.ts";

/** The cookie that proves a URL's password was verified: `url_pw_<urlId>`, holding a grant. */
export const urlPasswordCookie = (urlId: string) => `url_pw_${urlId}`;
/** How long that cookie, and the grant it holds, last: 60 seconds. */
export const URL_PASSWORD_COOKIE_SECONDS = 60;

/**
 * Checks a URL's password (the URL named by id, code or vanity): 404 when
 * there is no such URL or it has no password, 403 when the password is
 * wrong, 429 past the attempts' limit. Returns the URL and the grant its
 * access cookie holds.
 */
export async function verifyUrlPassword(
  s: Services,
  idOrName: string,
  password: string,
  attempt: Attempt,
): Promise<{ url: UrlRecord; grant: string }> {
  const url = await s.store.urls.get(idOrName) ?? await s.store.urls.getByName(idOrName);
  const hash = url?.password;
  if (!url || !hash) throw notFound();
  const ok = await tryPassword(
    s,
    attemptTarget(url),
    attempt,
    () => verifyPassword(password, hash),
  );
  if (!ok) throw forbidden("Incorrect password");
  const expires = Math.floor(s.clock.now() / 1000) + URL_PASSWORD_COOKIE_SECONDS;
  return { url, grant: `${expires}.${grantMac(s, url, expires, attempt.ip)}` };
}

/**
 * Whether the access cookie's value is a live grant for `url` and this
 * address; one that is not is a failed attempt (limited, logged).
 */
export async function grantOpens(
  s: Services,
  url: UrlRecord,
  grant: string,
  attempt: Attempt,
): Promise<boolean> {
  if (grantHolds(s, url, grant, attempt.ip)) return true;
  await refuseProof(s, attemptTarget(url), attempt);
  return false;
}

function grantHolds(s: Services, url: UrlRecord, grant: string, ip: string): boolean {
  const match = /^(\d{1,12})\.([\w-]{1,64})$/.exec(grant);
  if (!match) return false;
  const expires = Number(match[1]);
  if (expires * 1000 <= s.clock.now()) return false;
  return safeEqual(match[2], grantMac(s, url, expires, ip));
}

/** HMAC of URL id, current hash, expiry and client IP under the server secret. */
function grantMac(s: Services, url: UrlRecord, expires: number, ip: string): string {
  return hmac(s.secret, `url\0${url.id}\0${url.password}\0${expires}\0${ip}`);
}

function attemptTarget(url: UrlRecord): AttemptTarget {
  return { kind: "url", id: url.id, name: url.vanity ?? url.code };
}
