/** Sets `ip`: the socket's address, or `X-Forwarded-For`'s first entry when `coreTrustProxy` is on. */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";

/** Reads the client IP once per request. */
export const clientIp: MiddlewareHandler<AppEnv> = async (c, next) => {
  const forwarded = c.get("services").settings.get("coreTrustProxy")
    ? c.req.header("x-forwarded-for")?.split(",")[0]?.trim()
    : undefined;
  const info = c.env as Deno.ServeHandlerInfo<Deno.NetAddr> | undefined;
  c.set("ip", forwarded || info?.remoteAddr?.hostname || "unknown");
  await next();
};
