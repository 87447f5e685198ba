/**
 * The fast path the server asks before the app, for its busiest public
 * request: `GET <urlsRoute>/<name>` of a short URL whose record the store's
 * cache holds and that needs neither a password nor an exact view count. It
 * answers without a `Promise`, which lets `Deno.serve` send the response at
 * once, and without Hono: the public route's 302 ({@link redirectTo}), the
 * view counted in the store's batch, finished as every answer is (the CORS
 * header and the log line, `front_door.ts`). It
 * answers only what the app's public catch-all would: a name the public
 * route asks for ({@link shortUrlName}) on a path under none the app routes
 * elsewhere ({@link ROUTED}). Every other request is `null`: ask the app.
 */
import type { Services } from "../core/services.ts";
import { RESERVED_ROUTES } from "../core/settings/registry.ts";
import { freeRedirect } from "../core/urls.ts";
import { visitOf } from "../core/url_rules.ts";
import { requestIp } from "./env.ts";
import type { FastPath, Finish } from "./front_door.ts";
import { rawPath, redirectTo, shortUrlName } from "./redirects.ts";

/**
 * The paths (and everything under them) that the app serves with routes of
 * its own: the reserved routes, and the pages and files outside them. A test
 * holds this list to the app's route table.
 */
export const ROUTED = [...RESERVED_ROUTES, "/folder", "/request", "/assets", "/favicon.svg"];

/** Whether the app routes a GET for `path` (decoded) elsewhere than to its public catch-all. */
function routedElsewhere(path: string): boolean {
  const lower = path.toLowerCase();
  return ROUTED.some((route) => lower === route || lower.startsWith(`${route}/`));
}

/** The fast path over `services`, its answers finished by `finish`. */
export function fastPublic(services: Services, finish: Finish): FastPath {
  return (request, info) => {
    if (request.method !== "GET") return null;
    const began = finish.begin();
    const route = services.settings.get("urlsRoute");
    const name = shortUrlName(route, rawPath(request.url));
    if (name === null || name.includes("/")) return null;
    const path = `${route === "/" ? "" : route}/${name}`;
    if (routedElsewhere(path)) return null;
    const url = services.store.urls.resolveCached(name);
    if (!url) return null;
    const ip = () => requestIp(services, request, info);
    const destination = freeRedirect(services, url, visitOf(request, ip));
    if (destination === null) return null;
    return finish.done(redirectTo(destination), "GET", path, began);
  };
}
