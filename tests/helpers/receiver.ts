/** A real local HTTP server that records what webhooks send it. */

/** One request the receiver got. */
export interface Received {
  method: string;
  headers: Headers;
  body: string;
}

/** A running receiver. */
export interface Receiver {
  /** Its URL, e.g. `http://127.0.0.1:41234/hook`. */
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/**
 * Starts a receiver on a free loopback port. `answer(n)` gives the status for
 * the n-th request (0-based); 200 by default.
 */
export function startReceiver(answer: (n: number) => number = () => 200): Receiver {
  const received: Received[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const n = received.length;
    received.push({ method: req.method, headers: req.headers, body: await req.text() });
    return new Response(null, { status: answer(n) });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/hook`,
    received,
    close: () => server.shutdown(),
  };
}
