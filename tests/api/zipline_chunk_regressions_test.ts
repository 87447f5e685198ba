/**
 * Bugs Zipline's chunked uploads had, as regression tests against Ferry's
 * (`POST /api/upload/partial`, `GET /api/upload/partial/{identifier}`), each
 * named by its Zipline issue; on both stores, and on both datasources where
 * the bytes' path differs (S3 joins parts as a multipart upload or staged).
 */
import assert from "node:assert/strict";
import { createApp } from "../../routes/mod.ts";
import { apiTest, type JsonReply, type TestApp } from "../helpers/app.ts";
import { bytes, chunk, type Send, sendAll } from "../helpers/chunks.ts";
import { uploadFiles } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";

const KIB = 1024;
const MIB = 1024 * KIB;
const GIB = 1024 * MIB;

async function settings(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.settings.update(values);
  await app.services.settings.reload();
}

/** The bytes `/raw/<name>` serves. */
async function served(app: TestApp, name: string): Promise<Uint8Array> {
  return new Uint8Array(await (await app.request(`/raw/${name}`)).arrayBuffer());
}

/** The caller's complete files, as the dashboard lists them. */
async function listed(app: TestApp, headers: Record<string, string>) {
  const reply = await app.json("GET", "/api/user/files?page=1&perpage=50", undefined, headers);
  assert.equal(reply.status, 200);
  return reply.body.page as { id: string; name: string; size: number }[];
}

/** The reply among `replies` that carries the joined file. */
function finished(replies: JsonReply[]) {
  const done = replies.filter((r) => r.body.files?.length === 1);
  assert.equal(done.length, 1, JSON.stringify(replies.map((r) => r.body)));
  return done[0].body.files[0] as { id: string; name: string; url: string };
}

for (
  const [datasource, size, total] of [
    ["local", 1000, 5500],
    ["s3", 1000, 5500],
    ["s3", 5 * MIB, 15 * MIB + 7],
  ] as const
) {
  apiTest(
    `zipline #771: chunks sent out of order reassemble byte for byte (${datasource}, ${size}-byte chunks)`,
    async (app) => {
      const a = await actor(app, "USER");
      const file = bytes(total);
      const first = await chunk(app, file, 0, size - 1, a.headers);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const id = { ...a.headers, "x-service-p-identifier": first.body.partialIdentifier };
      const starts = [];
      for (let start = size; start < total; start += size) starts.push(start);
      // The short last chunk first, then the others from the end back.
      const replies = [];
      for (const start of starts.reverse()) {
        replies.push(await chunk(app, file, start, Math.min(start + size, total) - 1, id));
      }
      assert.ok(replies.every((r) => r.status === 200), JSON.stringify(replies.map((r) => r.body)));
      const stored = finished(replies);
      assert.equal(replies.at(-1)!.body.files.length, 1, "the chunk that completes it answers");
      assert.deepEqual(await served(app, stored.name), file);
      const [record] = await listed(app, a.headers);
      assert.equal(record.size, total);
    },
    { datasource },
  );
}

apiTest(
  "zipline #771: chunks sent at once, in shuffled order, reassemble byte for byte",
  async (app) => {
    const a = await actor(app, "USER");
    const file = bytes(8000);
    const first = await chunk(app, file, 0, 999, a.headers);
    const id = { ...a.headers, "x-service-p-identifier": first.body.partialIdentifier };
    const replies = await Promise.all(
      [5000, 2000, 7000, 1000, 6000, 3000, 4000].map((start) =>
        chunk(app, file, start, start + 999, id)
      ),
    );
    assert.deepEqual(await served(app, finished(replies).name), file);
  },
);

for (const datasource of ["local", "s3"] as const) {
  apiTest(
    `zipline #995: a resumed upload continues from the server's progress, not from zero (${datasource}; 4 GiB declared, 512 KiB chunks)`,
    async (app) => {
      // Scaled down: the upload declares 4 GiB and a few of its 512 KiB chunks are sent; what
      // is checked is that after a restart the client learns how far it got and carries on.
      await settings(app, { filesMaxFileSize: "5gb", chunksMax: "5gb", chunksSize: "1mb" });
      const a = await actor(app, "USER");
      const total = 4 * GIB;
      const size = 512 * KIB;
      const piece = (n: number) => bytes(size).map((b) => (b + n) % 256);
      /** Sends chunk `n` of the declared 4 GiB (its bytes made up), through `via`. */
      const send = async (n: number, headers: Record<string, string>, via: Send = app.request) => {
        const form = new FormData();
        form.append("file", new Blob([piece(n)]), "blob");
        const res = await via("/api/upload/partial", {
          method: "POST",
          body: form,
          headers: {
            ...headers,
            "content-range": `bytes ${n * size}-${(n + 1) * size - 1}/${total}`,
            "x-zipline-p-filename": "backup.tar",
            "x-service-p-content-length": String(total),
          },
        });
        const reply = { status: res.status, body: await res.json() };
        assert.equal(reply.status, 200, JSON.stringify(reply.body));
        return reply;
      };
      const started = await send(0, a.headers);
      const identifier = started.body.partialIdentifier;
      const id = { ...a.headers, "x-service-p-identifier": identifier };
      await send(1, id);
      await send(2, id);
      // The declared size is reserved in the owner's usage from the first chunk.
      assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes: total, files: 1 });

      // Another instance over the same store and datasource (a restart): nothing was in memory.
      const restarted = createApp(app.services, { checkResponses: true });
      const via: Send = async (path, init) =>
        await restarted.request(`http://ferry.test${path}`, init);
      const status = async () => {
        const res = await via(`/api/upload/partial/${identifier}`, { headers: a.headers });
        assert.equal(res.status, 200);
        return await res.json();
      };
      const progress = await status();
      assert.deepEqual(progress, {
        identifier,
        size: total,
        partSize: size,
        received: [[0, 3 * size - 1]],
        complete: false,
      });
      // The client resumes at the first byte the server lacks.
      const next = (progress.received[0][1] + 1) / size;
      assert.equal(next, 3);
      await send(next, id, via);
      assert.deepEqual((await status()).received, [[0, 4 * size - 1]]);
      const incomplete = await app.json("GET", "/api/user/files/incomplete", undefined, a.headers);
      assert.equal(incomplete.body.length, 1);
      assert.equal(incomplete.body[0].chunksComplete, 4);
      assert.equal(incomplete.body[0].chunksTotal, total / size);

      const drop = await app.json("DELETE", "/api/user/files/incomplete", {
        id: [identifier],
      }, a.headers);
      assert.deepEqual(drop.body, { count: 1 });
      assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes: 0, files: 0 });
      assert.deepEqual(await app.storedObjects(), [], "its parts are gone");
    },
    { datasource },
  );
}

apiTest(
  "zipline #1072: a batch keeps every file when one of them is chunked",
  async (app) => {
    const a = await actor(app, "USER");
    const big = bytes(4500);
    const other = bytes(3000).map((b) => 255 - b);
    // What Zipline's dashboard does with a batch: the small files in one request, each large
    // one in chunks, all at the same time.
    const [small, chunked, second] = await Promise.all([
      uploadFiles(app, [
        { name: "one.txt", content: "one" },
        { name: "two.txt", content: "two" },
      ], a.headers),
      sendAll(app, big, 1000, { ...a.headers, "x-zipline-p-filename": "big.bin" }),
      sendAll(app, other, 1000, { ...a.headers, "x-zipline-p-filename": "other.bin" }),
    ]);
    assert.equal(small.status, 200, JSON.stringify(small.body));
    const bigFile = finished(chunked);
    const otherFile = finished(second);
    const names = (await listed(app, a.headers)).map((f) => f.name).sort();
    assert.deepEqual(
      names,
      [...small.body.files.map((f: { name: string }) => f.name), bigFile.name, otherFile.name]
        .sort(),
    );
    assert.deepEqual(await served(app, bigFile.name), big);
    assert.deepEqual(await served(app, otherFile.name), other);
    assert.equal(new TextDecoder().decode(await served(app, small.body.files[1].name)), "two");
    assert.deepEqual(await app.services.store.files.usage(a.user.id), {
      bytes: 4500 + 3000 + 6,
      files: 4,
    });
  },
);

apiTest(
  "zipline #768: chunks do not get around filesMaxFileSize",
  async (app) => {
    const a = await actor(app, "USER");
    await settings(app, { filesMaxFileSize: "2000b", chunksMax: "95mb" });
    const tooBig = bytes(2500);
    const refused = await chunk(app, tooBig, 0, 999, a.headers);
    assert.deepEqual(refused.body, {
      error: "File size is too large. Maximum file size is 2000 bytes",
      statusCode: 413,
    });

    // Declaring a small total and sending more: every chunk must agree with the first.
    const small = bytes(2000);
    const started = await chunk(app, small, 0, 999, a.headers);
    assert.equal(started.status, 200);
    const id = { ...a.headers, "x-service-p-identifier": started.body.partialIdentifier };
    assert.equal((await chunk(app, tooBig, 1000, 1999, id)).status, 413, "past the limit");
    const lying = await chunk(app, bytes(1900), 1000, 1899, id);
    assert.equal(lying.status, 400, "another total than the first chunk's");
    assert.match(lying.body.error, /^Invalid partial upload: chunks of this upload are 1000 bytes/);
    // The limit lowered while the upload runs: its next chunk is refused.
    await settings(app, { filesMaxFileSize: "1500b" });
    const lowered = await chunk(app, small, 1000, 1999, id);
    assert.equal(lowered.status, 413);
    assert.deepEqual(await listed(app, a.headers), []);

    await settings(app, { filesMaxFileSize: "2000b" });
    const done = await chunk(app, small, 1000, 1999, id);
    assert.equal(done.body.files.length, 1, "within the limit it completes");
    assert.deepEqual(await served(app, done.body.files[0].name), small);
  },
);

for (const datasource of ["local", "s3"] as const) {
  apiTest(
    `zipline #543: chunked uploads leave no 0-byte rows (${datasource})`,
    async (app) => {
      const a = await actor(app, "USER");
      const admin = await actor(app, "ADMIN");
      const zeros = async () =>
        (await app.json("GET", "/api/server/clear_zeros", undefined, admin.headers)).body.files;
      const file = bytes(2500);
      const first = await chunk(app, file, 0, 999, a.headers);
      const id = { ...a.headers, "x-service-p-identifier": first.body.partialIdentifier };
      // In progress: no file row at all, so none of size 0.
      assert.deepEqual(await listed(app, a.headers), []);
      assert.deepEqual(await zeros(), []);

      await chunk(app, file, 1000, 1999, id);
      const done = await chunk(app, file, 2000, 2499, id);
      const [stored] = done.body.files;
      const [record] = await listed(app, a.headers);
      assert.equal(record.size, 2500);
      const raw = await app.request(`/raw/${stored.name}`);
      assert.equal(raw.headers.get("content-length"), "2500");
      assert.deepEqual(new Uint8Array(await raw.arrayBuffer()), file);
      assert.deepEqual(await zeros(), []);

      // An upload dropped half way leaves neither a row nor bytes.
      const dropped = await chunk(app, file, 0, 999, a.headers);
      await app.json("DELETE", "/api/user/files/incomplete", {
        id: [dropped.body.partialIdentifier],
      }, a.headers);
      assert.deepEqual((await listed(app, a.headers)).map((f) => f.size), [2500]);
      assert.deepEqual(await zeros(), []);
      assert.deepEqual(await app.storedObjects(), [stored.name]);
    },
    { datasource },
  );
}
