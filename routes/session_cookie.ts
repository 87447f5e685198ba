/** Writing, clearing and reading the session cookie. */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { resolveSession, SESSION_COOKIE, SESSION_TTL_MS } from "../core/sessions.ts";
import type { UserRecord } from "../db/users.ts";
import { clearServiceCookie, setServiceCookie } from "./cookies.ts";
import type { AppEnv } from "./env.ts";

/** Sets `service_session`: HttpOnly, SameSite=Lax, Path=/, 14 days, Secure over HTTPS (`cookies.ts`). */
export function setSessionCookie(c: Context<AppEnv>, secret: string): void {
  setServiceCookie(c, SESSION_COOKIE, secret, {
    path: "/",
    maxAge: SESSION_TTL_MS / 1000,
    httpOnly: true,
  });
}

/** Removes the session cookie. */
export function clearSessionCookie(c: Context<AppEnv>): void {
  clearServiceCookie(c, SESSION_COOKIE, "/");
}

/** The user of the request's session cookie, or `null`. Pages know no API tokens. */
export async function sessionUser(c: Context<AppEnv>): Promise<UserRecord | null> {
  const secret = getCookie(c, SESSION_COOKIE);
  return secret ? (await resolveSession(c.var.services, secret))?.user ?? null : null;
}

/** The id of the user signed in with the request's session cookie, or `null` (`Viewer`). */
export function sessionViewer(c: Context<AppEnv>): () => Promise<string | null> {
  return async () => (await sessionUser(c))?.id ?? null;
}
