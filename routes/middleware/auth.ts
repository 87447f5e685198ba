/** The auth middleware each declared route gets for its auth level. */
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { KeyAccess } from "../../core/api_keys.ts";
import { authenticate, type AuthLevel, refuseCrossSite } from "../../core/auth.ts";
import { SESSION_COOKIE } from "../../core/sessions.ts";
import { type AppEnv, requestSource } from "../env.ts";

/**
 * Sets `user`, `session` and `apiKey` on the context, refusing callers below
 * `level` and API keys the route's `access` does not let in. First, on every
 * declared route whatever its level (those that read the cookie themselves
 * included), a change asked with the session cookie by another site is
 * refused with 403 (`refuseCrossSite`).
 */
export function requireAuth(level: AuthLevel, access: KeyAccess = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const credentials = {
      authorization: c.req.header("authorization"),
      sessionSecret: getCookie(c, SESSION_COOKIE),
    };
    refuseCrossSite(c.req.method, credentials, () => requestSource(c));
    const caller = await authenticate(c.var.services, credentials, level, access);
    c.set("user", caller.user);
    c.set("session", caller.session);
    c.set("apiKey", caller.key ?? null);
    await next();
  };
}
