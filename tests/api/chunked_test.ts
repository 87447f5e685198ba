/**
 * POST /api/upload/partial and GET /api/upload/partial/{identifier}: chunks in
 * order, out of order and at once; resuming from the status after a restart;
 * the checks of every chunk; on both stores, and on S3 with parts joined as a
 * real multipart upload (5 MiB chunks) and staged (small chunks).
 */
import assert from "node:assert/strict";
import { ABANDONED_AFTER_MS, cleanAbandonedUploads } from "../../core/tasks/cleanup.ts";
import { CLAIM_TERM_MS } from "../../db/chunks.ts";
import type { QuotaRecord } from "../../db/users.ts";
import { createApp } from "../../routes/mod.ts";
import { apiTest, type JsonReply, type TestApp } from "../helpers/app.ts";
import { bytes, chunk, type Send, sendAll } from "../helpers/chunks.ts";
import { uploadFiles } from "../helpers/files.ts";
import { jpegWithGps, pngWithGps } from "../helpers/images.ts";
import { actor } from "../helpers/users.ts";

const MIB = 1024 * 1024;

async function settings(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.settings.update(values);
  await app.services.settings.reload();
}

/** Asserts the last reply holds the file and that it is served back whole. */
async function assertStored(app: TestApp, reply: JsonReply, file: Uint8Array, userId: string) {
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  const [stored] = reply.body.files;
  assert.match(stored.name, /^[A-Za-z0-9]{6}\.mp4$/);
  assert.equal(stored.type, "video/mp4");
  assert.equal(stored.url, `http://ferry.test/u/${stored.name}`);
  const served = await app.request(`/raw/${stored.name}`);
  assert.deepEqual(new Uint8Array(await served.arrayBuffer()), file);
  assert.deepEqual(await app.services.store.files.usage(userId), {
    bytes: file.byteLength,
    files: 1,
  });
  assert.deepEqual(await app.storedObjects(), [stored.name]);
  assert.equal(await app.services.store.chunks.get(reply.body.partialIdentifier), null);
}

for (
  const [datasource, size, total] of [
    ["local", 1000, 2500],
    ["s3", 1000, 2500],
    ["s3", 5 * MIB, 11 * MIB + 5],
  ] as const
) {
  apiTest(
    `chunked (${datasource}, ${size}-byte chunks): in order, the last answers the file`,
    async (app) => {
      const a = await actor(app, "USER");
      const file = bytes(total);
      const replies = await sendAll(app, file, size, a.headers);
      for (const reply of replies.slice(0, -1)) {
        assert.equal(reply.status, 200, JSON.stringify(reply.body));
        assert.deepEqual(reply.body, {
          files: [],
          partialSuccess: true,
          partialIdentifier: replies[0].body.partialIdentifier,
        });
      }
      assert.equal(replies.at(-1)!.body.partialSuccess, true);
      await assertStored(app, replies.at(-1)!, file, a.user.id);
    },
    { datasource },
  );
}

apiTest("chunked: chunks sent at once make one file, answered once", async (app) => {
  const a = await actor(app, "USER");
  const file = bytes(4500);
  const first = await chunk(app, file, 0, 999, a.headers);
  const id = { ...a.headers, "x-service-p-identifier": first.body.partialIdentifier };
  const rest = await Promise.all(
    [4000, 1000, 3000, 2000].map((start) =>
      chunk(app, file, start, Math.min(start + 1000, 4500) - 1, id)
    ),
  );
  const done = rest.filter((r) => r.body.files?.length === 1);
  assert.equal(done.length, 1);
  assert.ok(rest.every((r) => r.status === 200));
  await assertStored(app, done[0], file, a.user.id);
});

apiTest(
  "chunked: the status tells what arrived; another instance resumes after a restart",
  async (app) => {
    const a = await actor(app, "USER");
    const file = bytes(3500);
    const first = await chunk(app, file, 0, 999, a.headers);
    const identifier = first.body.partialIdentifier;
    const id = { ...a.headers, "x-service-p-identifier": identifier };
    await chunk(app, file, 2000, 2999, id);

    // A new app over the same store and datasource: nothing was kept in the first one's memory.
    const restarted = createApp(app.services, { checkResponses: true });
    const send: Send = async (path, init) =>
      await restarted.request(`http://ferry.test${path}`, init);
    const res = await send(`/api/upload/partial/${identifier}`, { headers: a.headers });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      identifier,
      size: 3500,
      partSize: 1000,
      received: [[0, 999], [2000, 2999]],
      complete: false,
    });
    assert.equal((await chunk(app, file, 1000, 1999, id, send)).body.files.length, 0);
    const last = await chunk(app, file, 3000, 3499, id, send);
    await assertStored(app, last, file, a.user.id);
    assert.equal(
      (await app.json("GET", `/api/upload/partial/${identifier}`, undefined, a.headers)).status,
      404,
    );
  },
);

apiTest("chunked: the completing chunk's options name the file", async (app) => {
  const a = await actor(app, "USER");
  const file = bytes(1500);
  const first = await chunk(app, file, 0, 999, a.headers);
  const last = await chunk(app, file, 1000, 1499, {
    ...a.headers,
    "x-service-p-identifier": first.body.partialIdentifier,
    "x-zipline-filename": "holiday",
    "x-service-deletes-at": "1d",
  });
  assert.equal(last.status, 200);
  assert.equal(last.body.files[0].name, "holiday.mp4");
  assert.equal(last.body.deletesAt, new Date(app.clock.now() + 86_400_000).toISOString());
  const record = await app.services.store.files.getByName("holiday.mp4");
  assert.equal(record?.size, 1500);
  assert.equal(record?.pending, false);
});

apiTest("chunked: a refused completion can be sent again", async (app) => {
  const a = await actor(app, "USER");
  const file = bytes(1500);
  const first = await chunk(app, file, 0, 999, a.headers);
  const id = { ...a.headers, "x-service-p-identifier": first.body.partialIdentifier };
  const taken = await chunk(app, file, 1000, 1499, { ...id, "x-service-filename": "x" });
  assert.equal(taken.status, 200);
  const clash = await chunk(app, file, 1000, 1499, { ...id, "x-service-filename": "x" });
  assert.equal(clash.status, 400, JSON.stringify(clash.body));
  assert.equal(clash.body.error, "Partial upload identifier is invalid");

  const second = await chunk(app, file, 0, 999, a.headers);
  const id2 = { ...a.headers, "x-service-p-identifier": second.body.partialIdentifier };
  const refused = await chunk(app, file, 1000, 1499, { ...id2, "x-service-filename": "x" });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error, "file[0]: file with the same name already exists");
  const retried = await chunk(app, file, 1000, 1499, { ...id2, "x-service-filename": "y" });
  assert.equal(retried.status, 200, JSON.stringify(retried.body));
  assert.equal(retried.body.files[0].name, "y.mp4");
});

apiTest("chunked: every chunk is checked", async (app) => {
  const a = await actor(app, "USER");
  const b = await actor(app, "USER");
  const file = bytes(2500);
  const form = () => {
    const f = new FormData();
    f.append("file", new Blob([file.slice(0, 1000)]), "blob");
    return f;
  };
  const post = async (headers: Record<string, string>, body: FormData = form()) => {
    const res = await app.request("/api/upload/partial", { method: "POST", body, headers });
    return { status: res.status, body: await res.json() };
  };
  const error = (status: number, error: string) => ({
    status,
    body: { error, statusCode: status },
  });

  assert.deepEqual(await post(a.headers), error(400, "Partial upload was not detected"));
  const range = (r: string) => ({ ...a.headers, "content-range": r });
  for (const bad of ["bytes 5-4/10", "bytes 0-10/10", "0-9/10", "bytes 0-9/x"]) {
    assert.deepEqual(
      await post(range(bad)),
      error(400, "Invalid partial upload: bad Content-Range"),
    );
  }
  assert.deepEqual(
    await post(range("bytes 0-999/2500")).then(() => post(range("bytes 0-999/1000000000"))),
    error(413, "File size is too large. Maximum file size is 99614720 bytes"),
  );
  await settings(app, { chunksSize: "500b" });
  assert.deepEqual(
    await post(range("bytes 0-999/2500")),
    error(413, "Chunk is too large. Maximum chunk size is 500 bytes"),
  );
  await settings(app, { chunksSize: "25mb" });
  assert.deepEqual(
    await post(range("bytes 0-998/2500")),
    error(400, "Invalid partial upload: the chunk is not as long as its Content-Range"),
  );
  assert.deepEqual(
    await post({ ...range("bytes 0-999/2500"), "x-service-p-content-length": "2400" }),
    error(
      400,
      "Invalid partial upload: x-service-p-content-length is not the total of Content-Range",
    ),
  );
  assert.deepEqual(
    await post(range("bytes 1000-1999/2500")),
    error(400, "Partial upload identifier is invalid"),
  );
  const two = form();
  two.append("other", new Blob([file.slice(0, 10)]), "other");
  assert.deepEqual(
    await post(range("bytes 0-999/2500"), two),
    error(400, "Partial uploads only support one file field"),
  );

  const started = await chunk(app, file, 0, 999, a.headers);
  const identifier = started.body.partialIdentifier;
  const other = { ...b.headers, "x-service-p-identifier": identifier };
  assert.deepEqual(
    await chunk(app, file, 1000, 1999, other).then((r) => r.body.error),
    "Partial upload identifier is invalid",
  );
  assert.equal(
    (await app.json("GET", `/api/upload/partial/${identifier}`, undefined, b.headers)).status,
    404,
  );
  const mine = { ...a.headers, "x-service-p-identifier": identifier };
  assert.equal(
    (await chunk(app, file, 500, 1499, mine)).body.error,
    "Invalid partial upload: chunks of this upload are 1000 bytes (the last may be shorter), " +
      "of 2500 in all",
  );
  assert.deepEqual((await app.request("/api/upload/partial", { method: "POST" })).status, 401);
  const whole = await app.request("/api/upload", {
    method: "POST",
    body: form(),
    headers: range("bytes 0-999/2500"),
  });
  assert.deepEqual(
    await whole.json(),
    { error: "bad options, receieved: partial upload", statusCode: 400 },
  );

  await settings(app, { chunksEnabled: false });
  assert.deepEqual(
    await post(range("bytes 0-999/2500")),
    error(400, "Chunked uploads are disabled"),
  );
  assert.deepEqual(await app.services.store.files.listByUser(a.user.id), []);
});

apiTest("chunked: the quota is checked up front and when the file is recorded", async (app) => {
  const a = await actor(app, "USER");
  await app.services.store.users.update(a.user.id, {
    quota: { id: "q", filesQuota: "BY_BYTES", maxBytes: "2kb", maxFiles: null, maxUrls: null },
  }, new Date());
  const refused = await chunk(app, bytes(2500), 0, 999, a.headers);
  assert.equal(refused.status, 403);
  assert.equal(refused.body.error, "Uploading this file would exceed your quota of 2kb");
  const ok = await sendAll(app, bytes(1500), 1000, a.headers);
  assert.equal(ok.at(-1)!.body.files.length, 1);
});

async function setQuota(app: TestApp, userId: string, quota: Partial<QuotaRecord>) {
  await app.services.store.users.update(userId, {
    quota: { id: "q", filesQuota: "NONE", maxBytes: null, maxFiles: null, maxUrls: null, ...quota },
  }, new Date());
}

const overQuota = (size: string) => ({
  error: `Uploading this file would exceed your quota of ${size}`,
  statusCode: 403,
});

apiTest(
  "security #7: uploads in progress hold their size; together they cannot pass a quota",
  async (app) => {
    const a = await actor(app, "USER");
    await setQuota(app, a.user.id, { filesQuota: "BY_BYTES", maxBytes: "4kb" });
    const file = bytes(2500);
    // Each fits alone (2500 of 4096 bytes); started at once, only one may go on.
    const starts = await Promise.all([1, 2].map(() => chunk(app, file, 0, 999, a.headers)));
    assert.deepEqual(starts.map((r) => r.status).sort(), [200, 403]);
    const started = starts.find((r) => r.status === 200)!;
    assert.deepEqual(starts.find((r) => r.status === 403)!.body, overQuota("4kb"));
    const whole = await uploadFiles(app, [{ name: "a.bin", content: bytes(2000) }], a.headers);
    assert.deepEqual(whole.body, overQuota("4kb"), "a plain upload sees the reservation too");

    // Completing it turns the reservation into the file: counted once.
    const id = { ...a.headers, "x-service-p-identifier": started.body.partialIdentifier };
    await chunk(app, file, 1000, 1999, id);
    const done = await chunk(app, file, 2000, 2499, id);
    assert.equal(done.body.files.length, 1, JSON.stringify(done.body));
    assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes: 2500, files: 1 });
    const next = await chunk(app, bytes(1500), 0, 999, a.headers);
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.deepEqual(
      (await chunk(app, bytes(100), 0, 99, a.headers)).body,
      overQuota("4kb"),
      "2500 stored + 1500 in progress + 100 > 4096",
    );
    // Dropping the one in progress gives its room back.
    const drop = await app.json("DELETE", "/api/user/files/incomplete", {
      id: [next.body.partialIdentifier],
    }, a.headers);
    assert.deepEqual(drop.body, { count: 1 });
    assert.equal((await chunk(app, bytes(1500), 0, 999, a.headers)).status, 200);
  },
);

apiTest("security #7: a BY_FILES quota counts an upload in progress as one file", async (app) => {
  const a = await actor(app, "USER");
  await setQuota(app, a.user.id, { filesQuota: "BY_FILES", maxFiles: 2 });
  assert.equal((await uploadFiles(app, [{ name: "a.txt", content: "a" }], a.headers)).status, 200);
  const file = bytes(1500);
  const started = await chunk(app, file, 0, 999, a.headers);
  assert.equal(started.status, 200, JSON.stringify(started.body));
  assert.deepEqual((await chunk(app, file, 0, 999, a.headers)).body, overQuota("2 files"));
  const plain = await uploadFiles(app, [{ name: "b.txt", content: "b" }], a.headers);
  assert.deepEqual(plain.body, overQuota("2 files"));
  const done = await chunk(app, file, 1000, 1499, {
    ...a.headers,
    "x-service-p-identifier": started.body.partialIdentifier,
  });
  assert.equal(done.body.files.length, 1, JSON.stringify(done.body));
  assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes: 1501, files: 2 });
});

apiTest("security #7: the cleanup task gives back an abandoned upload's room", async (app) => {
  const a = await actor(app, "USER");
  await setQuota(app, a.user.id, { filesQuota: "BY_BYTES", maxBytes: "3kb" });
  const file = bytes(2500);
  assert.equal((await chunk(app, file, 0, 999, a.headers)).status, 200);
  assert.deepEqual((await chunk(app, file, 0, 999, a.headers)).body, overQuota("3kb"));
  app.clock.advance(ABANDONED_AFTER_MS + 1);
  assert.equal(await cleanAbandonedUploads(app.services), 1);
  assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes: 0, files: 0 });
  const again = await sendAll(app, file, 1000, a.headers);
  assert.equal(again.at(-1)!.body.files.length, 1, JSON.stringify(again.at(-1)!.body));
});

apiTest("security #7: no chunk brings more bytes than its upload declared", async (app) => {
  const a = await actor(app, "USER");
  await setQuota(app, a.user.id, { filesQuota: "BY_BYTES", maxBytes: "3kb" });
  const file = bytes(2500);
  const started = await chunk(app, file, 0, 999, a.headers);
  const id = { ...a.headers, "x-service-p-identifier": started.body.partialIdentifier };
  const bigger = bytes(6000);
  for (const [start, end] of [[1000, 1999], [2000, 2999], [5000, 5999]]) {
    const res = await chunk(app, bigger, start, end, id);
    assert.equal(res.status, 400, `${start}-${end}/6000`);
  }
  // A body longer than its Content-Range is refused too.
  const form = new FormData();
  form.append("file", new Blob([bytes(1500).slice()]), "blob");
  const long = await app.request("/api/upload/partial", {
    method: "POST",
    body: form,
    headers: { ...id, "content-range": "bytes 1000-1999/2500" },
  });
  assert.deepEqual(await long.json(), {
    error: "Invalid partial upload: the chunk is not as long as its Content-Range",
    statusCode: 400,
  });
  assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes: 2500, files: 1 });
  const last = await chunk(app, file, 1000, 1999, id).then(() => chunk(app, file, 2000, 2499, id));
  assert.equal(last.body.files.length, 1, JSON.stringify(last.body));
  assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes: 2500, files: 1 });
});

apiTest("security #7: deleting a user drops its uploads in progress", async (app) => {
  const admin = await actor(app, "SUPERADMIN");
  const a = await actor(app, "USER");
  const started = await chunk(app, bytes(2500), 0, 999, a.headers);
  assert.equal(started.status, 200);
  const res = await app.json("DELETE", `/api/users/${a.user.id}`, {}, admin.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(await app.services.store.chunks.get(started.body.partialIdentifier), null);
  assert.deepEqual(await app.services.store.chunks.listByUser(a.user.id), []);
});

apiTest("incomplete: the caller's unfinished uploads, and dropping them", async (app) => {
  const a = await actor(app, "USER");
  const b = await actor(app, "USER");
  const file = bytes(3500);
  const first = await chunk(app, file, 0, 999, a.headers);
  const identifier = first.body.partialIdentifier;
  await chunk(app, file, 2000, 2999, { ...a.headers, "x-service-p-identifier": identifier });
  app.clock.advance(1000);
  const other = await chunk(app, file, 0, 999, {
    ...a.headers,
    "x-zipline-p-filename": "photo.png",
    "x-service-p-content-type": "image/png",
  });
  const theirs = await chunk(app, file, 0, 999, b.headers);

  const list = await app.json("GET", "/api/user/files/incomplete", undefined, a.headers);
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.map((u: { id: string }) => u.id), [
    identifier,
    other.body.partialIdentifier,
  ]);
  const [movie] = list.body;
  assert.deepEqual({ ...movie, createdAt: undefined, updatedAt: undefined }, {
    id: identifier,
    createdAt: undefined,
    updatedAt: undefined,
    status: "PENDING",
    chunksTotal: 4,
    chunksComplete: 2,
    userId: a.user.id,
    metadata: { file: { filename: "movie.mp4", type: "video/mp4", id: identifier } },
  });
  assert.equal(list.body[1].metadata.file.filename, "photo.png");
  assert.equal(list.body[1].metadata.file.type, "image/png");
  assert.equal(list.body[1].chunksComplete, 1);

  // Another's upload and unknown ids are passed over; the caller's go, parts and all.
  const drop = await app.json("DELETE", "/api/user/files/incomplete", {
    id: [identifier, theirs.body.partialIdentifier, "nope"],
  }, a.headers);
  assert.equal(drop.status, 200);
  assert.deepEqual(drop.body, { count: 1 });
  const left = await app.json("GET", "/api/user/files/incomplete", undefined, a.headers);
  assert.deepEqual(left.body.map((u: { id: string }) => u.id), [other.body.partialIdentifier]);
  assert.equal(
    (await app.json("GET", `/api/upload/partial/${identifier}`, undefined, a.headers)).status,
    404,
  );
  const late = await chunk(app, file, 1000, 1999, {
    ...a.headers,
    "x-service-p-identifier": identifier,
  });
  assert.equal(late.status, 400);
  assert.equal(late.body.error, "Partial upload identifier is invalid");
  const bList = await app.json("GET", "/api/user/files/incomplete", undefined, b.headers);
  assert.deepEqual(bList.body.map((u: { id: string }) => u.id), [theirs.body.partialIdentifier]);

  // One being joined is PROCESSING and is not dropped.
  await app.services.store.chunks.claim(other.body.partialIdentifier, new Date(app.clock.now()));
  const joining = await app.json("GET", "/api/user/files/incomplete", undefined, a.headers);
  assert.equal(joining.body[0].status, "PROCESSING");
  const kept = await app.json("DELETE", "/api/user/files/incomplete", {
    id: [other.body.partialIdentifier],
  }, a.headers);
  assert.deepEqual(kept.body, { count: 0 });

  for (const body of [{}, { id: [] }, { id: "x" }]) {
    const bad = await app.json("DELETE", "/api/user/files/incomplete", body, a.headers);
    assert.equal(bad.status, 400, JSON.stringify(body));
  }
  assert.equal((await app.json("GET", "/api/user/files/incomplete")).status, 401);
});

apiTest(
  "conformance: incomplete: DELETE has the default limit (§8.1.4 names no other)",
  async (app) => {
    const a = await actor(app, "USER");
    const drop = () => app.json("DELETE", "/api/user/files/incomplete", { id: ["x"] }, a.headers);
    const first = await drop();
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("x-ratelimit-limit"), "10");
    assert.equal((await drop()).status, 200);
  },
  { rateLimits: true },
);

for (const datasource of ["local", "s3"] as const) {
  apiTest(
    `chunked (${datasource}): GPS data is removed from JPEG and PNG when the setting is on`,
    async (app) => {
      const a = await actor(app, "USER");
      await settings(app, { filesRemoveGpsMetadata: true });
      const jpeg = jpegWithGps();
      const { bytes: png, exifAt } = pngWithGps(true, true);
      for (
        const [image, name, type, tiffAt] of [
          [jpeg, "photo.jpg", "image/jpeg", 12],
          [png, "photo.png", "image/png", exifAt + 8],
        ] as const
      ) {
        const replies = await sendAll(app, image, 64, {
          ...a.headers,
          "x-zipline-p-filename": name,
          "x-service-p-content-type": type,
        });
        const done = replies.at(-1)!;
        assert.equal(done.status, 200, JSON.stringify(done.body));
        assert.equal(done.body.files[0].removedGps, true, name);
        const served = new Uint8Array(
          await (await app.request(`/raw/${done.body.files[0].name}`)).arrayBuffer(),
        );
        assert.equal(served.byteLength, image.byteLength);
        assert.ok(served.subarray(tiffAt + 38, tiffAt + 92).every((b) => b === 0), name);
        assert.deepEqual(served.subarray(0, tiffAt + 38), image.subarray(0, tiffAt + 38));
      }
      // Not an image: joined as sent.
      const other = await sendAll(app, jpeg, 64, a.headers);
      assert.equal(other.at(-1)!.body.files[0].removedGps, undefined);
      const served = await app.request(`/raw/${other.at(-1)!.body.files[0].name}`);
      assert.deepEqual(new Uint8Array(await served.arrayBuffer()), jpeg);
      assert.equal((await app.storedObjects()).length, 3, "no joined object left behind");
    },
    { datasource },
  );
}

apiTest(
  "conformance: an upload's status asked for with a bad token is a declared 401",
  async (app) => {
    const res = await app.json("GET", "/api/upload/partial/abc", undefined, {
      authorization: "x".repeat(8 * 1024),
    });
    assert.equal(res.status, 401);
    assert.equal(res.body.statusCode, 401);
    assert.equal(typeof res.body.error, "string");
  },
);

apiTest(
  "chunked: a join whose process stopped lapses after its term; the last chunk sent again finishes the upload",
  async (app) => {
    const a = await actor(app, "USER");
    const file = bytes(3000);
    const first = await chunk(app, file, 0, 1499, a.headers);
    const identifier = first.body.partialIdentifier;
    const id = { ...a.headers, "x-service-p-identifier": identifier };
    // An instance claimed the join, then was killed before it finished.
    assert.ok(await app.services.store.chunks.claim(identifier, new Date(app.clock.now())));
    const list = async () =>
      (await app.json("GET", "/api/user/files/incomplete", undefined, a.headers)).body;
    assert.equal((await list())[0].status, "PROCESSING");
    const held = await chunk(app, file, 1500, 2999, id);
    assert.equal(held.status, 400, "still held by the stopped join");

    app.clock.advance(CLAIM_TERM_MS);
    assert.equal((await list())[0].status, "PENDING");
    const finished = await chunk(app, file, 1500, 2999, id);
    assert.equal(finished.status, 200, JSON.stringify(finished.body));
    const raw = await app.request(`/raw/${finished.body.files[0].name}`);
    assert.deepEqual(new Uint8Array(await raw.arrayBuffer()), file);
    assert.deepEqual(await list(), []);
  },
);
