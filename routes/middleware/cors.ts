/**
 * CORS for every origin, as `hono/cors` with its defaults answers it:
 * preflights (`OPTIONS`) by `cors()` itself, and `Access-Control-Allow-Origin: *`
 * on every other response. That header is set once the response exists:
 * `cors()` sets it before the handler runs, which makes Hono build a
 * placeholder response and then copy every real response and its headers.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";

const preflight = cors();

/** The app's CORS middleware. */
export const corsAnyOrigin: MiddlewareHandler = async (c, next) => {
  if (c.req.method === "OPTIONS") return await preflight(c, next);
  await next();
  c.res.headers.set("Access-Control-Allow-Origin", "*");
};
