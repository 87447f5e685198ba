/**
 * Every cookie Ferry sets goes through here: `SameSite=Lax`, `HttpOnly` unless
 * a page must read it, and `Secure` whenever the client reached the service
 * over HTTPS (on Ferry's own TLS socket, or at a trusted proxy that says so
 * in `X-Forwarded-Proto`) or `coreReturnHttpsUrls` says the service is
 * reached that way.
 */
import type { Context } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { type AppEnv, viaHttps } from "./env.ts";

/** Where a cookie is sent and for how long. */
export interface CookieOptions {
  /** The path it is sent to. */
  path: string;
  /** Its lifetime, in seconds. */
  maxAge: number;
  /** `false` only for a cookie a page's script reads (the spec's `file_pw_<id>`). */
  httpOnly: boolean;
}

/** Whether the cookies of this request's answer are `Secure`. */
export function secureCookies(c: Context<AppEnv>): boolean {
  return c.var.services.settings.get("coreReturnHttpsUrls") || viaHttps(c);
}

/** Sets the cookie `name` on the answer (see the module's doc for its attributes). */
export function setServiceCookie(
  c: Context<AppEnv>,
  name: string,
  value: string,
  { path, maxAge, httpOnly }: CookieOptions,
): void {
  setCookie(c, name, value, { httpOnly, sameSite: "Lax", path, maxAge, secure: secureCookies(c) });
}

/** Removes the cookie `name` set for `path` (an expired one, with the same attributes). */
export function clearServiceCookie(c: Context<AppEnv>, name: string, path: string): void {
  deleteCookie(c, name, { path, httpOnly: true, sameSite: "Lax", secure: secureCookies(c) });
}
