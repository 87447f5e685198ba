/**
 * The file store's cached name lookup (`db/cached_files.ts`), on both stores:
 * `resolve` answers as `getByName`, and every write through the store is seen
 * by the next `resolve`, so this process never serves a file it changed.
 */
import assert from "node:assert/strict";
import type { FileLimits } from "../../db/files.ts";
import type { Store } from "../../db/store.ts";
import { fileRecord, type ServingSteps, servingSuite, storedUser } from "../helpers/stores.ts";

const NO_LIMITS: FileLimits = { maxBytes: null, maxFiles: null };
const now = new Date(Date.UTC(2026, 6, 1));

/** The first ten of the user's files, by name. */
const firstPage = (store: Store, userId: string) =>
  store.files.list({ userId, offset: 0, limit: 10, sortBy: "name", order: "asc" });

const steps: ServingSteps = {
  async "resolve answers as getByName and sees every write through the store"(store) {
    const user = await storedUser(store);
    assert.equal(await store.files.resolve("later.txt"), null);
    const file = fileRecord(user.id, { name: "later.txt" });
    await store.files.create(file, NO_LIMITS);
    assert.deepEqual(await store.files.resolve("later.txt"), file, "a cached miss is cleared");

    await store.files.update(file.id, { password: "hash" }, now);
    assert.equal((await store.files.resolve("later.txt"))?.password, "hash");

    await store.files.update(file.id, { name: "moved.txt" }, now);
    assert.equal(await store.files.resolve("later.txt"), null);
    assert.equal((await store.files.resolve("moved.txt"))?.id, file.id);

    await store.files.delete(file.id);
    assert.equal(await store.files.resolve("moved.txt"), null);
  },

  async "list sees every write through the store at once"(store) {
    const user = await storedUser(store);
    const page = () => firstPage(store, user.id);
    const a = fileRecord(user.id, { name: "a.txt" });
    await store.files.create(a, NO_LIMITS);
    assert.deepEqual((await page()).files.map((f) => f.name), ["a.txt"]);
    const b = fileRecord(user.id, { name: "b.txt" });
    await store.files.create(b, NO_LIMITS);
    assert.deepEqual((await page()).files.map((f) => f.name), ["a.txt", "b.txt"]);
    await store.files.update(a.id, { name: "c.txt", favorite: true }, now);
    assert.deepEqual((await page()).files.map((f) => f.name), ["b.txt", "c.txt"]);
    const favorites = await store.files.list({
      userId: user.id,
      offset: 0,
      limit: 10,
      sortBy: "name",
      order: "desc",
      favorite: true,
    });
    assert.deepEqual(favorites, { files: [await store.files.get(a.id)], total: 1 });
    await store.files.delete(b.id);
    assert.deepEqual(await page(), { files: [await store.files.get(a.id)], total: 1 });
  },

  async "an upload's completion is seen by the next resolve and list, other answers kept"(store) {
    const user = await storedUser(store);
    const page = () => firstPage(store, user.id);
    const other = fileRecord(user.id, { name: "other.txt" });
    await store.files.create(other, NO_LIMITS);
    const upload = fileRecord(user.id, { name: "upload.txt", pending: true, size: 0 });
    await store.files.create(upload, NO_LIMITS);
    assert.equal((await store.files.resolve("upload.txt"))?.pending, true);
    assert.deepEqual((await page()).files.map((f) => f.name), ["other.txt"]);
    assert.equal((await store.files.resolve("other.txt"))?.id, other.id);

    const done = await store.files.complete(upload.id, 6, NO_LIMITS, now);
    assert.equal(done?.pending, false);
    assert.deepEqual(await store.files.resolve("upload.txt"), done, "the pending answer is gone");
    assert.deepEqual((await page()).files.map((f) => f.name), ["other.txt", "upload.txt"]);
    assert.equal((await store.files.resolve("other.txt"))?.id, other.id);
  },

  async "resolve sees what a transaction wrote"(store) {
    const user = await storedUser(store);
    const file = fileRecord(user.id, { name: "kept.txt" });
    await store.files.create(file, NO_LIMITS);
    assert.equal((await store.files.resolve("kept.txt"))?.id, file.id);
    await store.transaction((view) => view.files.delete(file.id));
    assert.equal(await store.files.resolve("kept.txt"), null);
  },
};

servingSuite("cached file lookups", steps);
