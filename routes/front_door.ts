/**
 * The front door: what every request the server answers has in common,
 * whoever answers it: one of the fast paths asked before the app
 * (`fast_public.ts`, `fast_health.ts`, `fast_raw.ts`, each a {@link FastPath})
 * or the app itself (its app-wide middleware, `middleware/app_wide.ts`).
 * Each finishes its answer with the same {@link Finish}: the CORS header for
 * every origin, then, when asked, the request log line. A change to either is
 * made here, once.
 */
import type { Services } from "../core/services.ts";
import type { ServeInfo } from "./env.ts";

/**
 * A fast path: the answer to a request when it can give it without the app
 * (a `Response` at once where it can, so that `Deno.serve` sends it without
 * waiting a turn), else `null`: ask the next, and last the app.
 */
export type FastPath = (request: Request, info?: ServeInfo) => Response | Promise<Response> | null;

/** The CORS header every response gets (as `hono/cors` answers with its defaults). */
export const ANY_ORIGIN = ["Access-Control-Allow-Origin", "*"] as const;

/** The finishing step of a server's answers. */
export interface Finish {
  /** When a request began, to pass to {@link Finish.done} (`0` when requests are not logged). */
  begin(): number;
  /**
   * Finishes `response`, the answer to `method path` begun at `began`: sets
   * the CORS header, and logs the request (method, path, status, time taken).
   */
  done(response: Response, method: string, path: string, began: number): Response;
}

/** The finishing step over `services`, logging each request when `logRequests`. */
export function finishing(services: Services, logRequests: boolean): Finish {
  return {
    begin: logRequests ? () => performance.now() : () => 0,
    done(response, method, path, began) {
      response.headers.set(...ANY_ORIGIN);
      if (logRequests) {
        services.logger.info("request", {
          method,
          path,
          status: response.status,
          ms: Math.round((performance.now() - began) * 10) / 10,
        });
      }
      return response;
    },
  };
}
