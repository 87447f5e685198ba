/**
 * The one middleware every request passes: the context variables, CORS for
 * every origin and, when asked, the request log. One middleware rather than
 * one per job, since each is an extra async step of Hono's per request.
 *
 * CORS answers as `hono/cors` with its defaults: preflights (`OPTIONS`) by
 * `cors()` itself, and `Access-Control-Allow-Origin: *` on every response,
 * set by the front door's finishing step (`../front_door.ts`, which the fast
 * paths share) once the response exists: `cors()` sets it before the handler
 * runs, which makes Hono build a placeholder response and then copy every
 * real response and its headers.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { Services } from "../../core/services.ts";
import type { AppEnv } from "../env.ts";
import type { Finish } from "../front_door.ts";

const preflight = cors();

/**
 * Paths whose `OPTIONS` the routes answer themselves: tus's (`../tus.ts`),
 * where it is also the protocol's discovery request.
 */
const OWN_OPTIONS = /^\/api\/upload\/tus(?:\/[^/]*)?$/;

/** What {@link appWide} does beyond the variables and CORS. */
export interface AppWideOptions {
  /** Check every response against its declared schema (tests only). */
  checkResponses: boolean;
  /** The finishing step: the CORS header and the request log. */
  finish: Finish;
}

/** The app-wide middleware over `services`. */
export function appWide(services: Services, options: AppWideOptions): MiddlewareHandler<AppEnv> {
  const { checkResponses, finish } = options;
  return async (c, next) => {
    const began = finish.begin();
    c.set("services", services);
    c.set("user", null);
    c.set("session", null);
    c.set("apiKey", null);
    c.set("checkResponses", checkResponses);
    if (c.req.method === "OPTIONS" && !OWN_OPTIONS.test(c.req.path)) {
      const answer = await preflight(c, next);
      if (answer) c.res = answer;
    } else {
      await next();
    }
    finish.done(c.res, c.req.method, c.req.path, began);
  };
}
