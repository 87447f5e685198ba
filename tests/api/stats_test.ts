/** `GET /api/stats`: metrics snapshots by range, thinned, and the metrics settings. */
import assert from "node:assert/strict";
import { recordMetrics } from "../../core/tasks/metrics.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadOne } from "../helpers/files.ts";
import { fileRecord } from "../helpers/stores.ts";
import { actor } from "../helpers/users.ts";
import type { TopFile } from "../../core/metrics.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function settings(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.settings.update(values);
  await app.services.settings.reload();
}

const iso = (ms: number) => new Date(ms).toISOString();

apiTest("stats: the task's snapshots, newest first, the newest in full", async (app) => {
  await settings(app, { featuresMetricsShowUserSpecific: true });
  const a = await actor(app, "USER", "alice");
  const empty = await app.json("GET", "/api/stats", undefined, a.headers);
  assert.equal(empty.status, 200);
  assert.deepEqual(empty.body, []);

  await uploadOne(app, a.headers, "12345", "a.txt");
  await recordMetrics(app.services);
  const first = app.clock.now();
  app.clock.advance(HOUR);
  await uploadOne(app, a.headers, "123", "b.txt");
  await recordMetrics(app.services);

  const reply = await app.json("GET", "/api/stats", undefined, a.headers);
  assert.equal(reply.status, 200);
  assert.equal(reply.body.length, 2);
  const [newest, older] = reply.body;
  assert.equal(newest.createdAt, iso(app.clock.now()));
  assert.equal(newest.updatedAt, newest.createdAt);
  assert.deepEqual(newest.data, {
    users: 1,
    files: 2,
    fileViews: 0,
    urls: 0,
    urlViews: 0,
    storage: 8,
    filesUsers: [{ username: "alice", sum: 2, storage: 8, views: 0 }],
    urlsUsers: [],
    types: [{ type: "text/plain", sum: 2 }],
  });
  assert.equal(older.createdAt, iso(first));
  assert.deepEqual(older.data, {
    users: 1,
    files: 1,
    fileViews: 0,
    urls: 0,
    urlViews: 0,
    storage: 5,
    filesUsers: [],
    urlsUsers: [],
    types: [],
  });

  // `from`/`to` select; `all` ignores them.
  const only = await app.json(
    "GET",
    `/api/stats?from=${iso(first - 1)}&to=${iso(first + 1)}`,
    undefined,
    a.headers,
  );
  assert.deepEqual(only.body.map((m: { data: { files: number } }) => m.data.files), [1]);
  assert.equal(only.body[0].data.filesUsers.length, 1, "the newest of the range in full");
  app.clock.advance(30 * DAY);
  const week = await app.json("GET", "/api/stats", undefined, a.headers);
  assert.deepEqual(week.body, []);
  const all = await app.json("GET", "/api/stats?all=true", undefined, a.headers);
  assert.equal(all.body.length, 2);
});

apiTest("stats: many snapshots are thinned evenly to at most 500 points", async (app) => {
  const a = await actor(app, "USER");
  const now = app.clock.now();
  await app.services.store.metrics.add(Array.from({ length: 1200 }, (_, i) => ({
    id: `m${i}`,
    createdAt: new Date(now - (i + 1) * 60_000),
    data: { files: i, users: "3" },
  })));
  const reply = await app.json("GET", "/api/stats", undefined, a.headers);
  assert.equal(reply.status, 200);
  const metrics = reply.body;
  assert.equal(metrics.length, 400);
  assert.deepEqual(metrics.slice(0, 3).map((m: { id: string }) => m.id), ["m0", "m3", "m6"]);
  assert.deepEqual(metrics[0], {
    id: "m0",
    createdAt: iso(now - 60_000),
    updatedAt: iso(now - 60_000),
    data: {
      users: 3,
      files: 0,
      fileViews: 0,
      urls: 0,
      urlViews: 0,
      storage: 0,
      filesUsers: [],
      urlsUsers: [],
      types: [],
    },
  });
});

apiTest("stats: bad ranges are 400 with Zipline's messages", async (app) => {
  const a = await actor(app, "USER");
  const now = app.clock.now();
  const cases = [
    [`from=${iso(now - DAY)}&to=${iso(now - 2 * DAY)}`, "From date must be before to date"],
    [`from=${iso(now + DAY)}&to=${iso(now + 2 * DAY)}`, "From date must be in the past"],
    ["from=yesterday", "Invalid date: yesterday"],
    ["all=maybe", null],
  ] as const;
  for (const [query, message] of cases) {
    const reply = await app.json("GET", `/api/stats?${query}`, undefined, a.headers);
    assert.equal(reply.status, 400, query);
    if (message) assert.equal(reply.body.error, message);
  }
  // `all` skips the range checks.
  const all = await app.json(
    "GET",
    `/api/stats?all=true&from=${iso(now + DAY)}`,
    undefined,
    a.headers,
  );
  assert.equal(all.status, 200);
  assert.equal((await app.json("GET", "/api/stats")).status, 401);
});

apiTest("stats: admin-only, per-user parts hidden, metrics off", async (app) => {
  const user = await actor(app, "USER", "ulla");
  const admin = await actor(app, "ADMIN");
  await uploadOne(app, user.headers, "12345", "a.txt");
  await recordMetrics(app.services);

  await settings(app, { featuresMetricsAdminOnly: true });
  const denied = await app.json("GET", "/api/stats", undefined, user.headers);
  assert.equal(denied.status, 403);
  assert.deepEqual(denied.body, { error: "Admin only", statusCode: 403 });
  const allowed = await app.json("GET", "/api/stats", undefined, admin.headers);
  assert.equal(allowed.status, 200);
  assert.deepEqual(allowed.body[0].data.filesUsers, [
    { username: "ulla", sum: 1, storage: 5, views: 0 },
  ]);

  await settings(app, { featuresMetricsAdminOnly: false });
  const hidden = await app.json("GET", "/api/stats", undefined, user.headers);
  assert.deepEqual(hidden.body[0].data.filesUsers, [], "a USER sees no names by default");
  assert.deepEqual(hidden.body[0].data.urlsUsers, []);
  assert.equal(hidden.body[0].data.files, 1);

  await settings(app, { featuresMetricsEnabled: false });
  const off = await app.json("GET", "/api/stats", undefined, admin.headers);
  assert.equal(off.status, 403);
  assert.equal(off.body.error, "Metrics are disabled");
});

apiTest(
  "top files: the most viewed first, for administrators, with their owners",
  async (app) => {
    const admin = await actor(app, "ADMIN", "root");
    const a = await actor(app, "USER", "alice");
    const seen = await uploadOne(app, a.headers, "12345", "seen.txt");
    const most = await uploadOne(app, admin.headers, "123", "most.txt");
    await uploadOne(app, a.headers, "1", "none.txt");
    for (let i = 0; i < 2; i++) await app.services.store.files.addView(seen.id);
    for (let i = 0; i < 5; i++) await app.services.store.files.addView(most.id);
    const res = await app.json("GET", "/api/stats/files?take=2", undefined, admin.headers);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.map((f: { name: string; views: number; username: string }) => [
        f.name,
        f.views,
        f.username,
      ]),
      [[most.name, 5, "root"], [seen.name, 2, "alice"]],
    );
    await settings(app, { featuresMetricsShowUserSpecific: false });
    const still = await app.json("GET", "/api/stats/files?take=2", undefined, admin.headers);
    assert.deepEqual(
      still.body.map((f: { username: string | null }) => f.username),
      ["root", "alice"],
      "administrators keep the owners whatever the setting",
    );
    assert.equal((await app.json("GET", "/api/stats/files", undefined, a.headers)).status, 403);
    await settings(app, { featuresMetricsEnabled: false });
    const off = await app.json("GET", "/api/stats/files", undefined, admin.headers);
    assert.deepEqual(off.body, { error: "Metrics are disabled", statusCode: 403 });
  },
);

apiTest(
  "top files: views from /raw visits, ties by name, take, pending and deleted files left out, " +
    "no owner's name for an owner's kept files",
  async (app) => {
    const admin = await actor(app, "ADMIN", "root");
    const a = await actor(app, "USER", "alice");
    const b = await actor(app, "USER", "bob");
    const [one, two, three, four] = [
      await uploadOne(app, a.headers, "1", "one.txt"),
      await uploadOne(app, b.headers, "22", "two.txt"),
      await uploadOne(app, admin.headers, "333", "three.txt"),
      await uploadOne(app, a.headers, "4444", "four.txt"),
    ];
    await app.services.store.files.create(
      fileRecord(a.user.id, { name: "aaa-pending.txt", pending: true, views: 50 }),
      { maxBytes: null, maxFiles: null },
    );
    const visit = async (name: string, n: number) => {
      for (let i = 0; i < n; i++) {
        // A view counts once per viewer a while: each visit another viewer's.
        const res = await app.request(`/raw/${name}`, { headers: { "user-agent": `v${i}` } });
        assert.equal(res.status, 200);
        await res.body?.cancel();
      }
    };
    await visit(one.name, 3);
    await visit(two.name, 3);
    await visit(three.name, 1);
    const top = async (take: number) => {
      const res = await app.json("GET", `/api/stats/files?take=${take}`, undefined, admin.headers);
      assert.equal(res.status, 200);
      return res.body.map((f: TopFile) => [f.name, f.views, f.username, f.size]);
    };
    const tied = [[one.name, 3, "alice", 1], [two.name, 3, "bob", 2]]
      .sort((x, y) => x[0] < y[0] ? -1 : 1);
    assert.deepEqual(await top(10), [...tied, [three.name, 1, "root", 3], [
      four.name,
      0,
      "alice",
      4,
    ]]);
    assert.deepEqual(await top(2), tied);
    await visit(four.name, 4);
    assert.deepEqual((await top(1))[0], [four.name, 4, "alice", 4], "views moved by visits");
    const del = await app.json("DELETE", `/api/user/files/${one.id}`, undefined, a.headers);
    assert.equal(del.status, 200);
    await app.services.store.files.disown(b.user.id);
    assert.deepEqual(await top(10), [
      [four.name, 4, "alice", 4],
      [two.name, 3, null, 2],
      [three.name, 1, "root", 3],
    ]);
  },
);

apiTest(
  "security #30.10: a USER sees no other user's name in /api/stats by default; ADMINs keep " +
    "the per-user view; the setting opens it to USERs",
  async (app) => {
    assert.equal(app.services.settings.get("featuresMetricsShowUserSpecific"), false);
    const alice = await actor(app, "USER", "alice");
    const bob = await actor(app, "USER", "bob");
    const admin = await actor(app, "ADMIN", "root");
    await uploadOne(app, alice.headers, "12345", "a.txt");
    await app.json("POST", "/api/user/urls", { destination: "https://example.org/" }, bob.headers);
    await recordMetrics(app.services);

    const seenBy = async (headers: Record<string, string>) => {
      const reply = await app.json("GET", "/api/stats?all=true", undefined, headers);
      assert.equal(reply.status, 200);
      return reply.body;
    };
    const byBob = await seenBy(bob.headers);
    assert.deepEqual([byBob[0].data.filesUsers, byBob[0].data.urlsUsers], [[], []]);
    assert.equal(byBob[0].data.files, 1, "the totals stay");
    assert.ok(!JSON.stringify(byBob).includes("alice"), "no other user's name anywhere");

    const byAdmin = await seenBy(admin.headers);
    assert.deepEqual(byAdmin[0].data.filesUsers.map((u: { username: string }) => u.username), [
      "alice",
    ]);
    assert.deepEqual(byAdmin[0].data.urlsUsers.map((u: { username: string }) => u.username), [
      "bob",
    ]);

    await settings(app, { featuresMetricsShowUserSpecific: true });
    const opened = await seenBy(bob.headers);
    assert.deepEqual(opened[0].data.filesUsers.map((u: { username: string }) => u.username), [
      "alice",
    ]);
  },
);
