/**
 * A postgres.js client that replaces itself when one of its connections is
 * left broken by a known race: when the server drops a connection while a
 * small write waits in a `setImmediate`, Deno runs the write after
 * postgres.js nulled the socket (`clearImmediate` does not cancel it), which
 * throws an uncaught `TypeError` that ends the process (postgres.js issues
 * #1154 and #1208, Deno issue #34667). The soak hit it restarting PostgreSQL
 * under load (bench/results/soak.md). The error is caught here, and since
 * the connection it came from keeps a stale write buffer that would stall
 * its next startup, the whole client is replaced: new queries go to a fresh
 * pool, LISTENs are made again on it, and the old pool is ended.
 */
import postgres from "postgres";

type Sql = postgres.Sql;
type Listener = Parameters<Sql["listen"]>;

/** The clients to replace, each by its `replace` function. */
const clients = new Set<() => void>();
let guarded = false;

/** `true` for the postgres.js write to a connection it already closed. */
function closedSocketWrite(error: unknown): boolean {
  return error instanceof TypeError && /reading 'write'/.test(error.message) &&
    /postgres[@/][\d.]+\/src\/connection\.js/.test(error.stack ?? "");
}

/** Catches the race's error once per process, and has every client replaced. */
function guard(): void {
  if (guarded) return;
  guarded = true;
  globalThis.addEventListener("error", (event) => {
    if (!closedSocketWrite(event.error)) return;
    event.preventDefault();
    for (const replace of clients) replace();
  });
}

/**
 * A client made by `make`, and made again by it whenever one of its
 * connections hits the race; `end()` stops it for good.
 */
export function selfHealingClient(make: () => Sql): Sql {
  guard();
  let current = make();
  let replacing = false;
  const listeners: Listener[] = [];
  const replace = () => {
    if (replacing) return;
    replacing = true;
    // Once per burst: every connection of the pool may fail at the same moment.
    setTimeout(() => {
      const old = current;
      current = make();
      for (const listener of listeners) current.listen(...listener).catch(() => {});
      old.end({ timeout: 5 }).catch(() => {});
      replacing = false;
    }, 0);
  };
  clients.add(replace);
  return new Proxy(function () {} as unknown as Sql, {
    apply: (_target, _this, args) => (current as unknown as (...a: unknown[]) => unknown)(...args),
    get(_target, property) {
      if (property === "listen") {
        return (...listener: Listener) => {
          listeners.push(listener);
          return current.listen(...listener);
        };
      }
      if (property === "end") {
        return (options?: { timeout?: number }) => {
          clients.delete(replace);
          return current.end(options);
        };
      }
      const value = (current as unknown as Record<PropertyKey, unknown>)[property];
      return typeof value === "function" ? value.bind(current) : value;
    },
  });
}

/** postgres.js's codes for a connection it could not open or lost. */
const LOST_CONNECTION = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

/**
 * `true` for an error that says the server is out of reach rather than the
 * query wrong: postgres.js's lost or unopened connection, SQLSTATE class 08
 * (connection exception), 57P01–57P03 (shut down, crashed, starting up) and
 * 53300 (too many connections). (A refused or reset socket carries the OS's
 * code, which the error handler treats alike for every service.)
 */
export function connectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  return LOST_CONNECTION.has(code) || code.startsWith("08") || /^57P0[123]$/.test(code) ||
    code === "53300";
}

/**
 * Seconds before the next attempt to open a connection after `attempt`
 * failures in a row: 0.05, 0.1, 0.2… and at most 1. postgres.js's own delay
 * grows to 20 s, and queries wait for it: after a few seconds of outage a
 * restarted server went unused for 8–16 s (bench/results/soak.md).
 */
export function reconnectDelay(attempt: number): number {
  return Math.min(0.05 * 2 ** attempt, 1);
}

/**
 * A {@link selfHealingClient} of `url` with at most `max` connections, each
 * named `name` to the server and closed after `idleSeconds` unused (never
 * when `0`).
 */
export function openClient(
  url: string,
  { max, name = "ferry", idleSeconds = 0 }: { max: number; name?: string; idleSeconds?: number },
): Sql {
  return selfHealingClient(() =>
    postgres(url, {
      max,
      onnotice: () => {},
      connection: { application_name: name },
      backoff: reconnectDelay,
      idle_timeout: idleSeconds,
    })
  );
}
