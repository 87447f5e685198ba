/** The Hono environment every Ferry router shares. */
import type { Context } from "hono";
import type { SessionRecord, UserRecord } from "../db/store.ts";
import type { Services } from "../core/services.ts";

/** Context variables set by the app's middleware. */
export interface AppEnv {
  Variables: {
    services: Services;
    /** The authenticated user, `null` when anonymous. Set by the auth middleware. */
    user: UserRecord | null;
    /** The session the request came with, `null` for token auth or anonymous. */
    session: SessionRecord | null;
    /** Set in tests: responses are checked against their declared schemas. */
    checkResponses: boolean;
  };
}

/** The authenticated user of a route whose auth level is above `none`. */
export function currentUser(c: Context<AppEnv>): UserRecord {
  const user = c.var.user;
  if (!user) throw new Error("currentUser on a route without authentication");
  return user;
}

/**
 * The client's IP address: the socket's, or `X-Forwarded-For`'s first entry
 * when `coreTrustProxy` is on. Read on demand, as few requests need it.
 */
export function clientIp(c: Context<AppEnv>): string {
  const forwarded = c.get("services").settings.get("coreTrustProxy")
    ? c.req.header("x-forwarded-for")?.split(",")[0]?.trim()
    : undefined;
  const info = c.env as Deno.ServeHandlerInfo<Deno.NetAddr> | undefined;
  return forwarded || info?.remoteAddr?.hostname || "unknown";
}
