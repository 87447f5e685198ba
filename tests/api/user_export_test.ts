/**
 * `/api/user/export` (reference §4.3): a zip of all of a user's files, built
 * in the background, listed, downloaded and deleted; on both stores and both
 * datasources, the archives read back by independent readers.
 */
import assert from "node:assert/strict";
import { KEPT_FOR_MS, STALLED_AFTER_MS, TOUCH_EVERY_MS } from "../../core/files/user_export.ts";
import { cleanAbandonedUploads } from "../../core/tasks/cleanup.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { DATASOURCE_KINDS } from "../helpers/datasources.ts";
import { uploadFiles } from "../helpers/files.ts";
import { type Actor, actor } from "../helpers/users.ts";
import { eventually } from "../helpers/wait.ts";
import { readZip, sha256 } from "../helpers/zip.ts";

/** Uploads `content` as `name` (kept as the stored name); returns the stored name. */
async function upload(app: TestApp, who: Actor, name: string, content: Uint8Array | string) {
  const headers = { ...who.headers, "x-service-format": "name" };
  const res = await uploadFiles(app, [{ name, content }], headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.files[0].name as string;
}

/** The caller's exports once every one of them is complete. */
async function completedExports(app: TestApp, who: Actor) {
  // deno-lint-ignore no-explicit-any
  let exports: any[] = [];
  await eventually("the export to complete", async () => {
    exports = (await app.json("GET", "/api/user/export", undefined, who.headers)).body;
    return exports.length > 0 && exports.every((e) => e.completed);
  });
  return exports;
}

for (const datasource of DATASOURCE_KINDS) {
  apiTest(
    `user export: start, list, download and delete a zip of every file [${datasource}]`,
    async (app) => {
      const alice = await actor(app, "USER");
      const bob = await actor(app, "USER");
      const none = await app.json("POST", "/api/user/export", undefined, alice.headers);
      assert.deepEqual(none.body, { error: "No files to export", statusCode: 400 });

      const big = crypto.getRandomValues(new Uint8Array(60_000));
      const drop = await app.json("POST", "/api/user/folders", { name: "drop" }, alice.headers);
      const inFolder = await uploadFiles(app, [{ name: "deep.txt", content: "in a folder" }], {
        ...alice.headers,
        "x-service-format": "name",
        "x-service-folder": drop.body.id,
      });
      const names = {
        note: await upload(app, alice, "note.txt", "hello"),
        big: await upload(app, alice, "big.bin", big),
        deep: inFolder.body.files[0].name as string,
      };
      await upload(app, bob, "bobs.txt", "not alice's");

      const started = await app.json("POST", "/api/user/export", undefined, alice.headers);
      assert.deepEqual([started.status, started.body], [200, { running: true }]);
      const [done] = await completedExports(app, alice);
      assert.deepEqual(Object.keys(done).sort(), [
        "completed",
        "createdAt",
        "files",
        "id",
        "path",
        "size",
        "updatedAt",
      ]);
      assert.equal(done.files, 3);
      assert.match(done.path, new RegExp(`^\\.exports/zexport_${alice.user.id}_\\d+_3\\.zip$`));
      assert.match(done.size, /^[1-9]\d*$/);

      const res = await app.request(`/api/user/export?id=${done.id}`, { headers: alice.headers });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/zip");
      assert.equal(res.headers.get("content-length"), done.size);
      const file = done.path.slice(".exports/".length);
      assert.match(
        res.headers.get("content-disposition")!,
        new RegExp(`^attachment; filename="${file}"`),
      );
      assert.deepEqual(await readZip(res.body!), {
        [names.note]: sha256("hello"),
        [names.big]: sha256(big),
        [names.deep]: sha256("in a folder"),
      });

      // Bob sees neither the export nor its archive; unknown ids are 404.
      assert.deepEqual(
        (await app.json("GET", "/api/user/export", undefined, bob.headers)).body,
        [],
      );
      for (const id of [done.id, "nope"]) {
        const other = await app.json("GET", `/api/user/export?id=${id}`, undefined, bob.headers);
        assert.equal(other.status, 404);
        const gone = await app.json("DELETE", `/api/user/export?id=${id}`, undefined, bob.headers);
        assert.equal(gone.status, 404);
      }

      const noId = await app.json("DELETE", "/api/user/export", undefined, alice.headers);
      assert.deepEqual(noId.body, { error: "No ID provided", statusCode: 400 });
      const deleted = await app.json(
        "DELETE",
        `/api/user/export?id=${done.id}`,
        undefined,
        alice.headers,
      );
      assert.deepEqual(deleted.body, { deleted: true });
      assert.deepEqual(
        (await app.json("GET", "/api/user/export", undefined, alice.headers)).body,
        [],
      );
      const after = await app.json(
        "GET",
        `/api/user/export?id=${done.id}`,
        undefined,
        alice.headers,
      );
      assert.equal(after.status, 404);
      assert.equal(await app.services.datasource.size(done.path), null, "the archive is gone");
    },
    { datasource },
  );
}

apiTest("user export: an export still being built cannot be downloaded", async (app) => {
  const alice = await actor(app, "USER");
  const now = new Date(app.clock.now());
  await app.services.store.userExports.create({
    id: "building",
    userId: alice.user.id,
    path: ".exports/building.zip",
    files: 1,
    size: 0,
    completed: false,
    createdAt: now,
    updatedAt: now,
  });
  const listed = await app.json("GET", "/api/user/export", undefined, alice.headers);
  assert.deepEqual(
    listed.body.map((e: { completed: boolean; size: string }) => [e.completed, e.size]),
    [
      [false, "0"],
    ],
  );
  const res = await app.json("GET", "/api/user/export?id=building", undefined, alice.headers);
  assert.deepEqual(res.body, { error: "Export is not completed", statusCode: 400 });
});

apiTest(
  "user export: one cut short by a restart is removed by the cleanuploads task",
  async (app) => {
    const alice = await actor(app, "USER");
    const bob = await actor(app, "USER");
    const record = (id: string, userId: string) => {
      const now = new Date(app.clock.now());
      return {
        id,
        userId,
        path: `.exports/${id}.zip`,
        files: 1,
        size: 0,
        completed: false,
        createdAt: now,
        updatedAt: now,
      };
    };
    // Its build died with the process that ran it: a partial archive, a record nobody touches.
    await app.services.store.userExports.create(record("cut", alice.user.id));
    await app.services.datasource.put(".exports/cut.zip", ReadableStream.from([new Uint8Array(9)]));
    app.clock.advance(STALLED_AFTER_MS - TOUCH_EVERY_MS);
    // This one's build is alive and touched its record.
    await app.services.store.userExports.create(record("alive", bob.user.id));
    app.clock.advance(TOUCH_EVERY_MS);
    assert.equal(await cleanAbandonedUploads(app.services), 0, "not yet stalled");
    app.clock.advance(1);
    assert.equal(await cleanAbandonedUploads(app.services), 1);
    const listed = await app.json("GET", "/api/user/export", undefined, alice.headers);
    assert.deepEqual(listed.body, []);
    const kept = await app.json("GET", "/api/user/export", undefined, bob.headers);
    assert.deepEqual(kept.body.map((e: { id: string }) => e.id), ["alive"]);
    assert.equal(await app.services.datasource.size(".exports/cut.zip"), null);
    assert.ok(app.logger.lines.some((l) => l.message === "user export cut short removed"));
  },
);

const exportExists = {
  error: "You already have an export: delete it to start another " +
    "(an export is removed a day after it completes)",
  statusCode: 409,
};

apiTest(
  "security #7: one export at a time; another is refused until it is deleted",
  async (app) => {
    const alice = await actor(app, "USER");
    const bob = await actor(app, "USER");
    await upload(app, alice, "a.txt", "a");
    await upload(app, bob, "b.txt", "b");
    const start = (who: Actor) => app.json("POST", "/api/user/export", undefined, who.headers);

    const first = await start(alice);
    assert.equal(first.status, 200);
    const building = await start(alice);
    assert.deepEqual([building.status, building.body], [409, exportExists]);
    const [done] = await completedExports(app, alice);
    assert.deepEqual((await start(alice)).body, exportExists, "a complete one counts too");
    assert.equal((await completedExports(app, alice)).length, 1);

    // Sent at once, one starts.
    const both = await Promise.all([start(bob), start(bob)]);
    assert.deepEqual(both.map((r) => r.status).sort(), [200, 409]);
    assert.equal((await completedExports(app, bob)).length, 1);

    await app.json("DELETE", `/api/user/export?id=${done.id}`, undefined, alice.headers);
    assert.equal((await start(alice)).status, 200);
    const [again] = await completedExports(app, alice);
    assert.notEqual(again.id, done.id);
  },
);

apiTest(
  "security #7: the cleanuploads task removes an export a day after it completed",
  async (app) => {
    const alice = await actor(app, "USER");
    await upload(app, alice, "a.txt", "a");
    await app.json("POST", "/api/user/export", undefined, alice.headers);
    const [done] = await completedExports(app, alice);
    app.clock.advance(KEPT_FOR_MS);
    assert.equal(await cleanAbandonedUploads(app.services), 0, "kept a full day");
    assert.ok(await app.services.datasource.size(done.path));
    app.clock.advance(1);
    assert.equal(await cleanAbandonedUploads(app.services), 1);
    const listed = await app.json("GET", "/api/user/export", undefined, alice.headers);
    assert.deepEqual(listed.body, []);
    assert.equal(await app.services.datasource.size(done.path), null, "the archive is gone");
    const download = await app.json(
      "GET",
      `/api/user/export?id=${done.id}`,
      undefined,
      alice.headers,
    );
    assert.equal(download.status, 404);
    assert.equal(
      (await app.json("POST", "/api/user/export", undefined, alice.headers)).status,
      200,
    );
    await completedExports(app, alice);
  },
);

apiTest("user export: deleting the user deletes its exports and their archives", async (app) => {
  const admin = await actor(app, "SUPERADMIN");
  const alice = await actor(app, "USER");
  await upload(app, alice, "a.txt", "a");
  await app.json("POST", "/api/user/export", undefined, alice.headers);
  const [done] = await completedExports(app, alice);
  assert.ok(await app.services.datasource.size(done.path));
  const res = await app.json("DELETE", `/api/users/${alice.user.id}`, {}, admin.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(await app.services.store.userExports.listByUser(alice.user.id), []);
  assert.equal(await app.services.datasource.size(done.path), null);
});

apiTest("user export: no file may take the exports folder's name", async (app) => {
  const alice = await actor(app, "USER");
  const res = await uploadFiles(app, [{ name: ".exports", content: "x" }], {
    ...alice.headers,
    "x-service-format": "name",
  });
  assert.deepEqual(res.body, {
    error: "file[0]: Invalid characters in original filename",
    statusCode: 400,
  });
  const other = await upload(app, alice, "a.txt", "a");
  const renamed = await app.json(
    "PATCH",
    `/api/user/files/${other}`,
    { name: ".exports" },
    alice.headers,
  );
  assert.deepEqual(renamed.body, { error: "name: invalid file name", statusCode: 400 });
});

apiTest("conformance: user export has the default limit (§8.1.4 names no other)", async (app) => {
  const alice = await actor(app, "USER");
  await upload(app, alice, "a.txt", "a");
  const first = await app.json("POST", "/api/user/export", undefined, alice.headers);
  assert.equal(first.headers.get("x-ratelimit-limit"), "10");
  const second = await app.json("POST", "/api/user/export", undefined, alice.headers);
  assert.notEqual(second.status, 429);
  await completedExports(app, alice);
}, { rateLimits: true });
