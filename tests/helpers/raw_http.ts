/**
 * Requests the `fetch` API cannot send: the app served on a local port, and a
 * raw TCP client that writes a request's head and part of its body, then
 * closes its write side before the declared `Content-Length` is reached, or
 * streams a chunked body without any `Content-Length`.
 */
import type { TestApp } from "./app.ts";

/** What the server answered to a raw request. */
export interface RawReply {
  /** 0 when the connection closed without an answer. */
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** Serves `app` on a free local port until `fn` is done. */
export async function withServer<T>(app: TestApp, fn: (port: number) => Promise<T>): Promise<T> {
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    (req) => app.fetch(req),
  );
  try {
    return await fn(server.addr.port);
  } finally {
    await server.shutdown();
  }
}

/**
 * Sends `method path` with `headers`, a `Content-Length` of `declared` and
 * only `body`, half-closes the connection and reads the reply.
 */
export async function truncatedRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Uint8Array,
  declared: number,
): Promise<RawReply> {
  return await exchange(port, async (conn) => {
    await conn.write(head(method, path, { ...headers, "content-length": String(declared) }));
    await conn.write(body);
    await conn.closeWrite();
  });
}

/**
 * Sends `method path` with `headers` and a chunked body of `total` spaces
 * (no `Content-Length`), stopping early once the server stops taking it;
 * reads the reply.
 */
export async function chunkedRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  total: number,
): Promise<RawReply> {
  const size = 64 * 1024;
  const chunk = new TextEncoder().encode(`${size.toString(16)}\r\n${" ".repeat(size)}\r\n`);
  return await exchange(port, async (conn) => {
    await conn.write(head(method, path, { ...headers, "transfer-encoding": "chunked" }));
    try {
      for (let sent = 0; sent < total; sent += size) await conn.write(chunk);
      await conn.write(new TextEncoder().encode("0\r\n\r\n"));
    } catch {
      // the server answered and closed without reading the rest
    }
  });
}

/**
 * Sends `method path` with `headers` and no body: neither `Content-Length`
 * nor `Transfer-Encoding` (as `curl -X POST` sends it); reads the reply.
 */
export async function bodilessRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<RawReply> {
  return await exchange(port, async (conn) => {
    await conn.write(head(method, path, headers));
  });
}

/** A request head of `headers` that asks the server to close after answering. */
function head(method: string, path: string, headers: Record<string, string>): Uint8Array {
  const lines = [
    `${method} ${path} HTTP/1.1`,
    "host: 127.0.0.1",
    "connection: close",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return new TextEncoder().encode(lines.join("\r\n") + "\r\n\r\n");
}

/** Connects, lets `send` write while the reply is read, and parses the reply. */
async function exchange(port: number, send: (conn: Deno.Conn) => Promise<void>): Promise<RawReply> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  // An answer that never comes fails the caller's check (status 0) rather than hanging it.
  const timer = setTimeout(() => conn.close(), 10_000);
  try {
    const reply = readAll(conn);
    await send(conn);
    const raw = new TextDecoder().decode(await reply);
    const [top, ...rest] = raw.split("\r\n\r\n");
    const status = Number(top.split(" ")[1]) || 0;
    const text = rest.join("\r\n\r\n");
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON (or chunked): kept as text
    }
    return { status, body: parsed };
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // already closed by reading to the end
    }
  }
}

/** What `conn` sends until it closes (or resets: what came before). */
async function readAll(conn: Deno.Conn): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(16 * 1024);
  for (;;) {
    let n: number | null;
    try {
      n = await conn.read(buffer);
    } catch (error) {
      if (
        [Deno.errors.ConnectionReset, Deno.errors.BadResource, Deno.errors.Interrupted].some((e) =>
          error instanceof e
        )
      ) break;
      throw error;
    }
    if (n === null) break;
    chunks.push(buffer.slice(0, n));
  }
  return new Uint8Array(chunks.flatMap((c) => [...c]));
}
