/** The share link store contract, run against Deno KV and PostgreSQL. */
import assert from "node:assert/strict";
import { newId, systemRandom } from "../../core/clock.ts";
import type { FolderRecord } from "../../db/folders.ts";
import type { ShareRecord } from "../../db/shares.ts";
import { UniqueError } from "../../db/errors.ts";
import { type ContractSteps, contractSuite, fileRecord, storedUser } from "../helpers/stores.ts";

let created = Date.UTC(2026, 0, 1);

/** A new link of `userId` to file `fileId` (or, with `folder`, to that folder), a second younger. */
function share(userId: string, target: { fileId?: string; folderId?: string }): ShareRecord {
  const id = newId(systemRandom, Date.now());
  return {
    id,
    code: `code-${id}`,
    userId,
    fileId: target.fileId ?? null,
    folderId: target.folderId ?? null,
    password: null,
    expiresAt: null,
    maxViews: null,
    views: 0,
    createdAt: new Date(created += 1000),
  };
}

function folder(userId: string, name: string): FolderRecord {
  const at = new Date(created += 1000);
  return {
    id: newId(systemRandom, Date.now()),
    name,
    public: false,
    allowUploads: false,
    parentId: null,
    userId,
    createdAt: at,
    updatedAt: at,
  };
}

const steps: ContractSteps = {
  "a link is found by its code and its id, as it was stored": async (store) => {
    const a = await storedUser(store, "a");
    const f = fileRecord(a.id);
    await store.files.create(f, { maxBytes: null, maxFiles: null });
    const s = {
      ...share(a.id, { fileId: f.id }),
      password: "hash",
      maxViews: 3,
      expiresAt: new Date(Date.UTC(2027, 0, 1)),
    };
    await store.shares.create(s);
    assert.deepEqual(await store.shares.getByCode(s.code), s);
    assert.deepEqual(await store.shares.get(s.id), s);
    assert.equal(await store.shares.getByCode("unknown"), null);
    assert.equal(await store.shares.get("unknown"), null);
  },
  "a code is stored once; a user's links are listed oldest first": async (store) => {
    const [a, b] = [await storedUser(store, "a"), await storedUser(store, "b")];
    const f = fileRecord(a.id);
    await store.files.create(f, { maxBytes: null, maxFiles: null });
    const one = share(a.id, { fileId: f.id });
    await store.shares.create(one);
    await assert.rejects(
      store.shares.create({ ...share(a.id, { fileId: f.id }), code: one.code }),
      UniqueError,
    );
    const two = share(a.id, { fileId: f.id });
    await store.shares.create(two);
    assert.deepEqual((await store.shares.listByUser(a.id)).map((s) => s.id), [one.id, two.id]);
    assert.deepEqual(await store.shares.listByUser(b.id), []);
  },
  "views stop at maxViews": async (store) => {
    const a = await storedUser(store, "a");
    const f = fileRecord(a.id);
    await store.files.create(f, { maxBytes: null, maxFiles: null });
    const s = { ...share(a.id, { fileId: f.id }), maxViews: 2 };
    await store.shares.create(s);
    const results = await Promise.all([1, 2, 3, 4].map(() => store.shares.addView(s.id)));
    assert.equal(results.filter((r) => r === "counted").length, 2);
    assert.equal(results.filter((r) => r === "exhausted").length, 2);
    assert.equal((await store.shares.get(s.id))?.views, 2);
    assert.equal(await store.shares.addView("unknown"), "missing");
  },
  "links go with their target, their user, or alone": async (store) => {
    const [a, b] = [await storedUser(store, "a"), await storedUser(store, "b")];
    const f = fileRecord(a.id);
    await store.files.create(f, { maxBytes: null, maxFiles: null });
    const d = folder(a.id, "shared");
    await store.folders.create(d);
    const toFile = share(a.id, { fileId: f.id });
    const toFolder = share(a.id, { folderId: d.id });
    const alone = share(a.id, { fileId: f.id });
    const other = share(b.id, { folderId: d.id });
    for (const s of [toFile, toFolder, alone, other]) await store.shares.create(s);
    assert.deepEqual(await store.shares.delete(alone.id), alone);
    assert.equal(await store.shares.delete(alone.id), null);
    assert.equal(await store.shares.deleteByTarget({ kind: "file", id: f.id }), 1);
    assert.equal(await store.shares.getByCode(toFile.code), null);
    assert.equal(await store.shares.deleteByUser(a.id), 1);
    assert.equal(await store.shares.get(toFolder.id), null);
    assert.deepEqual((await store.shares.listByUser(b.id)).map((s) => s.id), [other.id]);
    const all = [];
    for await (const s of store.shares.iterate()) all.push(s.id);
    assert.deepEqual(all, [other.id]);
    // The code is free again.
    await store.shares.create({ ...share(a.id, { fileId: f.id }), code: toFile.code });
  },
  "private files and folders keep the flag": async (store) => {
    const a = await storedUser(store, "a");
    const f = fileRecord(a.id, { private: true });
    await store.files.create(f, { maxBytes: null, maxFiles: null });
    assert.equal((await store.files.get(f.id))?.private, true);
    const g = fileRecord(a.id);
    await store.files.create(g, { maxBytes: null, maxFiles: null });
    assert.ok(!(await store.files.get(g.id))?.private);
    const now = new Date(created += 1000);
    assert.equal((await store.files.update(g.id, { private: true }, now))?.private, true);
    assert.ok(!(await store.files.update(f.id, { private: false }, now))?.private);
    const page = await store.files.list({
      userId: a.id,
      offset: 0,
      limit: 10,
      sortBy: "createdAt",
      order: "asc",
      private: false,
    });
    assert.deepEqual(page.files.map((x) => x.id), [f.id]);
    const d = folder(a.id, "hidden");
    await store.folders.create({ ...d, private: true });
    assert.equal((await store.folders.get(d.id))?.private, true);
    assert.ok(!(await store.folders.update(d.id, { private: false }, now))?.private);
  },
  "a link written in a transaction that fails is gone": async (store) => {
    const a = await storedUser(store, "a");
    const f = fileRecord(a.id);
    await store.files.create(f, { maxBytes: null, maxFiles: null });
    const s = share(a.id, { fileId: f.id });
    await assert.rejects(
      store.transaction(async (view) => {
        await view.shares.create(s);
        throw new Error("stop");
      }),
      /stop/,
    );
    assert.equal(await store.shares.getByCode(s.code), null);
  },
};

contractSuite("share store", steps);
