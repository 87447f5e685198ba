/**
 * What the soak (`tests/e2e/soak_test.ts`) found when the datasource fails:
 * a full disk answers 507 and keeps nothing; a bucket out of reach answers
 * 503; a join that fails leaves the chunked upload resumable; an upload whose
 * bytes may have landed keeps its pending record until the cleanup task
 * removes both, so no object is left without a record.
 */
import assert from "node:assert/strict";
import { cleanAbandonedUploads } from "../../core/tasks/cleanup.ts";
import { type Datasource, StorageFullError } from "../../storage/datasource.ts";
import { LocalDatasource } from "../../storage/local.ts";
import { apiTest, type JsonReply, type TestApp } from "../helpers/app.ts";
import { bytes, chunk } from "../helpers/chunks.ts";
import { mountTmpfs } from "../helpers/soak/disk.ts";
import { uploadFiles } from "../helpers/files.ts";
import { answerLost, patchMethod } from "../helpers/patch.ts";
import { actor } from "../helpers/users.ts";

/** An error as the S3 client throws it when the bucket refuses connections. */
function refused(): Error {
  return Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
}

/** Replaces `method` of the app's datasource until the returned function is called. */
function patch<K extends keyof Datasource>(app: TestApp, method: K, fn: Datasource[K]): () => void {
  return patchMethod(app.services.datasource, method, fn);
}

/** A user's chunked upload of 3000 bytes with its first half sent: the user, the bytes, the headers of the second half. */
async function halfSent(app: TestApp) {
  const user = await actor(app, "USER");
  const file = bytes(3000);
  const first = await chunk(app, file, 0, 1499, user.headers);
  const headers = { ...user.headers, "x-zipline-p-identifier": first.body.partialIdentifier };
  return { user, file, headers, identifier: first.body.partialIdentifier as string };
}

/** Asserts that `reply` finished the upload of `file`: 200, served whole, the only object left. */
async function assertFinishedAlone(app: TestApp, reply: JsonReply, file: Uint8Array) {
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  const name = reply.body.files[0].name;
  const raw = await app.request(`/raw/${name}`);
  assert.deepEqual(new Uint8Array(await raw.arrayBuffer()), file);
  assert.deepEqual(await app.storedObjects(), [name], "nothing else left");
}

async function upload(app: TestApp, headers: Record<string, string>) {
  const form = new FormData();
  form.append("file", new Blob([bytes(5000) as BlobPart]), "a.bin");
  const res = await app.request("/api/upload", { method: "POST", body: form, headers });
  return { status: res.status, body: await res.json() };
}

apiTest("a full disk answers 507 with the error body and keeps no record", async (app) => {
  const user = await actor(app, "USER");
  const restore = patch(app, "put", async (_name, body) => {
    await body.cancel();
    throw new StorageFullError(Object.assign(new Error("No space left"), { code: "ENOSPC" }));
  });
  const res = await upload(app, user.headers);
  assert.equal(res.status, 507);
  assert.deepEqual(res.body, {
    error: "Insufficient Storage: the server has no room left",
    statusCode: 507,
  });
  restore();
  const files = await app.json("GET", "/api/user/files?page=1", undefined, user.headers);
  assert.equal(files.body.page.length, 0);
  assert.deepEqual(await app.storedObjects(), []);
  assert.equal((await upload(app, user.headers)).status, 200);
});

apiTest("a join the bucket refuses answers 503 and the upload resumes", async (app) => {
  const user = await actor(app, "USER");
  const file = bytes(3000);
  const first = await chunk(app, file, 0, 1499, user.headers);
  assert.equal(first.status, 200);
  const id = { "x-zipline-p-identifier": first.body.partialIdentifier };
  const restore = patch(app, "completeParts", () => Promise.reject(refused()));
  const failed = await chunk(app, file, 1500, 2999, { ...user.headers, ...id });
  restore();
  assert.equal(failed.status, 503);
  assert.deepEqual(failed.body, { error: "Service Unavailable", statusCode: 503 });
  assert.equal(failed.headers.get("retry-after"), "5");

  const status = await app.json(
    "GET",
    `/api/upload/partial/${first.body.partialIdentifier}`,
    undefined,
    user.headers,
  );
  assert.equal(status.status, 200, "the upload is still there");
  assert.deepEqual(status.body.received, [[0, 2999]]);
  const again = await chunk(app, file, 1500, 2999, { ...user.headers, ...id });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  const name = again.body.files[0].name;
  const raw = await app.request(`/raw/${name}`);
  assert.deepEqual(new Uint8Array(await raw.arrayBuffer()), file);
});

apiTest(
  "a move the bucket refuses after the join answers 503; the upload resumes without joining again",
  async (app) => {
    const { user, file, headers } = await halfSent(app);
    const stopRename = patch(app, "rename", () => Promise.reject(refused()));
    const failed = await chunk(app, file, 1500, 2999, headers);
    stopRename();
    assert.equal(failed.status, 503);
    assert.deepEqual(failed.body, { error: "Service Unavailable", statusCode: 503 });
    const listed = await app.json("GET", "/api/user/files?page=1", undefined, user.headers);
    assert.equal(listed.body.page.length, 0, "no file yet");

    let joins = 0;
    const ds = app.services.datasource;
    const completeParts = ds.completeParts.bind(ds);
    const stopCount = patch(app, "completeParts", (...args) => (joins++, completeParts(...args)));
    const again = await chunk(app, file, 1500, 2999, headers);
    stopCount();
    assert.equal(joins, 0, "the parts joined by the first try were not joined again");
    await assertFinishedAlone(app, again, file);
  },
);

apiTest(
  "a store failure after the joined bytes moved puts them back; the upload resumes",
  async (app) => {
    const { user, file, headers } = await halfSent(app);
    const chunks = app.services.store.chunks as unknown as Record<string, unknown>;
    chunks.unreserve = () => Promise.reject(new Error("the store went away"));
    const failed = await chunk(app, file, 1500, 2999, headers);
    delete chunks.unreserve;
    assert.equal(failed.status, 500);
    const listed = await app.json("GET", "/api/user/files?page=1", undefined, user.headers);
    assert.equal(listed.body.page.length, 0, "no file yet");

    await assertFinishedAlone(app, await chunk(app, file, 1500, 2999, headers), file);
  },
);

apiTest(
  "a joined upload never finished is removed whole by the idle sweep",
  async (app) => {
    const { user, file, headers, identifier } = await halfSent(app);
    const stopRename = patch(app, "rename", () => Promise.reject(refused()));
    assert.equal((await chunk(app, file, 1500, 2999, headers)).status, 503);
    stopRename();
    app.clock.advance(25 * 60 * 60 * 1000);
    assert.ok(await cleanAbandonedUploads(app.services) >= 1);
    assert.deepEqual(await app.storedObjects(), [], "the joined object went with the upload");
    const status = await app.json(
      "GET",
      `/api/upload/partial/${identifier}`,
      undefined,
      user.headers,
    );
    assert.equal(status.status, 404);
  },
);

apiTest(
  "an upload whose answer the bucket lost keeps its record until the cleanup removes both",
  async (app) => {
    const user = await actor(app, "USER");
    const ds = app.services.datasource;
    const put = ds.put.bind(ds);
    const stopPut = patch(app, "put", async (name, body, options) => {
      await put(name, body, options); // the bytes land, the answer does not
      throw Object.assign(new Error("connection reset"), { code: "ECONNRESET" });
    });
    const stopDelete = patch(app, "delete", () => Promise.reject(refused()));
    const res = await upload(app, user.headers);
    stopPut();
    stopDelete();
    assert.equal(res.status, 503);
    const [object] = await app.storedObjects();
    assert.ok(object, "the bytes landed");
    const record = await app.services.store.files.getByName(object);
    assert.equal(record?.pending, true, "the pending record stays with them");
    const listed = await app.json("GET", "/api/user/files?page=1", undefined, user.headers);
    assert.equal(listed.body.page.length, 0, "the user sees no file");

    app.clock.advance(25 * 60 * 60 * 1000);
    assert.ok(await cleanAbandonedUploads(app.services) >= 1);
    assert.deepEqual(await app.storedObjects(), []);
    assert.equal(await app.services.store.files.getByName(object), null);
  },
);

apiTest(
  "a completion committed with its answer lost keeps the file whole (its bytes are not removed)",
  async (app) => {
    const user = await actor(app, "USER");
    const stop = answerLost(app.services.store.files, "complete"); // the commit lands, its answer does not
    const reply = await uploadFiles(app, [{ name: "a.txt", content: "kept whole" }], user.headers, {
      streamed: true,
    });
    stop();
    assert.ok(reply.status >= 500, `${reply.status}: an error, 503 where the store names it`);
    const [object] = await app.storedObjects();
    assert.ok(object, "the bytes stay");
    const record = await app.services.store.files.getByName(object);
    assert.equal(record?.pending, false);
    assert.equal(await (await app.request(`/raw/${object}`)).text(), "kept whole");

    app.clock.advance(25 * 60 * 60 * 1000);
    await cleanAbandonedUploads(app.services);
    assert.equal(await (await app.request(`/raw/${object}`)).text(), "kept whole");
  },
);

apiTest(
  "a chunked upload's completion committed with its answer lost keeps the file whole",
  async (app) => {
    const { user, file, headers } = await halfSent(app);
    const stop = answerLost(app.services.store.files, "complete"); // the commit lands, its answer does not
    const last = await chunk(app, file, 1500, 2999, headers);
    stop();
    assert.ok(last.status >= 500, `${last.status}: an error, 503 where the store names it`);
    const listed = await app.json("GET", "/api/user/files?page=1", undefined, user.headers);
    assert.equal(listed.body.page.length, 1, "the file landed");
    const raw = await app.request(`/raw/${listed.body.page[0].name}`);
    assert.deepEqual(new Uint8Array(await raw.arrayBuffer()), file);
    assert.deepEqual(await app.storedObjects(), [listed.body.page[0].name], "nothing else left");
  },
);

Deno.test({
  name:
    "the local datasource turns ENOSPC into StorageFullError and keeps no staging file, staged or not",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "ferry-full-" });
    const mount = await mountTmpfs(dir, 1);
    try {
      if (!mount) {
        // This machine allows no mount (not root): StorageFullError's answer is tested above.
        await t.step({ name: "needs a tmpfs mount", ignore: true, fn() {} });
        return;
      }
      const ds = new LocalDatasource(dir);
      await assert.rejects(
        ds.put("big.bin", ReadableStream.from([new Uint8Array(2 * 1024 * 1024)])),
        StorageFullError,
      );
      assert.deepEqual([...Deno.readDirSync(`${dir}/.tmp`)], []);
      assert.equal(await ds.size("big.bin"), null);
      await assert.rejects(
        ds.staging.stage("cbig", ReadableStream.from([new Uint8Array(2 * 1024 * 1024)])),
        StorageFullError,
        "staged bytes too",
      );
      assert.deepEqual([...Deno.readDirSync(`${dir}/.tmp`)], []);
    } finally {
      await mount?.unmount();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
