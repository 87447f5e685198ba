/**
 * The fast path the server asks before the app for `GET /api/healthcheck` while the last
 * probe of the store and the datasource passed under a second ago
 * (`core/health.ts`): the app's 200 `{"pass":true}`, with the same CORS
 * header and log line, answered without a `Promise` or Hono's context. A
 * load balancer polling it then costs next to nothing. Otherwise (no fresh
 * probe, a failed one, the feature off) the request goes to the app.
 */
import { HEALTHY, healthyNow } from "../core/health.ts";
import type { Services } from "../core/services.ts";
import { ANY_ORIGIN, logRequest } from "./middleware/app_wide.ts";
import { rawPath } from "./redirects.ts";

/** The healthcheck's path. */
const PATH = "/api/healthcheck";
const BODY = JSON.stringify(HEALTHY);

/**
 * The healthcheck's fast path over `services`: the 200 for a request when it
 * can give it, else `null` (ask the app).
 */
export function fastHealthcheck(
  services: Services,
  logRequests: boolean,
): (request: Request) => Response | null {
  return (request) => {
    if (request.method !== "GET" || rawPath(request.url) !== PATH) return null;
    const start = logRequests ? performance.now() : 0;
    if (healthyNow(services) === null) return null;
    const response = new Response(BODY, {
      headers: { "Content-Type": "application/json", [ANY_ORIGIN[0]]: ANY_ORIGIN[1] },
    });
    if (logRequests) logRequest(services, "GET", PATH, 200, start);
    return response;
  };
}
