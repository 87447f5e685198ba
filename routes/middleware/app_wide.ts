/**
 * The one middleware every request passes: the context variables, CORS for
 * every origin and, when asked, the request log. One middleware rather than
 * one per job, since each is an extra async step of Hono's per request.
 *
 * CORS answers as `hono/cors` with its defaults: preflights (`OPTIONS`) by
 * `cors()` itself, and `Access-Control-Allow-Origin: *` on every other
 * response. That header is set once the response exists: `cors()` sets it
 * before the handler runs, which makes Hono build a placeholder response and
 * then copy every real response and its headers.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { Services } from "../../core/services.ts";
import type { AppEnv } from "../env.ts";

const preflight = cors();

/** The CORS header every non-preflight response gets. */
export const ANY_ORIGIN = ["Access-Control-Allow-Origin", "*"] as const;

/** Logs one answered request that started at `start` (`performance.now()`). */
export function logRequest(
  services: Services,
  method: string,
  path: string,
  status: number,
  start: number,
): void {
  services.logger.info("request", {
    method,
    path,
    status,
    ms: Math.round((performance.now() - start) * 10) / 10,
  });
}

/** What {@link appWide} does beyond the variables and CORS. */
export interface AppWideOptions {
  /** Check every response against its declared schema (tests only). */
  checkResponses: boolean;
  /** Log each request once answered: method, path, status and time taken. */
  logRequests: boolean;
}

/** The app-wide middleware over `services`. */
export function appWide(services: Services, options: AppWideOptions): MiddlewareHandler<AppEnv> {
  const { checkResponses, logRequests } = options;
  return async (c, next) => {
    const start = logRequests ? performance.now() : 0;
    c.set("services", services);
    c.set("user", null);
    c.set("session", null);
    c.set("apiKey", null);
    c.set("checkResponses", checkResponses);
    if (c.req.method === "OPTIONS") {
      const answer = await preflight(c, next);
      if (answer) c.res = answer;
    } else {
      await next();
      c.res.headers.set(...ANY_ORIGIN);
    }
    if (logRequests) logRequest(services, c.req.method, c.req.path, c.res.status, start);
  };
}
