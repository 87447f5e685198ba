/**
 * Login sessions. The cookie carries a random secret; the store keeps the
 * session under the secret's SHA-256, so a copy of the store opens no session.
 * Sessions live in the store, so every server process honours them.
 */
import type { SessionRecord, UserRecord } from "../db/store.ts";
import { base64url, sha256 } from "./secrets.ts";
import type { Services } from "./services.ts";

/** The session cookie's name. */
export const SESSION_COOKIE = "service_session";
/** How long a session lasts: 14 days. */
export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;

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

/** Starts a session for `user`; returns the cookie secret and the record. */
export async function startSession(
  s: Services,
  user: UserRecord,
  client: ClientInfo,
): Promise<{ secret: string; session: SessionRecord }> {
  const secret = base64url(s.random.bytes(32));
  const now = s.clock.now();
  const session: SessionRecord = {
    id: await sha256(secret),
    userId: user.id,
    createdAt: new Date(now),
    expiresAt: new Date(now + SESSION_TTL_MS),
    ...client,
  };
  await s.store.createSession(session);
  return { secret, session };
}

/** The live session and its user for a cookie secret, or `null`. */
export async function resolveSession(
  s: Services,
  secret: string,
): Promise<{ session: SessionRecord; user: UserRecord } | null> {
  if (secret.length < 16 || secret.length > 128) return null;
  const session = await s.store.getSession(await sha256(secret));
  if (!session || session.expiresAt.getTime() <= s.clock.now()) return null;
  const user = await s.store.getUser(session.userId);
  return user ? { session, user } : null;
}

/** Ends `session` (when there is one); the user's other sessions stay. */
export async function endSession(s: Services, session: SessionRecord | null): Promise<void> {
  if (session) await s.store.deleteSession(session.id);
}
