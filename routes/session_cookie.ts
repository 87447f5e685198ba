/** Writing and clearing the session cookie. */
import type { Context } from "hono";
import { SESSION_COOKIE, SESSION_TTL_MS } from "../core/sessions.ts";
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
