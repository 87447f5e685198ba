/** Writing and clearing the session cookie. */
import type { Context } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { SESSION_COOKIE, SESSION_TTL_MS } from "../core/sessions.ts";
import type { AppEnv } from "./env.ts";

/** Sets `service_session`: HttpOnly, SameSite=Lax, Path=/, 14 days, Secure with https URLs. */
export function setSessionCookie(c: Context<AppEnv>, secret: string): void {
  setCookie(c, SESSION_COOKIE, secret, {
    httpOnly: true,
    sameSite: "Lax",
    path: "/",
    maxAge: SESSION_TTL_MS / 1000,
    secure: c.var.services.settings.get("coreReturnHttpsUrls"),
  });
}

/** Removes the session cookie. */
export function clearSessionCookie(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/" });
}
