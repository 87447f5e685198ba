/**
 * A short URL's password (reference §6.5): checked once, on `POST
 * /api/user/urls/:id/password`, which answers with a grant for the access
 * cookie `url_pw_<urlId>` (`password_grants.ts`: not the password but its
 * expiry and an HMAC). The redirects that follow check the HMAC, never
 * argon2; a new password voids every grant, and a grant serves only the
 * address that earned it. Each check, and each cookie holding no live grant, is an attempt,
 * limited and logged (`password_attempts.ts`).
 */
import type { UrlRecord } from "../db/urls.ts";
import { forbidden, notFound } from "./errors.ts";
import { verifyPassword } from "./passwords.ts";
import { type Attempt, type AttemptTarget, refuseProof, tryPassword } from "./password_attempts.ts";
import { grantHolds, type GrantSubject, issueGrant } from "./password_grants.ts";
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
  return { url, grant: issueGrant(s, subject(url), attempt.ip, URL_PASSWORD_COOKIE_SECONDS) };
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
  if (grantHolds(s, subject(url), grant, attempt.ip)) return true;
  await refuseProof(s, attemptTarget(url), attempt);
  return false;
}

function subject(url: UrlRecord): GrantSubject {
  return { kind: "url", id: url.id, hash: url.password };
}

function attemptTarget(url: UrlRecord): AttemptTarget {
  return { kind: "url", id: url.id, name: url.vanity ?? url.code };
}
