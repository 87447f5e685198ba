/** The rate-limit middleware each declared route gets for its policy. */
import type { MiddlewareHandler } from "hono";
import { checkRateLimit, type RateLimitPolicy } from "../../core/rate_limit.ts";
import { type AppEnv, clientIp } from "../env.ts";

/** Counts the request (after authentication, so the key is the user when known). */
export function rateLimit(policy: RateLimitPolicy): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const state = await checkRateLimit(c.var.services, policy, {
      user: c.var.user,
      ip: clientIp(c),
      method: c.req.method,
      path: c.req.path,
      chunked: c.req.header("x-service-p-filename") !== undefined ||
        c.req.header("x-zipline-p-filename") !== undefined,
    });
    await next();
    if (state) {
      c.header("X-RateLimit-Limit", String(state.limit));
      c.header("X-RateLimit-Remaining", String(state.remaining));
      c.header("X-RateLimit-Reset", String(state.reset));
    }
  };
}
