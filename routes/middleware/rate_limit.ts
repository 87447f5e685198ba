/** The rate-limit middleware each declared route gets for its policy. */
import type { MiddlewareHandler } from "hono";
import { checkRateLimit, limitsApply, type RateLimitPolicy } from "../../core/rate_limit.ts";
import { type AppEnv, clientIp } from "../env.ts";

/**
 * Counts the request (after authentication, so the key is the user when known).
 * The `X-RateLimit-*` headers go straight onto the finished response: Hono's
 * `c.header` after the handler would copy the whole response once per header.
 */
export function rateLimit(policy: RateLimitPolicy): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!limitsApply(c.var.services, policy)) return await next();
    const state = await checkRateLimit(c.var.services, policy, {
      user: c.var.user,
      ip: clientIp(c),
      method: c.req.method,
      path: c.req.path,
      chunked: policy === "chunks" &&
        (c.req.header("x-service-p-filename") !== undefined ||
          c.req.header("x-zipline-p-filename") !== undefined),
    });
    await next();
    if (state) {
      const headers = c.res.headers;
      headers.set("X-RateLimit-Limit", String(state.limit));
      headers.set("X-RateLimit-Remaining", String(state.remaining));
      headers.set("X-RateLimit-Reset", String(state.reset));
    }
  };
}
