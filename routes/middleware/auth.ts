/** The auth middleware each declared route gets for its auth level. */
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { authenticate, type AuthLevel } from "../../core/auth.ts";
import { SESSION_COOKIE } from "../../core/sessions.ts";
import type { AppEnv } from "../env.ts";

/** Sets `user` and `session` on the context, refusing callers below `level`. */
export function requireAuth(level: AuthLevel): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await authenticate(c.var.services, {
      authorization: c.req.header("authorization"),
      sessionSecret: getCookie(c, SESSION_COOKIE),
    }, level);
    c.set("user", caller.user);
    c.set("session", caller.session);
    await next();
  };
}
