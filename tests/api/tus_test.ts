/**
 * tus 1.0.0 at /api/upload/tus: the protocol's rules one by one (OPTIONS,
 * creation, creation-with-upload, offsets, the version, checksums,
 * termination, expiry, HEAD after a restart), who may touch an upload, the
 * quota reserved at creation, upload requests; on both stores, on local disk
 * and on S3.
 */
import assert from "node:assert/strict";
import { verifyPassword } from "../../core/passwords.ts";
import { createHash } from "node:crypto";
import { ABANDONED_AFTER_MS, cleanAbandonedUploads } from "../../core/tasks/cleanup.ts";
import { createApp } from "../../routes/mod.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { bytes as someBytes } from "../helpers/chunks.ts";
import { bodilessRequest, withServer } from "../helpers/raw_http.ts";
import { actor } from "../helpers/users.ts";

/** `length` bytes of a pattern. */
const bytes = (length: number) => someBytes(length) as Uint8Array<ArrayBuffer>;

const V = { "tus-resumable": "1.0.0" };
const OCTETS = "application/offset+octet-stream";

async function settings(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.settings.update(values);
  await app.services.settings.reload();
}

/** `Upload-Metadata` of `pairs`. */
function metadata(pairs: Record<string, string>): string {
  const b64 = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s)));
  return Object.entries(pairs).map(([k, v]) => `${k} ${b64(v)}`).join(",");
}

/** Creates an upload of `length` bytes; returns the response and its path. */
async function create(
  app: TestApp,
  headers: Record<string, string>,
  length: number,
  meta: Record<string, string> = { filename: "clip.mp4", filetype: "video/mp4" },
) {
  const res = await app.request("/api/upload/tus", {
    method: "POST",
    headers: {
      ...V,
      ...headers,
      "upload-length": String(length),
      "upload-metadata": metadata(meta),
    },
  });
  return { res, path: res.headers.get("location") ?? "" };
}

/** Sends `body` at `offset`. */
async function patch(
  app: TestApp | { request: TestApp["request"] },
  path: string,
  headers: Record<string, string>,
  offset: number,
  body: Uint8Array<ArrayBuffer>,
  extra: Record<string, string> = {},
) {
  return await app.request(path, {
    method: "PATCH",
    headers: {
      ...V,
      ...headers,
      "content-type": OCTETS,
      "upload-offset": String(offset),
      ...extra,
    },
    body,
  });
}

async function head(app: TestApp | { request: TestApp["request"] }, path: string, h = {}) {
  return await app.request(path, { method: "HEAD", headers: { ...V, ...h } });
}

/** Asserts the final answer names a file that is served back whole. */
async function assertFile(app: TestApp, res: Response, file: Uint8Array) {
  assert.equal(res.status, 204, await res.clone().text());
  const url = res.headers.get("upload-url")!;
  assert.match(url, /^http:\/\/ferry\.test\/u\/[A-Za-z0-9]{6}\.mp4$/);
  const id = res.headers.get("x-ferry-file-id")!;
  const file_ = await app.services.store.files.get(id);
  assert.equal(file_?.size, file.byteLength);
  const served = await app.request(`/raw/${url.split("/").at(-1)}`);
  assert.deepEqual(new Uint8Array(await served.arrayBuffer()), file);
  return file_!;
}

apiTest(
  "tus: OPTIONS advertises the version, extensions, checksums and largest size",
  async (app) => {
    await settings(app, { chunksMax: "1gb", filesMaxFileSize: "2gb" });
    const res = await app.request("/api/upload/tus", { method: "OPTIONS" });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("tus-version"), "1.0.0");
    assert.equal(
      res.headers.get("tus-extension"),
      "creation,creation-with-upload,termination,expiration,checksum",
    );
    assert.equal(res.headers.get("tus-checksum-algorithm"), "sha1,sha256");
    assert.equal(res.headers.get("tus-max-size"), String(1024 ** 3));
    assert.equal(res.headers.get("tus-resumable"), null);
    // A browser's preflight is answered here too, with the headers it asked for.
    const pre = await app.request("/api/upload/tus/abc", {
      method: "OPTIONS",
      headers: {
        origin: "https://elsewhere.example",
        "access-control-request-method": "PATCH",
        "access-control-request-headers": "tus-resumable, upload-offset, content-type",
      },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get("access-control-allow-origin"), "*");
    assert.match(pre.headers.get("access-control-allow-methods")!, /PATCH/);
    assert.equal(
      pre.headers.get("access-control-allow-headers"),
      "tus-resumable, upload-offset, content-type",
    );
  },
);

apiTest("tus: creation, PATCHes, HEAD, and the last byte makes an ordinary file", async (app) => {
  await settings(app, { chunksSize: "1000b" });
  const a = await actor(app, "USER");
  const file = bytes(2500);
  const { res, path } = await create(app, a.headers, file.byteLength);
  assert.equal(res.status, 201);
  assert.match(path, /^\/api\/upload\/tus\/[A-Za-z0-9]{24}$/);
  assert.equal(res.headers.get("tus-resumable"), "1.0.0");
  assert.match(res.headers.get("access-control-expose-headers")!, /Upload-Offset.*Upload-Url/);
  assert.equal(
    new Date(res.headers.get("upload-expires")!).getTime(),
    Math.floor((app.clock.now() + ABANDONED_AFTER_MS) / 1000) * 1000,
  );
  // Created: the length and one file are reserved in the owner's usage.
  assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes: 2500, files: 1 });

  // 700 bytes (a tail), 1500 (completes parts 1 and 2, leaves a tail), then the rest.
  let r = await patch(app, path, a.headers, 0, file.subarray(0, 700));
  assert.equal(r.status, 204);
  assert.equal(r.headers.get("upload-offset"), "700");
  assert.ok(r.headers.get("upload-expires"));
  r = await patch(app, path, a.headers, 700, file.subarray(700, 2200));
  assert.equal(r.headers.get("upload-offset"), "2200");
  const h = await head(app, path, a.headers);
  assert.equal(h.status, 200);
  assert.equal(h.headers.get("upload-offset"), "2200");
  assert.equal(h.headers.get("upload-length"), "2500");
  assert.equal(h.headers.get("cache-control"), "no-store");
  assert.equal(
    h.headers.get("upload-metadata"),
    metadata({ filename: "clip.mp4", filetype: "video/mp4" }),
  );
  const last = await patch(app, path, a.headers, 2200, file.subarray(2200));
  assert.equal(last.headers.get("upload-offset"), "2500");
  const stored = await assertFile(app, last, file);
  assert.equal(stored.type, "video/mp4");
  // The reservation became the file; nothing of the upload is left.
  assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes: 2500, files: 1 });
  assert.deepEqual(await app.storedObjects(), [stored.name]);
  assert.equal((await head(app, path, a.headers)).status, 404);
});

apiTest(
  "tus: on S3, parts are a multipart upload and the tail waits in the bucket",
  async (app) => {
    const a = await actor(app, "USER");
    const MIB = 1024 * 1024;
    const file = bytes(11 * MIB + 5);
    const { path } = await create(app, a.headers, file.byteLength);
    let offset = 0;
    for (const size of [3 * MIB, 4 * MIB, 4 * MIB + 5]) {
      const r = await patch(app, path, a.headers, offset, file.subarray(offset, offset + size));
      offset += size;
      if (offset < file.byteLength) assert.equal(r.headers.get("upload-offset"), String(offset));
      else await assertFile(app, r, file);
    }
  },
  { datasource: "s3" },
);

apiTest("tus: creation-with-upload keeps the bytes sent along, or makes the file", async (app) => {
  const a = await actor(app, "USER");
  const file = bytes(300);
  const part = await app.request("/api/upload/tus", {
    method: "POST",
    headers: {
      ...V,
      ...a.headers,
      "upload-length": "300",
      "upload-metadata": metadata({ filename: "clip.mp4" }),
      "content-type": OCTETS,
    },
    body: file.subarray(0, 100),
  });
  assert.equal(part.status, 201);
  assert.equal(part.headers.get("upload-offset"), "100");
  const path = part.headers.get("location")!;
  await assertFile(app, await patch(app, path, a.headers, 100, file.subarray(100)), file);

  const whole = await app.request("/api/upload/tus", {
    method: "POST",
    headers: {
      ...V,
      ...a.headers,
      "upload-length": "300",
      "upload-metadata": metadata({ filename: "clip.mp4" }),
      "content-type": OCTETS,
    },
    body: file,
  });
  assert.equal(whole.status, 201);
  assert.match(whole.headers.get("upload-url")!, /\.mp4$/);
});

apiTest("tus: a wrong offset is 409 with the upload's offset; nothing is kept", async (app) => {
  const a = await actor(app, "USER");
  const file = bytes(100);
  const { path } = await create(app, a.headers, 100);
  await patch(app, path, a.headers, 0, file.subarray(0, 40));
  const wrong = await patch(app, path, a.headers, 10, file.subarray(10, 50));
  assert.equal(wrong.status, 409);
  assert.equal(wrong.headers.get("upload-offset"), "40");
  assert.equal(wrong.headers.get("tus-resumable"), "1.0.0");
  assert.deepEqual(await wrong.json(), {
    error: "Upload-Offset does not match the upload's offset of 40",
    statusCode: 409,
  });
  assert.equal((await head(app, path, a.headers)).headers.get("upload-offset"), "40");
  await assertFile(app, await patch(app, path, a.headers, 40, file.subarray(40)), file);
});

apiTest("tus: without Tus-Resumable 1.0.0, every request but OPTIONS is 412", async (app) => {
  const a = await actor(app, "USER");
  const { path } = await create(app, a.headers, 10);
  for (const version of [undefined, "0.2.2"]) {
    const h: Record<string, string> = { ...a.headers, "upload-length": "10" };
    if (version) h["tus-resumable"] = version;
    for (
      const [method, url] of [["POST", "/api/upload/tus"], ["HEAD", path], ["PATCH", path], [
        "DELETE",
        path,
      ]]
    ) {
      const res = await app.request(url, { method, headers: h });
      assert.equal(res.status, 412, `${method} ${url}`);
      assert.equal(res.headers.get("tus-version"), "1.0.0");
      if (method !== "HEAD") {
        assert.deepEqual(await res.json(), {
          error: "Tus-Resumable 1.0.0 is required",
          statusCode: 412,
        });
      } else await res.body?.cancel();
    }
  }
});

apiTest("tus: a matching checksum keeps the chunk, a mismatch is 460 and drops it", async (app) => {
  await settings(app, { chunksSize: "50b" });
  const a = await actor(app, "USER");
  const file = bytes(120);
  const { path } = await create(app, a.headers, 120);
  const digest = (algo: string, b: Uint8Array) =>
    `${algo} ${createHash(algo).update(b).digest("base64")}`;
  const one = file.subarray(0, 70);
  const ok = await patch(app, path, a.headers, 0, one, { "upload-checksum": digest("sha1", one) });
  assert.equal(ok.status, 204);
  assert.equal(ok.headers.get("upload-offset"), "70");
  const two = file.subarray(70);
  const bad = await patch(app, path, a.headers, 70, two, {
    "upload-checksum": digest("sha256", file.subarray(0, 50)),
  });
  assert.equal(bad.status, 460);
  assert.deepEqual(await bad.json(), {
    error: "Checksum mismatch: the bytes were not kept",
    statusCode: 460,
  });
  assert.equal((await head(app, path, a.headers)).headers.get("upload-offset"), "70");
  const unknown = await patch(app, path, a.headers, 70, two, { "upload-checksum": "md5 AAAA" });
  assert.equal(unknown.status, 400);
  const good = await patch(app, path, a.headers, 70, two, {
    "upload-checksum": digest("sha256", two),
  });
  await assertFile(app, good, file);
});

apiTest("tus: termination drops the bytes, the record and the reservation", async (app) => {
  await settings(app, { chunksSize: "50b" });
  const a = await actor(app, "USER");
  const { path } = await create(app, a.headers, 120);
  await patch(app, path, a.headers, 0, bytes(70));
  assert.ok((await app.storedObjects()).length > 0 || app.services.datasource.kind === "local");
  const res = await app.request(path, { method: "DELETE", headers: { ...V, ...a.headers } });
  assert.equal(res.status, 204);
  assert.equal((await head(app, path, a.headers)).status, 404);
  assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes: 0, files: 0 });
  assert.deepEqual(await app.storedObjects(), []);
  assert.equal((await patch(app, path, a.headers, 70, bytes(10))).status, 404);
});

apiTest("tus: an upload idle past Upload-Expires is removed whole by the task", async (app) => {
  await settings(app, { chunksSize: "50b" });
  const a = await actor(app, "USER");
  const { path } = await create(app, a.headers, 120);
  const r = await patch(app, path, a.headers, 0, bytes(70));
  const expires = new Date(r.headers.get("upload-expires")!).getTime();
  const id = path.split("/").at(-1)!;
  app.clock.set(expires - 1000);
  await cleanAbandonedUploads(app.services);
  assert.equal((await head(app, path, a.headers)).status, 200);
  app.clock.set(expires + 1000);
  await cleanAbandonedUploads(app.services);
  assert.equal(await app.services.store.chunks.get(id), null);
  assert.equal((await head(app, path, a.headers)).status, 404);
  assert.deepEqual(await app.storedObjects(), []);
  assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes: 0, files: 0 });
});

apiTest("tus: HEAD after a restart answers from the store; the upload resumes", async (app) => {
  await settings(app, { chunksSize: "50b" });
  const a = await actor(app, "USER");
  const file = bytes(130);
  const { path } = await create(app, a.headers, 130);
  await patch(app, path, a.headers, 0, file.subarray(0, 75));
  const restarted = createApp(app.services, { checkResponses: true });
  const other = {
    request: async (p: string, init?: RequestInit) =>
      await restarted.request(`http://ferry.test${p}`, init),
  };
  const h = await head(other, path, a.headers);
  assert.equal(h.headers.get("upload-offset"), "75");
  const last = await patch(other, path, a.headers, 75, file.subarray(75));
  await assertFile(app, last, file);
});

apiTest(
  "tus: another user's token gets 404 on someone's upload; no credentials 401",
  async (app) => {
    const a = await actor(app, "USER");
    const b = await actor(app, "ADMIN");
    const { path } = await create(app, a.headers, 100);
    assert.equal((await head(app, path, b.headers)).status, 404);
    assert.equal((await patch(app, path, b.headers, 0, bytes(10))).status, 404);
    const del = await app.request(path, { method: "DELETE", headers: { ...V, ...b.headers } });
    assert.equal(del.status, 404);
    assert.equal((await head(app, path, a.headers)).headers.get("upload-offset"), "0");
    const anonymous = await app.request("/api/upload/tus", {
      method: "POST",
      headers: { ...V, "upload-length": "10" },
    });
    assert.equal(anonymous.status, 401);
  },
);

apiTest("tus: past the quota at creation is 413; past Tus-Max-Size too", async (app) => {
  const a = await actor(app, "USER");
  await app.services.store.users.update(a.user.id, {
    quota: { id: "q", filesQuota: "BY_BYTES", maxBytes: "2kb", maxFiles: null, maxUrls: null },
  }, new Date());
  const { res } = await create(app, a.headers, 2500);
  assert.equal(res.status, 413);
  assert.deepEqual(await res.json(), {
    error: "Uploading this file would exceed your quota of 2kb",
    statusCode: 413,
  });
  assert.equal((await create(app, a.headers, 1500)).res.status, 201);
  // The first upload holds its length: a second cannot pass the quota beside it.
  assert.equal((await create(app, a.headers, 1000)).res.status, 413);
  await settings(app, { chunksMax: "1kb" });
  const big = await create(app, a.headers, 1025);
  assert.equal(big.res.status, 413);
});

apiTest("tus: bad metadata and options are 400 at creation; options apply", async (app) => {
  const a = await actor(app, "USER");
  const bad = await app.request("/api/upload/tus", {
    method: "POST",
    headers: { ...V, ...a.headers, "upload-length": "10", "upload-metadata": "filename !!!" },
  });
  assert.equal(bad.status, 400);
  const badViews = await create(app, a.headers, 10, { filename: "a.txt", "max-views": "-1" });
  assert.equal(badViews.res.status, 400);
  assert.match((await badViews.res.json()).error, /max-views/);
  assert.equal((await create(app, a.headers, 0)).res.status, 400);

  const { path } = await create(app, a.headers, 5, {
    filename: "notes.txt",
    filetype: "text/plain",
    "max-views": "3",
    format: "name",
    "original-name": "true",
    private: "true",
    password: "hunter2",
  });
  // The password is hashed at creation: neither the record nor the metadata answered holds it.
  const stored = await app.services.store.chunks.get(path.split("/").pop()!);
  assert.ok(stored?.tus);
  assert.ok(!JSON.stringify(stored).includes("hunter2"));
  assert.ok(!JSON.stringify(stored).includes(btoa("hunter2")));
  const metadata = (await head(app, path, a.headers)).headers.get("upload-metadata")!;
  assert.ok(metadata.includes("filename ") && !metadata.includes("password"), metadata);
  const done = await patch(app, path, a.headers, 0, new TextEncoder().encode("hello"));
  assert.equal(done.status, 204);
  const file = await app.services.store.files.get(done.headers.get("x-ferry-file-id")!);
  assert.equal(file?.name, "notes.txt");
  assert.equal(file?.maxViews, 3);
  assert.equal(file?.originalName, "notes.txt");
  assert.equal(file?.private, true);
  assert.equal(await verifyPassword("hunter2", file!.password!), true);
});

apiTest("tus: through an upload request's code, private and counted for its owner", async (app) => {
  const owner = await actor(app, "USER");
  const made = await app.json("POST", "/api/user/requests", { name: "Photos" }, owner.headers);
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const via = { "x-service-request": made.body.code };
  const { res, path } = await create(app, via, 5, { filename: "a.txt", filetype: "text/plain" });
  assert.equal(res.status, 201, await res.clone().text());
  // Someone else's credentials are no way in; another request's code neither.
  const stranger = await actor(app, "USER");
  assert.equal((await head(app, path, stranger.headers)).status, 404);
  const done = await patch(app, path, via, 0, new TextEncoder().encode("hello"));
  assert.equal(done.status, 204, await done.clone().text());
  const file = await app.services.store.files.get(done.headers.get("x-ferry-file-id")!);
  assert.equal(file?.userId, owner.user.id);
  assert.equal(file?.private, true);
  const view = await app.json(
    "GET",
    `/api/user/requests/${made.body.id}`,
    undefined,
    owner.headers,
  );
  assert.equal(view.body.files, 1);
  assert.equal(view.body.bytes, 5);
  assert.equal(file?.folderId, made.body.folderId);
});

apiTest("tus: creations are rate limited; the creator's later requests are not", async (app) => {
  await settings(app, { ratelimitMax: 1, ratelimitWindow: 60_000 });
  const alice = await actor(app, "USER");
  const mallory = await actor(app, "USER");
  app.clock.set(Math.ceil(app.clock.now() / 60_000) * 60_000);
  const { res, path } = await create(app, alice.headers, 10);
  assert.equal(res.status, 201);
  assert.equal((await create(app, alice.headers, 10)).res.status, 429);
  const own = await patch(app, path, alice.headers, 0, bytes(5));
  assert.equal(own.status, 204);
  assert.equal(own.headers.get("x-ratelimit-limit"), null);
  assert.equal((await head(app, path, alice.headers)).status, 200);
  // Another user naming her upload is counted (and refused).
  assert.equal((await head(app, path, mallory.headers)).status, 404);
  assert.equal((await head(app, path, mallory.headers)).status, 429);
  assert.equal((await patch(app, path, alice.headers, 5, bytes(5))).status, 204);
}, { rateLimits: true });

/** A body of `bytes` that fails (as a dropped connection does) once `cutAt` bytes went. */
function cutOff(bytes: Uint8Array, cutAt: number, chunk = 100): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= cutAt) return controller.error(new Error("connection reset"));
      const end = Math.min(at + chunk, cutAt);
      controller.enqueue(bytes.slice(at, end));
      at = end;
    },
  });
}

apiTest(
  "tus: on a disk, the PATCHes write one file that the last byte moves into place",
  async (app) => {
    await settings(app, { chunksSize: "1000b" });
    const a = await actor(app, "USER");
    const file = bytes(2500);
    const { path } = await create(app, a.headers, file.byteLength);
    const id = path.split("/").at(-1)!;
    await patch(app, path, a.headers, 0, file.subarray(0, 700));
    await patch(app, path, a.headers, 700, file.subarray(700, 2200));
    const upload = await app.services.store.chunks.get(id);
    // No part and no tail: the bytes so far are the front of one file.
    assert.deepEqual(await app.services.store.chunks.parts(id), []);
    assert.equal(upload?.tus?.tail, null);
    const root = app.processEnv.SERVICE_DATASOURCE_LOCAL_DIRECTORY;
    const parts = `${root}/.tmp/parts-${upload!.handle}`;
    assert.deepEqual((await Array.fromAsync(Deno.readDir(parts))).map((e) => e.name), ["whole"]);
    const whole = await Deno.stat(`${parts}/whole`);
    assert.equal(whole.size, 2200);
    const stored = await assertFile(
      app,
      await patch(app, path, a.headers, 2200, file.subarray(2200)),
      file,
    );
    // The same file, renamed: nothing was copied.
    assert.equal((await Deno.stat(`${root}/${stored.name}`)).ino, whole.ino);
    await assert.rejects(() => Deno.stat(parts), Deno.errors.NotFound);
  },
);

for (const datasource of ["local", "s3"] as const) {
  apiTest(
    `tus: a PATCH cut off keeps its whole parts; the upload resumes from them [${datasource}]`,
    async (app) => {
      // S3's smallest part is 5 MiB: the parts are that long there.
      const part = datasource === "s3" ? 5 * 1024 * 1024 : 1000;
      await settings(app, { chunksSize: `${part}b` });
      const a = await actor(app, "USER");
      const file = bytes(2 * part + 500);
      const { path } = await create(app, a.headers, file.byteLength);
      await patch(app, path, a.headers, 0, file.subarray(0, 300));
      const cut = await app.request(path, {
        method: "PATCH",
        headers: {
          ...V,
          ...a.headers,
          "content-type": OCTETS,
          "upload-offset": "300",
          "content-length": String(file.byteLength - 300),
        },
        body: cutOff(file.subarray(300), 2 * part + 100 - 300, datasource === "s3" ? 65536 : 100),
      });
      assert.equal(cut.status, 400, await cut.clone().text());
      // The bytes up to the last part boundary passed were kept; the rest of the request not.
      assert.equal(
        (await head(app, path, a.headers)).headers.get("upload-offset"),
        String(2 * part),
      );
      await assertFile(
        app,
        await patch(app, path, a.headers, 2 * part, file.subarray(2 * part)),
        file,
      );
      assert.equal((await app.storedObjects()).length, 1);
    },
    { datasource },
  );
}

apiTest(
  "tus: an upload an older Ferry began on a disk (part files and a tail object) resumes in place",
  async (app) => {
    await settings(app, { chunksSize: "1000b" });
    const a = await actor(app, "USER");
    const file = bytes(2500);
    const { path } = await create(app, a.headers, file.byteLength);
    const id = path.split("/").at(-1)!;
    const { chunks } = app.services.store;
    const upload = (await chunks.get(id))!;
    // The layout tus wrote on a disk before it wrote in place: each whole part a part file,
    // the bytes past the last one in a tail object, the parts and the tail in the record.
    const ds = app.services.datasource;
    const stream = (b: Uint8Array) => ReadableStream.from([b.slice()]);
    let tus = upload.tus!;
    for (const number of [1, 2]) {
      const [start, end] = [(number - 1) * 1000, number * 1000];
      const tag = await ds.putPart(
        upload.object,
        upload.handle,
        number,
        stream(file.subarray(start, end)),
        1000,
      );
      tus = { ...tus, offset: end, tail: null };
      assert.ok(
        await chunks.saveTus(
          id,
          { number, start, end: end - 1, tag },
          tus,
          new Date(app.clock.now()),
        ),
      );
    }
    const tail = { object: `${upload.object}.tail-older00000`, size: 300 };
    await ds.put(tail.object, stream(file.subarray(2000, 2300)));
    assert.ok(
      await chunks.saveTus(id, null, { ...tus, offset: 2300, tail }, new Date(app.clock.now())),
    );

    assert.equal((await head(app, path, a.headers)).headers.get("upload-offset"), "2300");
    const more = await patch(app, path, a.headers, 2300, file.subarray(2300, 2400));
    assert.equal(more.status, 204, await more.clone().text());
    assert.equal(more.headers.get("upload-offset"), "2400");
    // The tail's bytes joined the one file: its object is gone.
    assert.equal(await ds.size(tail.object), null);
    await assertFile(app, await patch(app, path, a.headers, 2400, file.subarray(2400)), file);
    assert.equal((await app.storedObjects()).length, 1);
  },
);

apiTest(
  "tus: a body without Content-Length is streamed, up to the upload's length",
  async (app) => {
    await settings(app, { chunksSize: "1000b" });
    const a = await actor(app, "USER");
    const file = bytes(2500);
    const { path } = await create(app, a.headers, file.byteLength);
    /** Sends `chunks` at `from` as a stream, which has no Content-Length. */
    const streamed = (from: number, ...chunks: Uint8Array[]) =>
      app.request(path, {
        method: "PATCH",
        headers: { ...V, ...a.headers, "content-type": OCTETS, "upload-offset": String(from) },
        body: ReadableStream.from(chunks),
      });
    const first = await streamed(0, file.slice(0, 900), file.slice(900, 1800));
    assert.equal(first.status, 204);
    assert.equal(first.headers.get("upload-offset"), "1800");
    const past = await streamed(1800, file.slice(1800), new Uint8Array(1));
    assert.equal(past.status, 413);
    // The whole part its bytes passed (up to 2000) is kept, as of a PATCH cut off.
    const kept = datasourceKeepsParts(app) ? 2000 : 1800;
    assert.equal((await head(app, path, a.headers)).headers.get("upload-offset"), String(kept));
    await assertFile(app, await streamed(kept, file.slice(kept, 2300), file.slice(2300)), file);
  },
);

/** Whether a refused body keeps the whole parts it passed: in place on a disk; S3 stages it first. */
const datasourceKeepsParts = (app: TestApp) => app.services.datasource.inPlace !== null;

apiTest("tus: a creation sent with no body at all (no Content-Length) is created", async (app) => {
  const a = await actor(app, "USER");
  const reply = await withServer(
    app,
    (port) =>
      bodilessRequest(port, "POST", "/api/upload/tus", {
        ...V,
        ...a.headers,
        "upload-length": "10",
        "upload-metadata": metadata({ filename: "note.txt" }),
      }),
  );
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  // Created: its length and one file are reserved in the owner's usage.
  assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes: 10, files: 1 });
});
