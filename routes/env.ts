/** The Hono environment every Ferry router shares. */
import type { Context } from "hono";
import type { ApiKeyRecord } from "../db/api_keys.ts";
import type { SessionRecord } from "../db/sessions.ts";
import type { UserRecord } from "../db/users.ts";
import type { Services } from "../core/services.ts";
import type { Attempt } from "../core/password_attempts.ts";
import { serverHosts } from "../core/links.ts";
import type { RequestSource } from "../core/sessions.ts";
import { type VisitSignals, visitSignals } from "../core/visits/record.ts";

/** Context variables set by the app's middleware. */
export interface AppEnv {
  Variables: {
    services: Services;
    /** The authenticated user, `null` when anonymous. Set by the auth middleware. */
    user: UserRecord | null;
    /** The session the request came with, `null` for token auth or anonymous. */
    session: SessionRecord | null;
    /** The API key the request came with (`core/api_keys.ts`), `null` otherwise. */
    apiKey: ApiKeyRecord | null;
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
 * `X-Forwarded-For` that the trusted proxies added (see {@link forwardedEntry}).
 * Read on demand, as few requests need it.
 */
export function clientIp(c: Context<AppEnv>): string {
  return requestIp(c.get("services"), c.req.raw, c.env as ServeInfo);
}

/** What `Deno.serve` tells a handler of the connection, when it is served (not in tests). */
export type ServeInfo = Deno.ServeHandlerInfo<Deno.NetAddr> | undefined;

/** {@link clientIp} of a request outside Hono: `request` as it came on the connection `info`. */
export function requestIp(services: Services, request: Request, info: ServeInfo): string {
  return trustedForwarded(services, request, "x-forwarded-for") ?? info?.remoteAddr?.hostname ??
    "unknown";
}

/**
 * The entry of an `X-Forwarded-*` list that the first trusted proxy wrote,
 * with `coreTrustProxy` on (see {@link forwardedEntry}); `null` when the
 * proxy is not trusted or the header is absent.
 */
function trustedForwarded(services: Services, request: Request, header: string): string | null {
  const { settings } = services;
  if (!settings.get("coreTrustProxy")) return null;
  return forwardedEntry(request.headers.get(header), settings.get("coreTrustProxyHops"));
}

/**
 * The entry of an `X-Forwarded-For` (or `-Proto`, `-Host`) list that the
 * first of `hops` trusted proxies wrote: each proxy appends what it saw (the
 * address it was reached from), so that entry is `hops` places from the right;
 * whatever is left of it the client wrote itself. A list shorter than `hops`
 * (a request that passed fewer proxies, or a proxy that replaces the header)
 * gives its leftmost entry, which a trusted proxy still wrote. `null` without
 * entries.
 */
export function forwardedEntry(header: string | null | undefined, hops: number): string | null {
  // One entry (one proxy, as most requests come): no list made (each visit reads it).
  if (header != null && hops >= 1 && !header.includes(",")) return header.trim() || null;
  const entries = (header ?? "").split(",").map((e) => e.trim()).filter((e) => e !== "");
  if (entries.length === 0) return null;
  return entries[Math.max(0, entries.length - hops)];
}

/**
 * The host (name and port) the client sent the request to: a trusted proxy's
 * `X-Forwarded-Host`, else the request's own `Host`.
 */
export function servedHost(c: Context<AppEnv>): string {
  const forwarded = trustedForwarded(c.var.services, c.req.raw, "x-forwarded-host");
  return (forwarded ?? new URL(c.req.url).host).toLowerCase();
}

/**
 * Whether the client reached the service over HTTPS: on Ferry's own TLS
 * socket, or, by a trusted proxy's `X-Forwarded-Proto`, at the proxy.
 */
export function viaHttps(c: Context<AppEnv>): boolean {
  const forwarded = trustedForwarded(c.var.services, c.req.raw, "x-forwarded-proto");
  return (forwarded ?? new URL(c.req.url).protocol.slice(0, -1)).toLowerCase() === "https";
}

/** Where the request comes from and which hosts are the server's, for the cross-site checks. */
export function requestSource(c: Context<AppEnv>): RequestSource {
  const settings = c.var.services.settings;
  return {
    fetchSite: c.req.header("sec-fetch-site"),
    origin: c.req.header("origin"),
    referer: c.req.header("referer"),
    hosts: serverHosts({
      coreDefaultDomain: settings.get("coreDefaultDomain"),
      domains: settings.get("domains"),
    }, servedHost(c)),
  };
}

/** Who visits, read when a visit is recorded (`core/visits/record.ts`). */
export function visitor(c: Context<AppEnv>): () => VisitSignals {
  return () => visitSignals(c.req.raw, () => clientIp(c));
}

/** Who presents a password or its grant: client IP and user agent, for the limit and the log. */
export function attempter(c: Context<AppEnv>): Attempt {
  return { ip: clientIp(c), ua: c.req.header("user-agent") ?? "" };
}
