/**
 * Small uploads on a disk (issue #18): a request that declares a length of
 * at most `STAGED_REQUEST_MAX` stages its bytes, records the file complete
 * in one store commit, then publishes the bytes under the file's name. What
 * a stop between those steps leaves is settled by the cleanup task, and a
 * failure at any step leaves no record, object or staged bytes behind.
 */
import assert from "node:assert/strict";
import { publishStaged, STAGED_ABANDONED_MS } from "../../core/files/staged_uploads.ts";
import { cleanAbandonedUploads } from "../../core/tasks/cleanup.ts";
import { NotFoundError, type Staging, StorageFullError } from "../../storage/datasource.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadFiles } from "../helpers/files.ts";
import { fileRecord } from "../helpers/stores.ts";
import { answerLost, patchMethod } from "../helpers/patch.ts";
import { actor } from "../helpers/users.ts";

/** The app's staging (the local datasource has one). */
function stagingOf(app: TestApp): Staging {
  const staging = app.services.datasource.staging;
  assert.ok(staging, "the local datasource stages");
  return staging;
}

/** The ids of what is staged now. */
async function stagedIds(app: TestApp): Promise<string[]> {
  return (await Array.fromAsync(stagingOf(app).list())).map((o) => o.id);
}

/** The bytes of a stream, as text. */
const text = (body: ReadableStream<Uint8Array>) => new Response(body).text();

apiTest("staged upload: a small upload is staged, recorded complete and published", async (app) => {
  const user = await actor(app, "USER");
  const ds = app.services.datasource;
  const restore = patchMethod(ds, "put", () => Promise.reject(new Error("put is the other way")));
  const reply = await uploadFiles(app, [{ name: "a.txt", content: "staged bytes" }], user.headers);
  restore();
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  const { id, name } = reply.body.files[0];
  const raw = await app.request(`/raw/${name}`);
  assert.equal(await raw.text(), "staged bytes");
  const record = await app.services.store.files.get(id);
  assert.equal(record?.pending, false);
  assert.equal(record?.size, 12);
  assert.deepEqual(await app.services.store.files.usage(user.user.id), { bytes: 12, files: 1 });
  assert.deepEqual(await stagedIds(app), [], "nothing left staged");
  assert.deepEqual(await app.storedObjects(), [name]);
});

apiTest("staged upload: a body sent without a length records the file first", async (app) => {
  const user = await actor(app, "USER");
  const restore = patchMethod(
    stagingOf(app),
    "stage",
    () => Promise.reject(new Error("staging is the other way")),
  );
  const reply = await uploadFiles(app, [{ name: "a.txt", content: "streamed" }], user.headers, {
    streamed: true,
  });
  restore();
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  const raw = await app.request(`/raw/${reply.body.files[0].name}`);
  assert.equal(await raw.text(), "streamed");
});

apiTest("staged upload: a refusal at the commit leaves nothing staged", async (app) => {
  const user = await actor(app, "USER");
  const headers = { ...user.headers, "x-zipline-filename": "taken" };
  const first = await uploadFiles(app, [{ name: "a.txt", content: "first" }], headers);
  assert.equal(first.status, 200);
  const second = await uploadFiles(app, [{ name: "b.txt", content: "second" }], headers);
  assert.deepEqual(second.body, {
    error: "file[0]: file with the same name already exists",
    statusCode: 400,
  });
  await app.services.store.users.update(user.user.id, {
    quota: { id: "q1", maxBytes: null, maxFiles: 1, maxUrls: null, filesQuota: "BY_FILES" },
  } as never, new Date());
  const third = await uploadFiles(app, [{ name: "c.txt", content: "third" }], user.headers);
  assert.equal(third.status, 403);
  assert.deepEqual(await stagedIds(app), []);
  assert.deepEqual(await app.storedObjects(), ["taken.txt"]);
  assert.equal(await (await app.request("/raw/taken.txt")).text(), "first");
  assert.deepEqual(await app.services.store.files.usage(user.user.id), { bytes: 5, files: 1 });
});

apiTest("staged upload: a full disk answers 507 and keeps nothing", async (app) => {
  const user = await actor(app, "USER");
  const restore = patchMethod(
    stagingOf(app),
    "stage",
    async (_id: string, body: ReadableStream) => {
      await body.cancel();
      throw new StorageFullError(Object.assign(new Error("No space left"), { code: "ENOSPC" }));
    },
  );
  const reply = await uploadFiles(app, [{ name: "a.txt", content: "no room" }], user.headers);
  restore();
  assert.deepEqual(reply.body, {
    error: "Insufficient Storage: the server has no room left",
    statusCode: 507,
  });
  assert.deepEqual(await app.services.store.files.usage(user.user.id), { bytes: 0, files: 0 });
  assert.deepEqual(await app.storedObjects(), []);
});

apiTest("staged upload: a publish that fails takes the record back", async (app) => {
  const user = await actor(app, "USER");
  const restore = patchMethod(
    stagingOf(app),
    "publish",
    () => Promise.reject(new Error("disk gone")),
  );
  const reply = await uploadFiles(app, [{ name: "a.txt", content: "lost" }], user.headers);
  restore();
  assert.equal(reply.status, 500);
  const listed = await app.json("GET", "/api/user/files?page=1", undefined, user.headers);
  assert.equal(listed.body.page.length, 0);
  assert.deepEqual(await app.services.store.files.usage(user.user.id), { bytes: 0, files: 0 });
  assert.deepEqual(await stagedIds(app), []);
  assert.deepEqual(await app.storedObjects(), []);
});

apiTest(
  "staged upload: a commit whose answer is lost keeps the bytes staged; the cleanup publishes them",
  async (app) => {
    const user = await actor(app, "USER");
    const stop = answerLost(app.services.store.files, "create"); // the commit lands, its answer does not
    const reply = await uploadFiles(app, [{ name: "a.txt", content: "committed" }], user.headers);
    stop();
    assert.ok(reply.status >= 500, `${reply.status}: an error, 503 where the store names it`);
    const [id] = await stagedIds(app);
    assert.ok(id, "the bytes stay staged");
    const record = await app.services.store.files.get(id);
    assert.equal(record?.pending, false);

    assert.ok(await cleanAbandonedUploads(app.services) >= 1);
    assert.deepEqual(await stagedIds(app), []);
    assert.equal(await (await app.request(`/raw/${record.name}`)).text(), "committed");
  },
);

apiTest(
  "staged upload: bytes committed but not published are published by the cleanup",
  async (app) => {
    const user = await actor(app, "USER");
    const staging = stagingOf(app);
    await staging.stage("cstopped", ReadableStream.from([new TextEncoder().encode("kept")]));
    const record = fileRecord(user.user.id, { id: "cstopped", name: "stop.txt", size: 4 });
    await app.services.store.files.create(record, { maxBytes: null, maxFiles: null });
    assert.equal((await app.request("/raw/stop.txt")).status, 404, "not yet published");
    assert.equal(await cleanAbandonedUploads(app.services), 1);
    const raw = await app.request("/raw/stop.txt");
    assert.equal(raw.status, 200);
    assert.equal(await raw.text(), "kept");
    assert.deepEqual(await stagedIds(app), []);
  },
);

apiTest("staged upload: bytes nobody recorded are removed after an hour", async (app) => {
  const staging = stagingOf(app);
  await staging.stage("corphan", ReadableStream.from([new TextEncoder().encode("orphan")]));
  assert.equal(await cleanAbandonedUploads(app.services), 0, "perhaps an upload under way");
  assert.deepEqual(await stagedIds(app), ["corphan"]);
  app.clock.advance(STAGED_ABANDONED_MS + 1000);
  assert.equal(await cleanAbandonedUploads(app.services), 1);
  assert.deepEqual(await stagedIds(app), []);
  assert.deepEqual(await app.storedObjects(), []);
});

apiTest("staged upload: a publish the cleanup did first is done", async (app) => {
  const staging = stagingOf(app);
  await staging.stage("craced", ReadableStream.from([new TextEncoder().encode("raced")]));
  await staging.publish("craced", "raced.txt");
  await publishStaged(app.services, staging, "craced", "raced.txt");
  assert.equal(await text((await app.services.datasource.get("raced.txt"))!), "raced");
  await assert.rejects(publishStaged(app.services, staging, "cnever", "never.txt"), NotFoundError);
});
