/**
 * A small round-robin HTTP load balancer on 127.0.0.1, as an operator would put
 * in front of several Ferry instances: each request goes to the next backend;
 * a backend that refuses a connection is left out for a second, and a request
 * without a body is tried on the next one. A request whose body was already
 * sent somewhere that failed answers 502. Each answer names the backend that
 * gave it in `x-soak-backend`.
 */
import { freePort } from "../postgres_cluster.ts";

/** A running balancer. */
export interface Balancer {
  /** e.g. `http://127.0.0.1:41234`. */
  readonly origin: string;
  /** Requests answered by each backend, by index. */
  readonly served: number[];
  close(): Promise<void>;
}

const RESTING_MS = 1000;

/** Starts a balancer over `backends` (origins, e.g. `http://127.0.0.1:8001`). */
export function startBalancer(backends: string[]): Balancer {
  const port = freePort();
  const served = backends.map(() => 0);
  const restingUntil = backends.map(() => 0);
  let next = 0;

  const pick = (): number => {
    for (let tries = 0; tries < backends.length; tries++) {
      const i = next++ % backends.length;
      if (restingUntil[i] <= Date.now()) return i;
    }
    return next++ % backends.length;
  };

  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.delete("host");
    headers.set("accept-encoding", "identity"); // pass bodies through as they are
    const retryable = request.body === null;
    for (let attempt = 0; attempt < backends.length; attempt++) {
      const i = pick();
      try {
        const answer = await fetch(backends[i] + url.pathname + url.search, {
          method: request.method,
          headers,
          body: request.body,
          redirect: "manual",
        });
        served[i]++;
        const out = new Headers(answer.headers);
        out.set("x-soak-backend", String(i));
        return new Response(answer.body, { status: answer.status, headers: out });
      } catch {
        restingUntil[i] = Date.now() + RESTING_MS;
        if (!retryable) break;
      }
    }
    return Response.json({ error: "Bad Gateway", statusCode: 502 }, { status: 502 });
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, handler);
  return {
    origin: `http://127.0.0.1:${port}`,
    served,
    close: () => server.shutdown(),
  };
}
