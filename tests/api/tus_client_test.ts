/**
 * tus-js-client (the reference tus client, its Node build as Deno loads it)
 * against a real server on a port: both stores, local disk and S3, in
 * chunks, with a checksum-free resume from a stored URL, and through the
 * header with the file's link.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import * as tus from "tus-js-client";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { bytes } from "../helpers/chunks.ts";
import { actor } from "../helpers/users.ts";

async function settings(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.settings.update(values);
  await app.services.settings.reload();
}

/** Serves `app` on a free port for the length of `fn`. */
async function served(app: TestApp, fn: (origin: string) => Promise<void>) {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    await server.shutdown();
  }
}

interface Sent {
  url: string;
  fileUrl: string | null;
  fileId: string | null;
}

/** Uploads `data` with tus-js-client; resolves with the upload URL and the file's headers. */
function send(
  data: Uint8Array,
  options: Partial<tus.UploadOptions> & { endpoint: string },
  stopAfter?: number,
): Promise<Sent> {
  let fileUrl: string | null = null;
  let fileId: string | null = null;
  return new Promise((resolve, reject) => {
    const upload: tus.Upload = new tus.Upload(Buffer.from(data), {
      metadata: { filename: "clip.mp4", filetype: "video/mp4" },
      retryDelays: [],
      ...options,
      onAfterResponse(_req, res) {
        fileUrl = res.getHeader("Upload-Url") ?? fileUrl;
        fileId = res.getHeader("X-Ferry-File-Id") ?? fileId;
      },
      onProgress(sent) {
        if (stopAfter !== undefined && sent >= stopAfter) {
          upload.abort().then(() => resolve({ url: upload.url!, fileUrl, fileId }), reject);
        }
      },
      onSuccess: () => resolve({ url: upload.url!, fileUrl, fileId }),
      onError: reject,
    });
    upload.start();
  });
}

for (const datasource of ["local", "s3"] as const) {
  apiTest(
    `tus-js-client (${datasource}): uploads in chunks; the file is served whole`,
    async (app) => {
      await settings(app, { chunksSize: "64kb" });
      const a = await actor(app, "USER");
      const data = bytes(300_000 + 17);
      await served(app, async (origin) => {
        const sent = await send(data, {
          endpoint: `${origin}/api/upload/tus`,
          headers: a.headers,
          chunkSize: 100_000,
        });
        assert.match(sent.url, /\/api\/upload\/tus\/[A-Za-z0-9]{24}$/);
        assert.match(sent.fileUrl!, /\/u\/[A-Za-z0-9]{6}\.mp4$/);
        const file = await app.services.store.files.get(sent.fileId!);
        assert.equal(file?.size, data.byteLength);
        assert.equal(file?.type, "video/mp4");
        const raw = await app.request(`/raw/${file!.name}`);
        assert.deepEqual(new Uint8Array(await raw.arrayBuffer()), data);
      });
    },
    { datasource },
  );
}

apiTest("tus-js-client: an upload stopped midway resumes from its URL", async (app) => {
  await settings(app, { chunksSize: "50kb" });
  const a = await actor(app, "USER");
  const data = bytes(200_000);
  await served(app, async (origin) => {
    const endpoint = `${origin}/api/upload/tus`;
    const first = await send(data, { endpoint, headers: a.headers, chunkSize: 60_000 }, 60_000);
    const head = await fetch(first.url, {
      method: "HEAD",
      headers: { ...a.headers, "tus-resumable": "1.0.0" },
    });
    const offset = Number(head.headers.get("upload-offset"));
    assert.ok(offset >= 60_000 && offset < data.byteLength, String(offset));
    const resumed = await send(data, {
      endpoint,
      uploadUrl: first.url,
      headers: a.headers,
      chunkSize: 60_000,
    });
    assert.equal(resumed.url, first.url);
    const file = await app.services.store.files.get(resumed.fileId!);
    const raw = await app.request(`/raw/${file!.name}`);
    assert.deepEqual(new Uint8Array(await raw.arrayBuffer()), data);
  });
});
