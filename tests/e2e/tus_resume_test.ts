/**
 * A tus upload outlives the process that took its first bytes: a server
 * killed (SIGKILL) in the middle of a PATCH, a new process over the same
 * store and data directory answers HEAD with the offset kept (whole parts
 * of the broken PATCH included), and the upload finishes there. Both stores.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ServerProcess, startServer } from "../helpers/process.ts";
import { freshDatabase, ignoreKind, STORE_KINDS } from "../helpers/stores.ts";

const KIB = 1024;

function pattern(length: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(length).map((_, i) => (i * 31 + (i >> 10)) % 251);
}

/** Sets the admin up and returns its API token. */
async function adminToken(server: ServerProcess): Promise<string> {
  const setup = await fetch(`${server.origin}/api/setup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: "an e2e password" }),
  });
  assert.equal(setup.status, 200, await setup.clone().text());
  await setup.body?.cancel();
  const cookie = setup.headers.getSetCookie()[0].split(";")[0];
  const token = await fetch(`${server.origin}/api/user/token`, { headers: { cookie } });
  return (await token.json()).token;
}

for (const kind of STORE_KINDS) {
  Deno.test({
    name:
      `e2e: a tus upload resumes on a new process after the server is killed mid-PATCH [${kind}]`,
    ignore: ignoreKind(kind),
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const db = kind === "postgres" ? await freshDatabase() : undefined;
      const dir = await Deno.makeTempDir({ prefix: "ferry-tus-" });
      const env = {
        ...(db ? { DATABASE_URL: db.url } : {}),
        SERVICE_DATA_DIR: join(dir, "data"),
        SERVICE_SECRET: "tus-e2e-secret-tus-e2e-secret-tus-e2e-sec",
        SERVICE_CHUNKS_SIZE: "256kb",
      };
      const servers: ServerProcess[] = [];
      const file = pattern(2048 * KIB + 123);
      try {
        const a = await startServer({ env });
        servers.push(a);
        const token = await adminToken(a);
        const h = { authorization: token, "tus-resumable": "1.0.0" };
        const created = await fetch(`${a.origin}/api/upload/tus`, {
          method: "POST",
          headers: {
            ...h,
            "upload-length": String(file.byteLength),
            "upload-metadata": `filename ${btoa("clip.mp4")}`,
          },
        });
        assert.equal(created.status, 201);
        const path = created.headers.get("location")!;

        // The PATCH sends 700 KiB of the whole file it announces, then stalls; the server is
        // killed while it waits for the rest.
        const conn = await Deno.connect({
          hostname: "127.0.0.1",
          port: Number(new URL(a.origin).port),
        });
        const headLines = [
          `PATCH ${path} HTTP/1.1`,
          `host: ${new URL(a.origin).host}`,
          `authorization: ${token}`,
          "tus-resumable: 1.0.0",
          "content-type: application/offset+octet-stream",
          `content-length: ${file.byteLength}`,
          "upload-offset: 0",
          "",
          "",
        ].join("\r\n");
        await conn.write(new TextEncoder().encode(headLines));
        let sent = 0;
        while (sent < 700 * KIB) sent += await conn.write(file.subarray(sent, 700 * KIB));
        await new Promise((r) => setTimeout(r, 2000));
        await a.stop("SIGKILL", 0);
        conn.close();

        const b = await startServer({ env });
        servers.push(b);
        const head = await fetch(`${b.origin}${path}`, { method: "HEAD", headers: h });
        assert.equal(head.status, 200);
        const offset = Number(head.headers.get("upload-offset"));
        // The whole 256 KiB parts that arrived were kept: 512 KiB of the 700.
        assert.equal(offset, 512 * KIB);
        // The killed process's claim lapses within TUS_CLAIM_TERM_MS: 423 until then.
        let rest: Response;
        while (true) {
          rest = await fetch(`${b.origin}${path}`, {
            method: "PATCH",
            headers: {
              ...h,
              "content-type": "application/offset+octet-stream",
              "upload-offset": String(offset),
            },
            body: file.subarray(offset),
          });
          if (rest.status !== 423) break;
          await rest.body?.cancel();
          await new Promise((r) => setTimeout(r, 1000));
        }
        assert.equal(rest.status, 204, await rest.clone().text());
        const link = rest.headers.get("upload-url")!;
        const name = link.split("/").at(-1)!;
        const raw = await fetch(`${b.origin}/raw/${name}`);
        assert.deepEqual(new Uint8Array(await raw.arrayBuffer()), file);
      } finally {
        await Promise.all(servers.map((server) => server.stop()));
        await db?.drop();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
