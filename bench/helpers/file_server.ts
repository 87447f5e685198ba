/**
 * The reference point for file downloads: a bare `Deno.serve` answering every
 * GET with the file `BENCH_FILE`, on 127.0.0.1, port from `SERVICE_PORT`;
 * `/ready` answers 200 without the file. With `BENCH_FILE_MODE=read` it reads
 * the whole file per request (`Deno.readFile`: the ceiling for small files);
 * otherwise it streams it as `FsFile.readable` (which Deno sends from the file
 * without passing the bytes through JavaScript: the ceiling for big ones).
 * Whatever Ferry's download costs beyond this is Ferry's.
 */
const path = Deno.env.get("BENCH_FILE")!;
const read = Deno.env.get("BENCH_FILE_MODE") === "read";

Deno.serve(
  { hostname: "127.0.0.1", port: Number(Deno.env.get("SERVICE_PORT") ?? 0) },
  async (request) => {
    if (new URL(request.url).pathname === "/ready") return new Response("ready");
    if (read) {
      return new Response(await Deno.readFile(path), {
        headers: { "content-type": "application/octet-stream" },
      });
    }
    const file = await Deno.open(path);
    const { size } = await file.stat();
    return new Response(file.readable, {
      headers: { "content-type": "application/octet-stream", "content-length": String(size) },
    });
  },
);
