/**
 * A TCP forwarder on a port of 127.0.0.1 that can be shut: while shut, its
 * port refuses connections and the connections it carried are cut, as when a
 * server becomes unreachable. The soak puts one in front of s3rver.
 */
import { freePort } from "../postgres_cluster.ts";

/** A forwarder in front of `target`. */
export interface Gate {
  /** The address clients use, e.g. `http://127.0.0.1:41234`. */
  readonly origin: string;
  /** Refuses new connections and cuts the open ones. */
  shut(): void;
  /** Accepts connections again, on the same port. */
  open(): void;
  /** Shuts the gate for good. */
  close(): void;
}

/** Opens a gate on a free port forwarding to `target` (`host:port`). */
export function openGate(target: { hostname: string; port: number }): Gate {
  const port = freePort();
  const connections = new Set<Deno.Conn>();
  let listener: Deno.Listener | null = null;

  const forward = async (client: Deno.Conn) => {
    let server: Deno.Conn | null = null;
    connections.add(client);
    try {
      server = await Deno.connect(target);
      connections.add(server);
      await Promise.all([
        client.readable.pipeTo(server.writable),
        server.readable.pipeTo(client.writable),
      ]);
    } catch {
      // cut by shut(), or one side went away
    } finally {
      for (const conn of [client, server]) {
        if (!conn) continue;
        connections.delete(conn);
        try {
          conn.close();
        } catch {
          // already closed
        }
      }
    }
  };

  const open = () => {
    if (listener) return;
    const accepting = Deno.listen({ hostname: "127.0.0.1", port });
    listener = accepting;
    (async () => {
      try {
        for await (const conn of accepting) forward(conn);
      } catch {
        // closed
      }
    })();
  };

  const shut = () => {
    listener?.close();
    listener = null;
    for (const conn of connections) {
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
    connections.clear();
  };

  open();
  return { origin: `http://127.0.0.1:${port}`, shut, open, close: shut };
}
