/**
 * The background tasks, each run directly with the manual clock, and the
 * runner: intervals from the settings, and one pass per interval across
 * runners sharing a store (the lease).
 */
import assert from "node:assert/strict";
import { newId, randomString } from "../../core/clock.ts";
import {
  ABANDONED_AFTER_MS,
  cleanAbandonedUploads,
  clearInvites,
  deleteExpiredFiles,
  deleteMaxViews,
} from "../../core/tasks/cleanup.ts";
import { recordMetrics } from "../../core/tasks/metrics.ts";
import { TaskRunner, TASKS } from "../../core/tasks/runner.ts";
import { URL_RULE_DEFAULTS, type UrlRecord } from "../../db/urls.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadOne } from "../helpers/files.ts";
import { seedFiles, watchReads } from "../helpers/file_reads.ts";
import { DELETE_BATCH } from "../../core/files/bulk_delete.ts";
import { actor } from "../helpers/users.ts";

const HOUR = 60 * 60 * 1000;

async function settings(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.settings.update(values);
  await app.services.settings.reload();
}

async function url(
  app: TestApp,
  userId: string | null,
  maxViews: number | null,
): Promise<UrlRecord> {
  const now = new Date(app.clock.now());
  const record: UrlRecord = {
    id: newId(app.services.random, app.services.clock.now()),
    code: randomString(app.services.random, 8),
    vanity: null,
    destination: "https://example.com/",
    views: 0,
    maxViews,
    password: null,
    enabled: true,
    userId,
    createdAt: now,
    updatedAt: now,
    ...URL_RULE_DEFAULTS,
  };
  assert.ok(await app.services.store.urls.create(record, null));
  return record;
}

apiTest("task deletefiles: removes expired files, record and bytes", async (app) => {
  const a = await actor(app, "USER");
  const expiring = await uploadOne(app, { ...a.headers, "x-service-deletes-at": "1h" });
  const kept = await uploadOne(app, a.headers);
  assert.equal(await deleteExpiredFiles(app.services), 0);
  app.clock.advance(HOUR);
  assert.equal(await deleteExpiredFiles(app.services), 1);
  assert.equal(await app.services.store.files.get(expiring.id), null);
  assert.deepEqual(await app.storedObjects(), [kept.name]);
  assert.equal((await app.request(`/raw/${expiring.name}`)).status, 404);
});

apiTest("task maxviews: removes files and URLs at their max views when asked", async (app) => {
  const a = await actor(app, "USER");
  const file = await uploadOne(app, { ...a.headers, "x-service-max-views": "1" });
  const other = await uploadOne(app, { ...a.headers, "x-service-max-views": "2" });
  const link = await url(app, a.user.id, 1);
  const open = await url(app, a.user.id, null);
  await app.services.store.files.addView(file.id);
  await app.services.store.files.addView(other.id);
  await app.services.store.urls.view(link.id);
  await app.services.store.urls.view(open.id);

  await settings(app, { featuresDeleteOnMaxViews: false });
  assert.equal(await deleteMaxViews(app.services), 0);
  await settings(app, { featuresDeleteOnMaxViews: true });
  // Candidates only: a pass over every file or every URL fails the task.
  const reads = watchReads(app);
  app.services.store.urls.iterate = () => {
    throw new Error("a pass read every URL");
  };
  assert.equal(await deleteMaxViews(app.services), 2);
  assert.equal(reads.candidates, 1, "the one file at its max views");
  assert.equal(await app.services.store.files.get(file.id), null);
  assert.deepEqual(await app.storedObjects(), [other.name]);
  assert.equal(await app.services.store.urls.get(link.id), null);
  assert.ok(await app.services.store.urls.get(open.id));
});

apiTest("task clearinvites: removes expired and used-up invites", async (app) => {
  const a = await actor(app, "ADMIN");
  const now = app.clock.now();
  const invite = (code: string, expiresAt: number | null, uses: number, maxUses: number | null) =>
    app.services.store.invites.create({
      id: code,
      code,
      expiresAt: expiresAt === null ? null : new Date(expiresAt),
      uses,
      maxUses,
      inviterId: a.user.id,
      createdAt: new Date(now),
      updatedAt: new Date(now),
    });
  await invite("expired", now - 1, 0, null);
  await invite("usedup", null, 3, 3);
  await invite("fine", now + HOUR, 1, 3);
  assert.equal(await clearInvites(app.services), 2);
  assert.deepEqual((await app.services.store.invites.list()).map((i) => i.code), ["fine"]);
});

apiTest("task cleanuploads: drops idle chunked uploads and stale pending files", async (app) => {
  const a = await actor(app, "USER");
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(1000)]), "blob");
  const res = await app.request("/api/upload/partial", {
    method: "POST",
    body: form,
    headers: { ...a.headers, "content-range": "bytes 0-999/3000" },
  });
  const { partialIdentifier } = await res.json();
  const now = new Date(app.clock.now());
  const pending = {
    id: newId(app.services.random, app.services.clock.now()),
    name: "crashed.bin",
    originalName: null,
    size: 0,
    type: "application/octet-stream",
    views: 0,
    maxViews: null,
    favorite: false,
    password: null,
    anonymous: false,
    userId: a.user.id,
    folderId: null,
    deletesAt: null,
    pending: true,
    createdAt: now,
    updatedAt: now,
  };
  await app.services.store.files.create(pending, { maxBytes: null, maxFiles: null });
  await app.services.datasource.put("crashed.bin", ReadableStream.from([new Uint8Array(5)]));

  app.clock.advance(ABANDONED_AFTER_MS - 1);
  assert.equal(await cleanAbandonedUploads(app.services), 0);
  app.clock.advance(2);
  assert.equal(await cleanAbandonedUploads(app.services), 2);
  assert.equal(await app.services.store.chunks.get(partialIdentifier), null);
  assert.equal(await app.services.store.files.get(pending.id), null);
  assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes: 0, files: 0 });
  assert.deepEqual(await app.storedObjects(), []);
  const status = await app.json(
    "GET",
    `/api/upload/partial/${partialIdentifier}`,
    undefined,
    a.headers,
  );
  assert.equal(status.status, 404);
});

apiTest(
  "task metrics: records a snapshot in Zipline's shape, from counters, not every URL",
  async (app) => {
    const a = await actor(app, "USER", "alice");
    const file = await uploadOne(app, a.headers, "12345", "a.txt");
    await app.services.store.files.addView(file.id);
    await url(app, a.user.id, null);
    // Two URLs without an owner (an import's, an orphaned one), counted as "unknown"'s.
    const orphans = [await url(app, null, null), await url(app, a.user.id, 4)];
    await app.services.store.urls.view(orphans[1].id);
    await app.services.store.urls.orphanByUser(a.user.id);
    await url(app, a.user.id, null);
    const urls = app.services.store.urls;
    urls.iterate = () => {
      throw new Error("the metrics task read every URL");
    };
    assert.equal(await recordMetrics(app.services), 1);
    const snapshots = [];
    for await (const m of app.services.store.metrics.iterate()) snapshots.push(m);
    assert.equal(snapshots.length, 1);
    assert.equal(snapshots[0].createdAt.getTime(), app.clock.now());
    assert.deepEqual(snapshots[0].data, {
      users: 1,
      files: 1,
      fileViews: 1,
      urls: 4,
      urlViews: 1,
      storage: 5,
      filesUsers: [{ username: "alice", sum: 1, storage: 5, views: 1 }],
      urlsUsers: [{ username: "alice", sum: 1, views: 0 }, {
        username: "unknown",
        sum: 3,
        views: 1,
      }],
      types: [{ type: "text/plain", sum: 1 }],
    });
  },
);

apiTest(
  "task runner: one pass per interval across runners, intervals from settings",
  async (app) => {
    const first = new TaskRunner(app.services, "one");
    const second = new TaskRunner(app.services, "two");
    const passes = await Promise.all([first.runDue(), second.runDue()]);
    const ran = passes.flat().sort();
    assert.deepEqual(ran, TASKS.map((t) => t.name).sort());
    assert.deepEqual(await second.runDue(), []);

    await settings(app, { tasksMetricsInterval: null, tasksClearInvitesInterval: "1m" });
    app.clock.advance(60_000);
    assert.deepEqual(
      [...await first.runDue(), ...await second.runDue()].sort(),
      ["clearinvites"],
    );
    app.clock.advance(30 * 60_000);
    assert.deepEqual(
      [...await second.runDue(), ...await first.runDue()].sort(),
      [
        "cleanuploads",
        "clearinvites",
        "deletefiles",
        "expiredurls",
        "maxviews",
        "thumbnails",
        "visits",
      ],
    );
    let metrics = 0;
    for await (const _ of app.services.store.metrics.iterate()) metrics++;
    assert.equal(metrics, 1);
  },
);

apiTest("task runner: a failing task is logged and the others still run", async (app) => {
  const runner = new TaskRunner(app.services, "one", [
    { name: "broken", interval: "tasksDeleteInterval", run: () => Promise.reject(new Error("x")) },
    ...TASKS.filter((t) => t.name === "metrics"),
  ]);
  assert.deepEqual(await runner.runDue(), ["broken", "metrics"]);
  assert.ok(app.logger.lines.some((e) => e.message === "task failed"));
});

apiTest("task metrics: records nothing while featuresMetricsEnabled is off", async (app) => {
  await settings(app, { featuresMetricsEnabled: false });
  assert.equal(await recordMetrics(app.services), 0);
  assert.equal(await app.services.store.metrics.count(), 0);
  await settings(app, { featuresMetricsEnabled: true });
  assert.equal(await recordMetrics(app.services), 1);
  assert.equal(await app.services.store.metrics.count(), 1);
});

apiTest(
  "tasks deletefiles, maxviews, cleanuploads: each reads its candidates only, never every file",
  async (app) => {
    const a = await actor(app, "USER");
    await settings(app, { featuresDeleteOnMaxViews: true });
    const now = app.clock.now();
    const plain = await seedFiles(app, a.user.id, 40, (i) => ({
      deletesAt: i % 2 ? new Date(now + 2 * HOUR) : null,
      maxViews: i % 3 ? null : 5,
      views: 4,
    }));
    const expired = await seedFiles(app, a.user.id, 3, () => ({ deletesAt: new Date(now + HOUR) }));
    const exhausted = await seedFiles(app, a.user.id, 2, () => ({ maxViews: 3, views: 3 }));
    const stale = await seedFiles(app, a.user.id, 2, () => ({
      pending: true,
      updatedAt: new Date(now),
    }));
    const reads = watchReads(app);
    app.clock.advance(HOUR);
    assert.equal(await deleteExpiredFiles(app.services), 3);
    assert.equal(reads.candidates, 3);
    assert.equal(await deleteMaxViews(app.services), 2);
    assert.equal(reads.candidates, 5);
    app.clock.advance(ABANDONED_AFTER_MS);
    assert.equal(await cleanAbandonedUploads(app.services), 2);
    assert.equal(reads.candidates, 7);
    const files = app.services.store.files;
    assert.deepEqual(
      await files.getMany([...expired, ...exhausted, ...stale].map((f) => f.id)),
      [],
    );
    assert.equal((await files.getMany(plain.map((f) => f.id))).length, 40);
    assert.deepEqual(
      (await app.storedObjects()).sort(),
      plain.map((f) => f.name).sort(),
    );
    assert.deepEqual(await files.usage(a.user.id), { files: 40, bytes: 120 });
    assert.equal((await files.stats(a.user.id)).files, 40);
  },
);

apiTest("task deletefiles: stops between batches once its signal is aborted", async (app) => {
  const a = await actor(app, "USER");
  const at = new Date(app.clock.now());
  const n = 2 * DELETE_BATCH + 50;
  await seedFiles(app, a.user.id, n, () => ({ deletesAt: at }));
  const files = app.services.store.files;
  const stop = new AbortController();
  const deleteMany = files.deleteMany.bind(files);
  files.deleteMany = async (ids) => {
    const gone = await deleteMany(ids);
    stop.abort(); // the server is told to stop while the first batch is under way
    return gone;
  };
  assert.equal(await deleteExpiredFiles(app.services, stop.signal), DELETE_BATCH);
  assert.equal((await files.usage(a.user.id)).files, n - DELETE_BATCH);
  files.deleteMany = deleteMany;
  assert.equal(await deleteExpiredFiles(app.services), n - DELETE_BATCH);
  assert.deepEqual(await files.usage(a.user.id), { files: 0, bytes: 0 });
});
