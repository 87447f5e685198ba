/**
 * The administrators' maintenance routes: clearing the temp directory,
 * files recorded with a size of 0, and sizes re-read from the datasource.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadOne } from "../helpers/files.ts";
import { type Actor, actor } from "../helpers/users.ts";

const MISSING =
  "At least one file did not exist within the datasource but was on the database, re run the " +
  "script with the force delete option on to remove these files.";

/** Uploads `content` and then records the file's size as `size`, as a broken import might. */
async function misrecorded(app: TestApp, owner: Actor, content: string, size: number) {
  const file = await uploadOne(app, owner.headers, content, `${content}.txt`);
  await app.services.store.files.resize(file.id, size, new Date(app.clock.now()));
  return file;
}

const sizeOf = async (app: TestApp, owner: Actor, id: string) =>
  (await app.json("GET", `/api/user/files/${id}`, undefined, owner.headers)).body.size;

apiTest("clear_zeros: lists the files of size 0, then removes records and bytes", async (app) => {
  const admin = await actor(app, "ADMIN");
  const user = await actor(app, "USER");
  const zero = await misrecorded(app, user, "abc", 0);
  const kept = await uploadOne(app, user.headers, "12345", "kept.txt");

  const list = await app.json("GET", "/api/server/clear_zeros", undefined, admin.headers);
  assert.equal(list.status, 200);
  assert.deepEqual(list.body, { files: [{ id: zero.id, name: zero.name }] });

  const clear = await app.json("DELETE", "/api/server/clear_zeros", undefined, admin.headers);
  assert.equal(clear.status, 200);
  assert.deepEqual(clear.body, { status: "Cleared 1 files with a size of 0." });
  assert.equal(
    (await app.json("GET", `/api/user/files/${zero.id}`, undefined, user.headers)).status,
    404,
  );
  assert.deepEqual(await app.storedObjects(), [kept.name]);
  const again = await app.json("GET", "/api/server/clear_zeros", undefined, admin.headers);
  assert.deepEqual(again.body, { files: [] });
  const none = await app.json("DELETE", "/api/server/clear_zeros", undefined, admin.headers);
  assert.deepEqual(none.body, { status: "Cleared 0 files with a size of 0." });
});

apiTest(
  "requery_size: zero sizes re-read; forceUpdate re-reads all; usage follows",
  async (app) => {
    const admin = await actor(app, "ADMIN");
    const user = await actor(app, "USER");
    const zero = await misrecorded(app, user, "abc", 0);
    const wrong = await misrecorded(app, user, "12345", 2);

    const plain = await app.json("POST", "/api/server/requery_size", {}, admin.headers);
    assert.equal(plain.status, 200);
    assert.deepEqual(plain.body, { status: "Finished requerying all files." });
    assert.equal(await sizeOf(app, user, zero.id), 3);
    assert.equal(await sizeOf(app, user, wrong.id), 2, "only size-0 records without forceUpdate");

    await app.json("POST", "/api/server/requery_size", { forceUpdate: true }, admin.headers);
    assert.equal(await sizeOf(app, user, wrong.id), 5);
    const stats = await app.json("GET", "/api/user/stats", undefined, user.headers);
    assert.equal(stats.body.storageUsed, 8);
  },
);

apiTest("requery_size: bytes gone are reported, and removed with forceDelete", async (app) => {
  const admin = await actor(app, "ADMIN");
  const user = await actor(app, "USER");
  const gone = await misrecorded(app, user, "abc", 0);
  await app.services.datasource.delete(gone.name);

  const reported = await app.json("POST", "/api/server/requery_size", {}, admin.headers);
  assert.deepEqual(reported.body, { status: MISSING });
  assert.equal(await sizeOf(app, user, gone.id), 0, "kept without forceDelete");

  const forced = await app.json(
    "POST",
    "/api/server/requery_size",
    { forceDelete: true },
    admin.headers,
  );
  assert.deepEqual(forced.body, { status: "Finished requerying all files." });
  assert.equal(
    (await app.json("GET", `/api/user/files/${gone.id}`, undefined, user.headers)).status,
    404,
  );
  const bad = await app.json("POST", "/api/server/requery_size", { forceDelete: 1 }, admin.headers);
  assert.equal(bad.status, 400);
});

apiTest("clear_temp: removes Ferry's entries only; says when there are none", async (app) => {
  const admin = await actor(app, "ADMIN");
  const dir = await Deno.makeTempDir({ prefix: "temp-test-" });
  try {
    await app.services.store.settings.update({ coreTempDirectory: dir });
    await app.services.settings.reload();
    await Deno.mkdir(join(dir, "ferry-import-abc"));
    await Deno.writeTextFile(join(dir, "ferry-import-abc", "files.ndjson"), "{}\n");
    await Deno.writeTextFile(join(dir, "someone-else.txt"), "keep");

    const clear = await app.json("DELETE", "/api/server/clear_temp", undefined, admin.headers);
    assert.equal(clear.status, 200);
    assert.deepEqual(clear.body, { status: "Cleared 1 temporary zipline files." });
    const left = [];
    for await (const e of Deno.readDir(dir)) left.push(e.name);
    assert.deepEqual(left, ["someone-else.txt"]);

    const again = await app.json("DELETE", "/api/server/clear_temp", undefined, admin.headers);
    assert.deepEqual(again.body, {
      status: "No temporary zipline files found, so no files were cleared.",
    });
    await Deno.remove(dir, { recursive: true });
    const gone = await app.json("DELETE", "/api/server/clear_temp", undefined, admin.headers);
    assert.deepEqual(gone.body, {
      status: "Temp directory does not exist, so no files were cleared.",
    });
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

apiTest("conformance: maintenance routes: administrators only, the default limit", async (app) => {
  const user = await actor(app, "USER");
  const admin = await actor(app, "ADMIN");
  const routes = [
    ["DELETE", "/api/server/clear_temp", undefined],
    ["GET", "/api/server/clear_zeros", undefined],
    ["DELETE", "/api/server/clear_zeros", undefined],
    ["POST", "/api/server/requery_size", {}],
  ] as const;
  for (const [method, path, body] of routes) {
    const denied = await app.json(method, path, body, user.headers);
    assert.equal(denied.status, 403, `${method} ${path}`);
    assert.equal((await app.json(method, path, body)).status, 401);
  }
  await app.services.store.settings.update({ ratelimitEnabled: true, ratelimitAdminBypass: false });
  await app.services.settings.reload();
  for (const [method, path, body] of routes.filter(([m]) => m !== "GET")) {
    const first = await app.json(method, path, body, admin.headers);
    assert.equal(first.status, 200, `${method} ${path}`);
    assert.equal(first.headers.get("x-ratelimit-limit"), "10", `${method} ${path}`);
    const again = await app.json(method, path, body, admin.headers);
    assert.equal(again.status, 200, `${method} ${path}`);
  }
});
