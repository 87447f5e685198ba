/**
 * The fast path in front of Hono for the busiest public request: `GET
 * <urlsRoute>/<name>` of a short URL whose record is in the store's
 * one-second cache and that needs neither a password nor an exact view
 * count. It is answered without a `Promise`, which lets `Deno.serve` send the
 * response at once, and without Hono's context: the same 302, CORS header and
 * log line as the app's, the view counted in the store's batch. Every other
 * request, and this one whenever the app would route it elsewhere or the
 * record is not cached, goes to the app unchanged.
 */
import type { Services } from "../core/services.ts";
import { freeRedirect } from "../core/urls.ts";
import { nameUnder } from "../core/links.ts";
import type { newRouter } from "./define.ts";
import { ANY_ORIGIN, logRequest } from "./middleware/app_wide.ts";
import { isApiPath, publicGet, rawPath } from "./redirects.ts";

type App = ReturnType<typeof newRouter>;

/**
 * The redirect's `Location`: as Hono's `c.redirect` writes it, percent-encoding
 * a destination with characters a header cannot carry.
 */
function location(destination: string): string {
  return /[\u0100-\uFFFF]/.test(destination) ? encodeURI(destination) : destination;
}

/** Whether the app routes a GET for `path` to the public catch-all and to nothing but the app-wide middleware. */
function routedToPublic(app: App, path: string): boolean {
  const [handlers] = app.router.match("GET", path);
  return handlers.length === 2 && handlers[1][0][0] === publicGet;
}

/** The 302 for `request` when the fast path can answer it, else `null`. */
function hotRedirect(
  app: App,
  services: Services,
  logRequests: boolean,
  request: Request,
): Response | null {
  if (request.method !== "GET") return null;
  const start = logRequests ? performance.now() : 0;
  const raw = rawPath(request.url);
  // As the public GET asks: never for the API, invite links before short URLs.
  if (isApiPath(raw) || nameUnder("/invite", raw) !== null) return null;
  const name = nameUnder(services.settings.get("urlsRoute"), raw);
  if (name === null) return null;
  const url = services.store.urls.resolveCached(name);
  if (!url) return null;
  const path = app.getPath(request);
  if (!routedToPublic(app, path)) return null;
  const destination = freeRedirect(services, url);
  if (destination === null) return null;
  const response = new Response(null, {
    status: 302,
    headers: { Location: location(destination), [ANY_ORIGIN[0]]: ANY_ORIGIN[1] },
  });
  if (logRequests) logRequest(services, "GET", path, 302, start);
  return response;
}

/** Puts the fast path in front of `app.fetch` (and so of `app.request`). */
export function withHotRedirects(app: App, services: Services, logRequests: boolean): void {
  const fetch = app.fetch;
  app.fetch = (request, ...rest) =>
    hotRedirect(app, services, logRequests, request) ?? fetch(request, ...rest);
}
