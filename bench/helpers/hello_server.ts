/**
 * The reference point for HTTP benchmarks: a bare `Deno.serve` answering
 * "Hello, World!" on 127.0.0.1, port from `SERVICE_PORT`. Whatever Ferry adds
 * (Hono, validation, auth, the store) shows as the distance from this.
 */
Deno.serve(
  { hostname: "127.0.0.1", port: Number(Deno.env.get("SERVICE_PORT") ?? 0) },
  () => new Response("Hello, World!"),
);
