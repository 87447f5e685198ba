/**
 * Bulk deletes (issue #32): `DELETE /api/user/files/transaction` with many
 * files and a user's deletion with its content remove the records in
 * batches (`core/files/bulk_delete.ts`), leaving the counters, the quota,
 * the list, the search, tags, share links, visits and bytes right.
 */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { seedFiles } from "../helpers/file_reads.ts";
import { actor } from "../helpers/users.ts";
import { DELETE_BATCH } from "../../core/files/bulk_delete.ts";
import type { FileRecord } from "../../db/files.ts";

const ids = (files: { id: string }[]) => files.map((f) => f.id);

/** The caller's statistics, list total and usage, as the API and the store tell them. */
async function counted(app: TestApp, headers: Record<string, string>, userId: string) {
  const stats = await app.json("GET", "/api/user/stats", undefined, headers);
  const list = await app.json("GET", "/api/user/files?page=1&perpage=5", undefined, headers);
  return {
    files: stats.body.filesUploaded,
    bytes: stats.body.storageUsed,
    listed: list.body.total,
    usage: await app.services.store.files.usage(userId),
  };
}

apiTest(
  "bulk delete: 450 files in one request go in batches, with their counts, usage, tags, links and bytes",
  async (app) => {
    const a = await actor(app, "USER");
    const other = await actor(app, "USER");
    const files = await seedFiles(app, a.user.id, 500, (i) => ({
      size: 1 + (i % 4),
      originalName: `report ${i}.txt`,
    }));
    const theirs = await seedFiles(app, other.user.id, 3);
    const tag = await app.json("POST", "/api/user/tags", {
      name: "work",
      color: "#123456",
    }, a.headers);
    assert.equal(tag.status, 200, JSON.stringify(tag.body));
    const doomed = files.slice(0, 450);
    const kept = files.slice(450);
    for (const f of [doomed[0], kept[0]]) {
      const tagged = await app.json("PATCH", `/api/user/files/${f.id}`, {
        tags: [tag.body.id],
      }, a.headers);
      assert.equal(tagged.status, 200, JSON.stringify(tagged.body));
    }
    const share = await app.json("POST", `/api/user/files/${doomed[1].id}/shares`, {}, a.headers);
    assert.ok(share.status === 200 || share.status === 201, JSON.stringify(share.body));

    const reply = await app.json("DELETE", "/api/user/files/transaction", {
      files: [...ids(doomed), ...ids(theirs), "missing"],
      delete_datasourceFiles: true,
    }, a.headers);
    assert.deepEqual(reply, { status: 200, body: { count: 450 }, headers: reply.headers });

    const bytes = (list: FileRecord[]) => list.reduce((sum, f) => sum + f.size, 0);
    assert.deepEqual(await counted(app, a.headers, a.user.id), {
      files: 50,
      bytes: bytes(kept),
      listed: 50,
      usage: { files: 50, bytes: bytes(kept) },
    });
    const objects = await app.storedObjects();
    assert.deepEqual(objects.sort(), [...kept, ...theirs].map((f) => f.name).sort());
    const search = await app.json(
      "GET",
      "/api/user/files?page=1&perpage=100&searchField=originalName&searchQuery=report",
      undefined,
      a.headers,
    );
    assert.deepEqual(ids(search.body.page).sort(), ids(kept).sort());
    const tagged = await app.services.store.tags.tagsOfFiles([doomed[0].id, kept[0].id]);
    assert.deepEqual([...tagged.keys()], [kept[0].id]);
    const shares = await app.json("GET", "/api/user/shares", undefined, a.headers);
    assert.equal(shares.status, 200);
    assert.equal(JSON.stringify(shares.body).includes(doomed[1].id), false, "its link went");
    assert.equal((await app.services.store.files.getMany(ids(theirs))).length, 3, "not theirs");

    // The quota counts from the counters left: uploads go on counting from 50.
    const upload = new FormData();
    upload.append("file", new Blob(["12345"]), "more.txt");
    const sent = await app.request("/api/upload", {
      method: "POST",
      body: upload,
      headers: a.headers,
    });
    assert.equal(sent.status, 200);
    assert.deepEqual(await app.services.store.files.usage(a.user.id), {
      files: 51,
      bytes: bytes(kept) + 5,
    });
  },
);

apiTest(
  "bulk delete: without delete_datasourceFiles the records go and the bytes stay",
  async (app) => {
    const a = await actor(app, "USER");
    const files = await seedFiles(app, a.user.id, 10);
    const reply = await app.json("DELETE", "/api/user/files/transaction", {
      files: ids(files.slice(0, 6)),
    }, a.headers);
    assert.equal(reply.body.count, 6);
    assert.equal((await app.services.store.files.getMany(ids(files))).length, 4);
    assert.equal((await app.storedObjects()).length, 10);
    assert.deepEqual(await app.services.store.files.usage(a.user.id), { files: 4, bytes: 12 });
  },
);

apiTest(
  "user deletion with its content: every file goes, a page at a time, none read as a whole list",
  async (app) => {
    const admin = await actor(app, "ADMIN");
    const a = await actor(app, "USER");
    const n = 2 * DELETE_BATCH + 17;
    await seedFiles(app, a.user.id, n);
    const pending = await seedFiles(app, a.user.id, 1, () => ({ pending: true }));
    const stays = await seedFiles(app, admin.user.id, 2);
    const files = app.services.store.files;
    files.listByUser = () => Promise.reject(new Error("read the whole list"));
    const reply = await app.json(
      "DELETE",
      `/api/users/${a.user.id}`,
      { delete: true },
      admin.headers,
    );
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(await files.candidates({ kind: "owned", userId: a.user.id }, 10), []);
    assert.equal(await files.get(pending[0].id), null);
    assert.deepEqual((await app.storedObjects()).sort(), stays.map((f) => f.name).sort());
    assert.deepEqual(await files.usage(admin.user.id), { files: 2, bytes: 6 });
    assert.equal((await files.stats(a.user.id)).files, 0);
  },
);
