/**
 * The caller's files at a glance: `GET /api/user/recent` (newest first, the
 * list's shape) and `GET /api/user/stats` (totals from counters kept with each
 * write, put right by the recount task), each only ever about the caller.
 */
import assert from "node:assert/strict";
import { apiTest } from "../helpers/app.ts";
import { uploadFiles } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";
import { recounted, spoilCounters } from "../helpers/file_stats.ts";
import { fixture, importDoc } from "../helpers/transfer.ts";
import { recountFileStats } from "../../core/tasks/recount.ts";

apiTest("recent: the caller's newest files, take 1–100, default 3", async (app) => {
  const a = await actor(app, "USER");
  const b = await actor(app, "USER");
  const names: string[] = [];
  for (const i of [1, 2, 3, 4]) {
    app.clock.advance(1000);
    const headers = i === 4 ? { ...a.headers, "x-service-password": "pw" } : a.headers;
    const res = await uploadFiles(app, [{ name: `f${i}.txt`, content: "x".repeat(i) }], headers);
    names.push(res.body.files[0].name);
  }
  await uploadFiles(app, [{ name: "other.txt", content: "b" }], b.headers);

  const recent = await app.json("GET", "/api/user/recent", undefined, a.headers);
  assert.equal(recent.status, 200);
  assert.deepEqual(recent.body.map((f: { name: string }) => f.name), [
    names[3],
    names[2],
    names[1],
  ]);
  assert.equal(recent.body[0].password, true);
  assert.equal(recent.body[1].password, false);
  assert.equal(recent.body[0].url, `/u/${names[3]}`);
  assert.equal(recent.body[0].size, 4);

  const one = await app.json("GET", "/api/user/recent?take=1", undefined, a.headers);
  assert.deepEqual(one.body.map((f: { name: string }) => f.name), [names[3]]);
  const all = await app.json("GET", "/api/user/recent?take=100", undefined, a.headers);
  assert.equal(all.body.length, 4);
  for (const take of ["0", "101", "two"]) {
    const bad = await app.json("GET", `/api/user/recent?take=${take}`, undefined, a.headers);
    assert.equal(bad.status, 400, take);
    assert.match(bad.body.error, /^querystring\/take /);
  }
  assert.equal((await app.json("GET", "/api/user/recent")).status, 401);
});

apiTest("stats: files, favorites, views, storage, URLs and types, with averages", async (app) => {
  const a = await actor(app, "USER");
  const b = await actor(app, "USER");
  const empty = await app.json("GET", "/api/user/stats", undefined, a.headers);
  assert.equal(empty.status, 200);
  assert.deepEqual(empty.body, {
    filesUploaded: 0,
    favoriteFiles: 0,
    views: 0,
    avgViews: 0,
    storageUsed: 0,
    avgStorageUsed: 0,
    urlsCreated: 0,
    urlViews: 0,
    sortTypeCount: {},
  });

  const up = await uploadFiles(app, [
    { name: "a.png", content: "1234", type: "image/png" },
    { name: "b.png", content: "12", type: "image/png" },
    { name: "c.txt", content: "123456789", type: "text/plain" },
  ], a.headers);
  await uploadFiles(app, [{ name: "not-mine.txt", content: "zzzz" }], b.headers);
  const [png, , txt] = up.body.files;
  await app.json("PATCH", `/api/user/files/${png.id}`, { favorite: true }, a.headers);
  for (const ua of ["one", "two", "three"]) {
    await app.request(`/raw/${png.name}`, { headers: { "user-agent": ua } }).then((r) =>
      r.body?.cancel()
    );
  }
  await app.request(`/raw/${txt.name}`).then((r) => r.body?.cancel());
  const url = await app.json(
    "POST",
    "/api/user/urls",
    { destination: "https://example.com" },
    a.headers,
  );
  await app.json("POST", "/api/user/urls", { destination: "https://example.org" }, a.headers);
  await app.request(`/go/${url.body.code}`, { redirect: "manual" });
  await app.request(`/go/${url.body.code}`, { redirect: "manual" });

  const stats = await app.json("GET", "/api/user/stats", undefined, a.headers);
  assert.equal(stats.status, 200);
  assert.deepEqual(stats.body, {
    filesUploaded: 3,
    favoriteFiles: 1,
    views: 4,
    avgViews: 4 / 3,
    storageUsed: 15,
    avgStorageUsed: 5,
    urlsCreated: 2,
    urlViews: 2,
    sortTypeCount: { "image/png": 2, "text/plain": 1 },
  });

  // A deleted file leaves the totals at once.
  await app.json("DELETE", `/api/user/files/${txt.id}`, undefined, a.headers);
  const after = await app.json("GET", "/api/user/stats", undefined, a.headers);
  assert.equal(after.body.filesUploaded, 2);
  assert.equal(after.body.storageUsed, 6);
  assert.deepEqual(after.body.sortTypeCount, { "image/png": 2 });
  assert.equal((await app.json("GET", "/api/user/stats")).status, 401);
});

apiTest("GET /api/user/activity: uploads and logins per UTC day, oldest first", async (app) => {
  const DAY = 24 * 60 * 60 * 1000;
  // Noon of a day near the real one: Postgres drops sessions it sees expired by its own clock.
  const day0 = Math.floor(Date.now() / DAY) * DAY;
  const day = (n: number) => new Date(day0 + n * DAY).toISOString();
  app.clock.set(day0 + DAY / 2);
  const a = await actor(app, "USER", "ada");
  const other = await actor(app, "USER");
  const login = () =>
    app.json("POST", "/api/auth/login", { username: "ada", password: "password" });
  const upload = (headers: Record<string, string>) =>
    uploadFiles(app, [{ name: "a.txt", content: "a", type: "text/plain" }], headers);

  await upload(a.headers); // day 0: outside a 3-day window ending on day 3
  app.clock.advance(2 * DAY); // day 2
  await upload(a.headers);
  await upload(a.headers);
  assert.equal((await login()).status, 200);
  await upload(other.headers);
  app.clock.advance(DAY); // day 3
  await upload(a.headers);

  const reply = await app.json("GET", "/api/user/activity?days=3", undefined, a.headers);
  assert.equal(reply.status, 200);
  assert.deepEqual(reply.body, {
    days: 3,
    series: [
      { date: day(1), uploads: 0, logins: 0 },
      { date: day(2), uploads: 2, logins: 1 },
      { date: day(3), uploads: 1, logins: 0 },
    ],
    totals: { uploads: 3, logins: 1 },
  });

  // A second login shows at once; the default window is 14 days.
  assert.equal((await login()).status, 200);
  const again = await app.json("GET", "/api/user/activity", undefined, a.headers);
  assert.equal(again.body.days, 14);
  assert.equal(again.body.series.length, 14);
  assert.deepEqual(again.body.totals, { uploads: 4, logins: 2 });
  assert.deepEqual(again.body.series.at(-1), { date: day(3), uploads: 1, logins: 1 });
  for (const days of ["0", "91", "x"]) {
    const bad = await app.json("GET", `/api/user/activity?days=${days}`, undefined, a.headers);
    assert.equal(bad.status, 400, days);
  }
  assert.equal((await app.json("GET", "/api/user/activity")).status, 401);
});

apiTest(
  "stats come from counters: right through uploads, a refused upload past a quota, deletes and an import",
  async (app) => {
    const a = await actor(app, "SUPERADMIN", "root");
    const stats = async () => (await app.json("GET", "/api/user/stats", undefined, a.headers)).body;
    const up = await uploadFiles(app, [
      { name: "a.png", content: "1234", type: "image/png" },
      { name: "b.png", content: "12", type: "image/png" },
      { name: "c.txt", content: "123", type: "text/plain" },
    ], a.headers);
    assert.equal(up.status, 200);
    await app.services.store.users.update(a.user.id, {
      quota: { id: "q", filesQuota: "BY_FILES", maxBytes: null, maxFiles: 3, maxUrls: null },
    }, new Date(app.clock.now()));
    const refused = await uploadFiles(app, [{ name: "d.txt", content: "1" }], a.headers);
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal((await stats()).filesUploaded, 3, "a refused upload counts nothing");
    await app.services.store.users.update(a.user.id, { quota: null }, new Date(app.clock.now()));
    const last = await uploadFiles(app, [{ name: "d.txt", content: "1" }], a.headers);
    assert.equal(last.status, 200);
    const dType = (await app.services.store.files.get(last.body.files[0].id))!.type;
    const [png, , txt] = up.body.files;
    const gone = await app.json("DELETE", "/api/user/files/transaction", {
      files: [png.id, txt.id],
    }, a.headers);
    assert.equal(gone.status, 200, JSON.stringify(gone.body));
    assert.deepEqual(await stats(), {
      filesUploaded: 2,
      favoriteFiles: 0,
      views: 0,
      avgViews: 0,
      storageUsed: 3,
      avgStorageUsed: 1.5,
      urlsCreated: 0,
      urlViews: 0,
      sortTypeCount: { "image/png": 1, [dType]: 1 },
    });
    const imported = await importDoc(app, "v4", await fixture("v4"), a.headers);
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    for (const user of await app.services.store.users.list()) {
      assert.deepEqual(
        await app.services.store.files.stats(user.id),
        await recounted(app.backend, user.id),
        user.username,
      );
    }
    assert.deepEqual(
      await app.services.store.files.stats(null),
      await recounted(app.backend, null),
    );
  },
);

apiTest(
  "the recount task sets right counters spoilt by hand, a budget of files a pass",
  async (app) => {
    const a = await actor(app, "USER");
    await uploadFiles(app, [
      { name: "a.png", content: "1234", type: "image/png" },
      { name: "b.png", content: "12", type: "image/png" },
      { name: "c.txt", content: "123", type: "text/plain" },
    ], a.headers);
    const right = (await app.json("GET", "/api/user/stats", undefined, a.headers)).body;
    assert.equal(await recountFileStats(app.services), 0, "nothing to repair");
    await spoilCounters(app.backend, a.user.id);
    const spoilt = (await app.json("GET", "/api/user/stats", undefined, a.headers)).body;
    assert.notDeepEqual(spoilt, right, "spoilt");
    let repaired = 0;
    for (let pass = 0; pass < 6; pass++) repaired += await recountFileStats(app.services, 2);
    assert.ok(repaired > 0);
    assert.deepEqual((await app.json("GET", "/api/user/stats", undefined, a.headers)).body, right);
    assert.ok(app.logger.lines.some((e) => e.message === "file statistics counters repaired"));
  },
);
