/**
 * Requests the `fetch` API cannot send: the app served on a local port, and a
 * raw TCP client that writes a request's head and part of its body, then
 * closes its write side before the declared `Content-Length` is reached.
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
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  // An answer that never comes fails the caller's check (status 0) rather than hanging it.
  const timer = setTimeout(() => conn.close(), 10_000);
  try {
    const head = [
      `${method} ${path} HTTP/1.1`,
      "host: 127.0.0.1",
      "connection: close",
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      `content-length: ${declared}`,
      "",
      "",
    ].join("\r\n");
    await conn.write(new TextEncoder().encode(head));
    await conn.write(body);
    await conn.closeWrite();
    const raw = new TextDecoder().decode(await readAll(conn));
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
