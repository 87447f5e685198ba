/**
 * The reference point for big downloads: a bare `Deno.serve` answering every
 * GET with the file `BENCH_FILE` as `FsFile.readable` (which Deno streams
 * from the file without passing the bytes through JavaScript), on 127.0.0.1,
 * port from `SERVICE_PORT`; `/ready` answers 200 without the file. Whatever
 * Ferry's download costs beyond this is Ferry's.
 */
const path = Deno.env.get("BENCH_FILE")!;

Deno.serve(
  { hostname: "127.0.0.1", port: Number(Deno.env.get("SERVICE_PORT") ?? 0) },
  async (request) => {
    if (new URL(request.url).pathname === "/ready") return new Response("ready");
    const file = await Deno.open(path);
    const { size } = await file.stat();
    return new Response(file.readable, {
      headers: { "content-type": "application/octet-stream", "content-length": String(size) },
    });
  },
);
