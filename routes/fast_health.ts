/**
 * The fast path the server asks before the app for `GET /api/healthcheck` while the last
 * probe of the store and the datasource passed under a second ago
 * (`core/health.ts`): the app's 200 `{"pass":true}`, finished as every answer
 * is (the CORS header and the log line, `front_door.ts`), without a `Promise`
 * or Hono's context. A
 * load balancer polling it then costs next to nothing. Otherwise (no fresh
 * probe, a failed one, the feature off) the request goes to the app.
 */
import { HEALTHY, healthyNow } from "../core/health.ts";
import type { Services } from "../core/services.ts";
import type { FastPath, Finish } from "./front_door.ts";
import { rawPath } from "./redirects.ts";

/** The healthcheck's path. */
const PATH = "/api/healthcheck";
const BODY = JSON.stringify(HEALTHY);

/**
 * The healthcheck's fast path over `services`, its answers finished by
 * `finish`: the 200 for a request when it can give it, else `null` (ask the app).
 */
export function fastHealthcheck(services: Services, finish: Finish): FastPath {
  return (request) => {
    if (request.method !== "GET" || rawPath(request.url) !== PATH) return null;
    const began = finish.begin();
    if (healthyNow(services) === null) return null;
    const response = new Response(BODY, { headers: { "Content-Type": "application/json" } });
    return finish.done(response, "GET", PATH, began);
  };
}
