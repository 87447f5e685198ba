/**
 * The absolute links the service hands out (short URLs, file URLs): the host
 * is a pick from the client's requested domains, else `coreDefaultDomain`,
 * else the request's own host; the scheme is https iff `coreReturnHttpsUrls`.
 */
import type { Services } from "./services.ts";

/** The origin of returned links for a request to `host` that asked for `requested` domains. */
export function linkOrigin(s: Services, requested: string | undefined, host: string): string {
  const choices = (requested ?? "").split(",").map((d) => d.trim()).filter(Boolean);
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
