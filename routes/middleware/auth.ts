/** The auth middleware each declared route gets for its auth level. */
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { KeyAccess } from "../../core/api_keys.ts";
import { authenticate, type AuthLevel } from "../../core/auth.ts";
import { SESSION_COOKIE } from "../../core/sessions.ts";
import type { AppEnv } from "../env.ts";

/**
 * Sets `user`, `session` and `apiKey` on the context, refusing callers below
 * `level` and API keys the route's `access` does not let in.
 */
export function requireAuth(level: AuthLevel, access: KeyAccess = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await authenticate(
      c.var.services,
      {
        authorization: c.req.header("authorization"),
        sessionSecret: getCookie(c, SESSION_COOKIE),
      },
      level,
      access,
    );
    c.set("user", caller.user);
    c.set("session", caller.session);
    c.set("apiKey", caller.key ?? null);
    await next();
  };
}
