/** The rate-limit middleware each declared route gets for its policy. */
import type { MiddlewareHandler } from "hono";
import { checkRateLimit, limitsApply, type RateLimitPolicy } from "../../core/rate_limit.ts";
import { type OptionHeader, optionHeaders } from "../../core/files/options.ts";
import { type AppEnv, clientIp } from "../env.ts";

/**
 * The upload a chunk names (`p-identifier`) when `header` carries a chunk's
 * `p-filename`; `null` otherwise.
 */
function chunkOf(header: OptionHeader): string | null {
  return header("p-filename") !== undefined ? header("p-identifier") ?? null : null;
}

/**
 * Counts the request (after authentication, so the key is the user when known).
 * The `X-RateLimit-*` headers go straight onto the finished response: Hono's
 * `c.header` after the handler would copy the whole response once per header.
 */
export function rateLimit(policy: RateLimitPolicy): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!limitsApply(c.var.services, policy)) return await next();
    // The option headers are held to their bounds here already (a 400 past one).
    const header = policy === "chunks" ? optionHeaders(c.req.raw.headers) : null;
    const state = await checkRateLimit(c.var.services, policy, {
      user: c.var.user,
      ip: clientIp(c),
      method: c.req.method,
      path: c.req.path,
      // A tus request names its upload in the path (`/upload/tus/{id}`).
      chunkOf: header ? chunkOf(header) ?? c.req.param("id") ?? null : null,
      request: header?.("request") ?? null,
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
