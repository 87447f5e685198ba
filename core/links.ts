/**
 * The absolute links the service hands out (short URLs, file URLs): the host
 * is a pick from the client's requested domains, else `coreDefaultDomain`,
 * else the request's own host; the scheme is https iff `coreReturnHttpsUrls`.
 * A client may only ask for a domain of this server (`coreDefaultDomain`, the
 * `domains` list, or the host it sent the request to), so a link in a
 * response, a webhook or a chat message never points elsewhere.
 */
import { badRequest } from "./errors.ts";
import type { Services } from "./services.ts";
import type { Settings } from "./settings/registry.ts";

/** The settings that name this server's domains. */
export type DomainSettings = Pick<Settings, "coreDefaultDomain" | "domains">;

/**
 * The hosts (name and port, lowercased) this server answers as for a request
 * to `host`: `coreDefaultDomain`, every entry of `domains`, and `host` itself.
 */
export function serverHosts(settings: DomainSettings, host: string): string[] {
  return [settings.coreDefaultDomain, ...settings.domains, host]
    .filter((d): d is string => typeof d === "string")
    .map((d) => d.toLowerCase());
}

/**
 * The comma list `requested` as domains (trimmed, empty entries dropped);
 * 400 when one is not `coreDefaultDomain`, in `domains` or the request's own
 * `host` (compared without case, port included).
 */
export function requestedDomains(
  settings: DomainSettings,
  requested: string | undefined,
  host: string,
): string[] {
  const domains = (requested ?? "").split(",").map((d) => d.trim()).filter(Boolean);
  const allowed = serverHosts(settings, host);
  const foreign = domains.find((d) => !allowed.includes(d.toLowerCase()));
  if (foreign !== undefined) {
    throw badRequest(`bad options[domain]: ${foreign} is not a domain of this server`);
  }
  return domains;
}

/**
 * The origin of returned links for a request to `host` that asked for
 * `requested` domains (one picked at random); 400 for a foreign domain.
 */
export function linkOrigin(s: Services, requested: string | undefined, host: string): string {
  const settings = {
    coreDefaultDomain: s.settings.get("coreDefaultDomain"),
    domains: s.settings.get("domains"),
  };
  const choices = requestedDomains(settings, requested, host);
  const picked = choices.length > 0
    ? choices[s.random.bytes(1)[0] % choices.length]
    : s.settings.get("coreDefaultDomain") ?? host;
  return `${s.settings.get("coreReturnHttpsUrls") ? "https" : "http"}://${picked}`;
}

/** `<origin><route>/<name>`, the route left out when it is `/`. */
export function routeLink(origin: string, route: string, name: string): string {
  return `${origin}${route === "/" ? "" : route}/${encodeURIComponent(name)}`;
}

/** The name a request path asks for under `route` (one segment, URL-decoded), or `null`. */
export function nameUnder(route: string, path: string): string | null {
  const prefix = route === "/" ? "/" : `${route}/`;
  if (!path.startsWith(prefix)) return null;
  const segment = path.slice(prefix.length);
  if (segment === "" || segment.includes("/")) return null;
  try {
    return storable(decodeURIComponent(segment));
  } catch {
    return null;
  }
}

/** `name`, or `null` when it holds a NUL: no store keeps one in text, so nothing is named so. */
export function storable(name: string): string | null {
  return name.includes("\u0000") ? null : name;
}
