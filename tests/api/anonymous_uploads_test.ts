/**
 * Uploads into another's open folder (`allowUploads`), anonymous or by a
 * signed-in stranger (issue #30, item 4): they count against the folder
 * owner's quota, plain and chunked, and are never compressed — on both stores.
 */
import assert from "node:assert/strict";
import type { QuotaRecord } from "../../db/users.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { bytes, chunk, sendAll } from "../helpers/chunks.ts";
import { uploadFiles } from "../helpers/files.ts";
import { redSquare } from "../helpers/images.ts";
import { type Actor, actor } from "../helpers/users.ts";

/** A folder of `owner`'s that accepts uploads; returns its id. */
async function openFolder(app: TestApp, owner: Actor, name = "drop"): Promise<string> {
  const made = await app.json("POST", "/api/user/folders", { name }, owner.headers);
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const id = made.body.id as string;
  const opened = await app.json(
    "PATCH",
    `/api/user/folders/${id}`,
    { allowUploads: true },
    owner.headers,
  );
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  return id;
}

async function setQuota(app: TestApp, userId: string, quota: Partial<QuotaRecord>) {
  await app.services.store.users.update(userId, {
    quota: { id: "q", filesQuota: "NONE", maxBytes: null, maxFiles: null, maxUrls: null, ...quota },
  }, new Date());
}

/** The owner's storage as `GET /api/user/stats` shows it: files and bytes. */
async function ownerStats(app: TestApp, owner: Actor) {
  const res = await app.json("GET", "/api/user/stats", undefined, owner.headers);
  assert.equal(res.status, 200);
  return { files: res.body.filesUploaded, bytes: res.body.storageUsed };
}

const ownersQuota = (files = 1) => ({
  error: `Uploading ${files > 1 ? "these files" : "this file"} would exceed the folder ` +
    "owner's quota",
  statusCode: files > 1 ? 413 : 403,
});

apiTest(
  "security #30.4: an anonymous upload into an open folder counts against the owner's bytes quota",
  async (app) => {
    const owner = await actor(app, "USER");
    const stranger = await actor(app, "USER");
    const drop = await openFolder(app, owner);
    await setQuota(app, owner.user.id, { filesQuota: "BY_BYTES", maxBytes: "2kb" });
    const into = { "x-service-folder": drop };

    const first = await uploadFiles(app, [{ name: "a.bin", content: bytes(1500) }], into);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(await ownerStats(app, owner), { files: 1, bytes: 1500 });
    assert.deepEqual(await app.services.store.files.usage(owner.user.id), {
      bytes: 1500,
      files: 1,
    });

    // 1500 + 1000 > 2048: refused, anonymous or by a signed-in stranger, as the owner's own is.
    const file = [{ name: "b.bin", content: bytes(1000) }];
    const anonymous = await uploadFiles(app, file, into);
    assert.deepEqual(anonymous.body, ownersQuota());
    const byStranger = await uploadFiles(app, file, { ...stranger.headers, ...into });
    assert.deepEqual(byStranger.body, ownersQuota());
    const two = await uploadFiles(app, [...file, { name: "c.bin", content: "c" }], into);
    assert.deepEqual(two.body, ownersQuota(2));
    const own = await uploadFiles(app, file, { ...owner.headers, ...into });
    assert.deepEqual(own.body, {
      error: "Uploading this file would exceed your quota of 2kb",
      statusCode: 403,
    });
    // A file streamed past the room left is refused too (no Content-Length to check first).
    const streamed = await uploadFiles(app, file, into, { streamed: true });
    assert.deepEqual(streamed.body, ownersQuota());

    // Nothing of the refused ones stayed; the stranger's own usage never moved.
    assert.deepEqual(await ownerStats(app, owner), { files: 1, bytes: 1500 });
    assert.deepEqual(await ownerStats(app, stranger), { files: 0, bytes: 0 });
    const small = await uploadFiles(app, [{ name: "d.bin", content: bytes(500) }], into);
    assert.equal(small.status, 200, JSON.stringify(small.body));
    assert.deepEqual(await ownerStats(app, owner), { files: 2, bytes: 2000 });
  },
);

apiTest(
  "security #30.4: anonymous uploads count against the owner's files quota",
  async (app) => {
    const owner = await actor(app, "USER");
    const drop = await openFolder(app, owner);
    await setQuota(app, owner.user.id, { filesQuota: "BY_FILES", maxFiles: 2 });
    const into = { "x-zipline-folder": drop };
    for (const name of ["a.txt", "b.txt"]) {
      const res = await uploadFiles(app, [{ name, content: name }], into);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const third = await uploadFiles(app, [{ name: "c.txt", content: "c" }], into);
    assert.deepEqual(third.body, ownersQuota());
    assert.deepEqual((await ownerStats(app, owner)).files, 2);
  },
);

apiTest(
  "security #30.4: an anonymous chunked upload reserves its size in the owner's quota from its first chunk",
  async (app) => {
    const owner = await actor(app, "USER");
    const drop = await openFolder(app, owner);
    await setQuota(app, owner.user.id, { filesQuota: "BY_BYTES", maxBytes: "4kb" });
    const into = { "x-service-folder": drop };

    const file = bytes(2500);
    const started = await chunk(app, file, 0, 999, into);
    assert.equal(started.status, 200, JSON.stringify(started.body));
    assert.deepEqual(await app.services.store.files.usage(owner.user.id), {
      bytes: 2500,
      files: 1,
    });
    // A second one would pass the quota together with the first: refused at its first chunk.
    const second = await chunk(app, bytes(2000), 0, 999, into);
    assert.deepEqual(second.body, ownersQuota());
    const plain = await uploadFiles(app, [{ name: "a.bin", content: bytes(2000) }], into);
    assert.deepEqual(plain.body, ownersQuota(), "a plain upload sees the reservation");

    // Completed, the reservation becomes the file: counted once.
    const id = { ...into, "x-service-p-identifier": started.body.partialIdentifier };
    await chunk(app, file, 1000, 1999, id);
    const done = await chunk(app, file, 2000, 2499, id);
    assert.equal(done.body.files.length, 1, JSON.stringify(done.body));
    assert.deepEqual(await ownerStats(app, owner), { files: 1, bytes: 2500 });
    assert.deepEqual(await app.services.store.files.usage(owner.user.id), {
      bytes: 2500,
      files: 1,
    });
    const over = await sendAll(app, bytes(2000), 1000, into);
    assert.deepEqual(over[0].body, ownersQuota());
  },
);

apiTest(
  "security #30.4: compression headers on an anonymous upload are ignored: stored as it came",
  async (app) => {
    const owner = await actor(app, "USER");
    const stranger = await actor(app, "USER");
    const drop = await openFolder(app, owner);
    const png = redSquare(64);
    const compress = {
      "x-service-folder": drop,
      "x-service-image-compression-percent": "50",
      "x-zipline-image-compression-type": "jpg",
    };
    const send = (headers: Record<string, string>) =>
      uploadFiles(app, [{ name: "photo.png", content: png, type: "image/png" }], headers);

    for (const headers of [compress, { ...stranger.headers, ...compress }]) {
      const res = await send(headers);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const [file] = res.body.files;
      assert.equal(file.compressed, undefined);
      assert.equal(file.type, "image/png");
      assert.match(file.name, /\.png$/);
      const served = await app.request(`/raw/${file.name}`);
      assert.equal(served.headers.get("content-type"), "image/png");
      assert.deepEqual(new Uint8Array(await served.arrayBuffer()), png, "the bytes as sent");
    }

    // The owner's own upload into the same folder is compressed as asked.
    const own = await send({ ...owner.headers, ...compress });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.deepEqual(own.body.files[0].compressed, { mimetype: "image/jpeg", ext: "jpg" });
    assert.match(own.body.files[0].name, /\.jpg$/);
  },
);
