/**
 * Login sessions. The cookie carries a random secret; the store keeps the
 * session under the secret's SHA-256, so a copy of the store opens no session.
 * Sessions live in the store, so every server process honours them.
 */
import type { SessionRecord, SignInMethod } from "../db/sessions.ts";
import type { UserRecord } from "../db/users.ts";
import { forbidden } from "./errors.ts";
import { base64url, sha256 } from "./secrets.ts";
import type { Services } from "./services.ts";

/** The session cookie's name. */
export const SESSION_COOKIE = "service_session";
/** How long a session lasts: 14 days. */
export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;

/** How stale a session's `lastSeenAt` may get before a request writes it again. */
export const SESSION_SEEN_STEP_MS = 5 * 60 * 1000;

/** Who is signing in, as told by the client or read from its user agent. */
export interface ClientInfo {
  client: string;
  device: string;
  ua: string;
}

/** A guess of browser and operating system from a User-Agent header. */
export function clientFromUserAgent(ua: string): ClientInfo {
  const browser = ua.match(/(Firefox|Edg|OPR|Chrome|Safari|curl|Wget)\/([\d.]+)/);
  const os = ua.match(/(Windows|Android|iPhone|iPad|Mac OS X|Linux|CrOS)/);
  return {
    client: browser ? `${browser[1] === "Edg" ? "Edge" : browser[1]} ${browser[2]}` : "unknown",
    device: os ? os[1] : "Web",
    ua,
  };
}

/**
 * Starts a session for `user`, signed in by `method` (what its freshness
 * proves, `confirm.ts`); returns the cookie secret and the record.
 */
export async function startSession(
  s: Services,
  user: UserRecord,
  client: ClientInfo,
  method: SignInMethod,
): Promise<{ secret: string; session: SessionRecord }> {
  const secret = base64url(s.random.bytes(32));
  const now = s.clock.now();
  const session: SessionRecord = {
    id: await sha256(secret),
    userId: user.id,
    createdAt: new Date(now),
    expiresAt: new Date(now + SESSION_TTL_MS),
    lastSeenAt: new Date(now),
    method,
    ...client,
  };
  await s.store.sessions.create(session);
  return { secret, session };
}

/**
 * The live session and its user for a cookie secret, or `null`. The session's
 * `lastSeenAt` is written again once it is {@link SESSION_SEEN_STEP_MS} old,
 * so a busy session costs one write every few minutes, not one a request.
 */
export async function resolveSession(
  s: Services,
  secret: string,
): Promise<{ session: SessionRecord; user: UserRecord } | null> {
  if (secret.length < 16 || secret.length > 128) return null;
  const session = await s.store.sessions.get(await sha256(secret));
  const now = s.clock.now();
  if (!session || session.expiresAt.getTime() <= now) return null;
  const user = await s.store.users.getCached(session.userId);
  if (!user) return null;
  if (now - session.lastSeenAt.getTime() >= SESSION_SEEN_STEP_MS) {
    session.lastSeenAt = new Date(now);
    await s.store.sessions.touch(session.id, session.lastSeenAt);
  }
  return { session, user };
}

/** Where a request comes from, as the browser that sent it tells, and where it was sent. */
export interface RequestSource {
  /** `Sec-Fetch-Site`. */
  fetchSite?: string;
  origin?: string;
  referer?: string;
  /**
   * The hosts (name and port, lowercased) this server answers as: the request's
   * own (`Host`, or a trusted proxy's `X-Forwarded-Host`), `coreDefaultDomain`
   * and `domains` (`serverHosts`, `core/links.ts`).
   */
  hosts: readonly string[];
}

/** The `Sec-Fetch-Site` values of a request made by this origin's pages or typed by the person. */
const OWN_FETCH_SITES = ["same-origin", "none"];

/** Whether `url` (an `Origin` or a `Referer`) is on one of `hosts`; `null` and junk are not. */
function onOwnHost(url: string, hosts: readonly string[]): boolean {
  return URL.canParse(url) && hosts.includes(new URL(url).host);
}

/**
 * `true` when the request shows it was made by one of the service's own
 * pages or typed into the address bar: `Sec-Fetch-Site` says `same-origin`
 * or `none`, or, from a browser without it, the `Origin` (else `Referer`)
 * is on one of the server's hosts. A request that shows nothing is not trusted.
 */
export function fromSameOrigin(source: RequestSource): boolean {
  if (source.fetchSite !== undefined) return OWN_FETCH_SITES.includes(source.fetchSite);
  const from = source.origin ?? source.referer;
  return from !== undefined && onOwnHost(from, source.hosts);
}

/**
 * `true` when a browser tells that another site made the request:
 * `Sec-Fetch-Site` is anything but `same-origin` or `none` (`cross-site`, and
 * `same-site`: a sibling subdomain gets the `SameSite=Lax` cookie too), or,
 * from a browser without it, the `Origin` is on none of the server's hosts
 * (`Origin: null` included). `Sec-Fetch-Site`, when sent, decides: behind a
 * proxy that rewrites `Host`, the service's own pages still say `same-origin`.
 * A request with neither header did not come from a page (scripts and apps
 * send neither) and is not another site's.
 */
export function fromAnotherSite(source: RequestSource): boolean {
  if (source.fetchSite !== undefined) return !OWN_FETCH_SITES.includes(source.fetchSite);
  return source.origin !== undefined && !onOwnHost(source.origin, source.hosts);
}

/**
 * Ends `session` (when there is one); the user's other sessions stay. With a
 * `source` (a logout by `GET`, which any page can trigger with an image), a
 * session is ended only for a request from the same origin: 403 otherwise.
 */
export async function endSession(
  s: Services,
  session: SessionRecord | null,
  source?: RequestSource,
): Promise<void> {
  if (!session) return;
  if (source && !fromSameOrigin(source)) throw forbidden("Cross-site logout refused");
  await s.store.sessions.delete(session.id);
}
