/**
 * The reference point for small uploads: a bare `Deno.serve` that takes a
 * `multipart/form-data` POST (`request.formData()`), writes each file durably
 * the way Ferry's local datasource does (a staging file under `BENCH_DIR`,
 * written, `fdatasync`ed and renamed into place under a random name) and
 * answers JSON with the names, on 127.0.0.1, port from `SERVICE_PORT`;
 * `/ready` answers 200. No accounts, records, quotas or logs: what a durable
 * upload costs the runtime and the file system. Whatever Ferry's upload costs
 * beyond this is Ferry's.
 */
import { join } from "node:path";

const root = Deno.env.get("BENCH_DIR")!;
const staging = join(root, ".tmp");
await Deno.mkdir(staging, { recursive: true });

Deno.serve(
  { hostname: "127.0.0.1", port: Number(Deno.env.get("SERVICE_PORT") ?? 0) },
  async (request) => {
    if (new URL(request.url).pathname === "/ready") return new Response("ready");
    const names: string[] = [];
    for (const [, value] of await request.formData()) {
      if (!(value instanceof File)) continue;
      const name = crypto.randomUUID();
      const temporary = join(staging, name);
      const file = await Deno.open(temporary, { write: true, createNew: true });
      try {
        await file.write(await value.bytes());
        await file.syncData();
      } finally {
        file.close();
      }
      await Deno.rename(temporary, join(root, name));
      names.push(name);
    }
    return Response.json({ files: names.map((name) => ({ name })) });
  },
);
