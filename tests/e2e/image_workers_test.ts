/**
 * Image bombs against the real process (issue #30, item 3), started the way
 * the README starts it: while it compresses an image near the cap, and when
 * it is sent a 38-byte WebP declaring 7000×7000 pixels, its healthcheck keeps
 * answering, and each upload ends with the documented answer (compressed; or
 * stored as it came, `compressed.failed`). No timing is asserted here: the
 * figures (healthcheck latency, memory) are measured by bench/images.ts.
 */
import assert from "node:assert/strict";
import { type ServerProcess, startServer } from "../helpers/process.ts";
import type { Pixels } from "../../core/files/image_facts.ts";
import { encodeImage } from "../../core/files/images.ts";
import { imageHeader } from "../../core/files/image_header.ts";
import { COMPRESSION_PIXEL_CAPS } from "../../core/files/image_pool.ts";

const BOMB = await Deno.readFile(new URL("../fixtures/bomb-7000x7000.webp", import.meta.url));

/** A `side`×`side` gradient. */
function gradient(side: number): Pixels {
  const data = new Uint8Array(side * side * 4);
  for (let y = 0, i = 0; y < side; y++) {
    for (let x = 0; x < side; x++, i += 4) {
      data[i] = (x * 255) / side;
      data[i + 1] = (y * 255) / side;
      data[i + 2] = 128;
      data[i + 3] = 255;
    }
  }
  return { width: side, height: side, data };
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

/**
 * Runs `job` while asking the healthcheck again and again; resolves with the
 * job's value and the healthcheck's statuses meanwhile.
 */
async function whilePolling<T>(server: ServerProcess, job: Promise<T>) {
  const statuses: number[] = [];
  let done = false;
  job.finally(() => done = true).catch(() => {});
  while (!done) {
    const res = await fetch(`${server.origin}/api/healthcheck`);
    await res.body?.cancel();
    statuses.push(res.status);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { value: await job, statuses };
}

/** Uploads one image with compression headers; the answer's file. */
async function upload(server: ServerProcess, token: string, bytes: Uint8Array, name: string) {
  const form = new FormData();
  form.append("file", new Blob([bytes as BlobPart], { type: `image/${name.split(".")[1]}` }), name);
  const res = await fetch(`${server.origin}/api/upload`, {
    method: "POST",
    body: form,
    headers: {
      authorization: token,
      "x-zipline-image-compression-percent": "60",
      "x-zipline-image-compression-type": "jpg",
    },
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.files[0];
}

Deno.test({
  name:
    "security #30.3: e2e: the healthcheck answers while the server compresses an image near the cap, and a bomb is stored as it came",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "ferry-e2e-images-" });
    const server = await startServer({ env: { SERVICE_DATA_DIR: dir } });
    try {
      const token = await adminToken(server);

      const side = Math.floor(Math.sqrt(COMPRESSION_PIXEL_CAPS.jpg)) - 1;
      const large = encodeImage(gradient(side), "png");
      const compressing = await whilePolling(server, upload(server, token, large, "large.png"));
      assert.deepEqual(compressing.value.compressed, { mimetype: "image/jpeg", ext: "jpg" });
      assert.ok(compressing.statuses.length > 0);
      assert.ok(compressing.statuses.every((s) => s === 200), String(compressing.statuses));
      const stored = await fetch(`${server.origin}/raw/${compressing.value.name}`);
      const jpeg = new Uint8Array(await stored.arrayBuffer());
      assert.deepEqual(imageHeader(jpeg), { format: "jpeg", width: side, height: side });

      const bombing = await whilePolling(server, upload(server, token, BOMB, "bomb.webp"));
      assert.deepEqual(bombing.value.compressed, {
        mimetype: "image/jpeg",
        ext: "jpg",
        failed: true,
      });
      assert.ok(bombing.statuses.every((s) => s === 200), String(bombing.statuses));
      const kept = await fetch(`${server.origin}/raw/${bombing.value.name}`);
      assert.deepEqual(new Uint8Array(await kept.arrayBuffer()), BOMB);
    } finally {
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
