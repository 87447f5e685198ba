/** The Hono environment every Ferry router shares. */
import type { Context } from "hono";
import type { SessionRecord } from "../db/sessions.ts";
import type { UserRecord } from "../db/users.ts";
import type { Services } from "../core/services.ts";
import type { Attempt } from "../core/password_attempts.ts";

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
 * The client's IP address: the socket's, or with `coreTrustProxy` the entry of
 * `X-Forwarded-For` that the trusted proxies added (see {@link forwardedClient}).
 * Read on demand, as few requests need it.
 */
export function clientIp(c: Context<AppEnv>): string {
  return requestIp(c.get("services"), c.req.raw, c.env as ServeInfo);
}

/** What `Deno.serve` tells a handler of the connection, when it is served (not in tests). */
export type ServeInfo = Deno.ServeHandlerInfo<Deno.NetAddr> | undefined;

/** {@link clientIp} of a request outside Hono: `request` as it came on the connection `info`. */
export function requestIp(services: Services, request: Request, info: ServeInfo): string {
  const { settings } = services;
  const forwarded = settings.get("coreTrustProxy")
    ? forwardedClient(request.headers.get("x-forwarded-for"), settings.get("coreTrustProxyHops"))
    : null;
  return forwarded ?? info?.remoteAddr?.hostname ?? "unknown";
}

/**
 * The client in an `X-Forwarded-For` list behind `hops` trusted proxies: each
 * proxy appends the address it was reached from, so the client is the entry
 * `hops` places from the right; whatever is left of it the client wrote itself.
 * A list shorter than `hops` (a request that passed fewer proxies) gives its
 * leftmost entry, which a trusted proxy still wrote. `null` without entries.
 */
export function forwardedClient(header: string | null | undefined, hops: number): string | null {
  const entries = (header ?? "").split(",").map((e) => e.trim()).filter((e) => e !== "");
  if (entries.length === 0) return null;
  return entries[Math.max(0, entries.length - hops)];
}

/** Who presents a password or its grant: client IP and user agent, for the limit and the log. */
export function attempter(c: Context<AppEnv>): Attempt {
  return { ip: clientIp(c), ua: c.req.header("user-agent") ?? "" };
}
