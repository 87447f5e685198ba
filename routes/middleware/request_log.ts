/** Request logging: method, path, status and time taken, one line a request. */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";

/** Logs every request once it is answered. */
export const requestLog: MiddlewareHandler<AppEnv> = async (c, next) => {
  const start = performance.now();
  await next();
  c.get("services").logger.info("request", {
    method: c.req.method,
    path: c.req.path,
    status: c.res.status,
    ms: Math.round((performance.now() - start) * 10) / 10,
  });
};
