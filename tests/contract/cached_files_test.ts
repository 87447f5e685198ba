/**
 * The file store's cached name lookup (`db/cached_files.ts`), on both stores:
 * `resolve` answers as `getByName`, and every write through the store is seen
 * by the next `resolve`, so this process never serves a file it changed.
 */
import assert from "node:assert/strict";
import type { FileLimits } from "../../db/files.ts";
import { type ContractSteps, contractSuite, fileRecord, storedUser } from "../helpers/stores.ts";

const NO_LIMITS: FileLimits = { maxBytes: null, maxFiles: null };
const now = new Date(Date.UTC(2026, 6, 1));

const steps: ContractSteps = {
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

  async "resolve sees what a transaction wrote"(store) {
    const user = await storedUser(store);
    const file = fileRecord(user.id, { name: "kept.txt" });
    await store.files.create(file, NO_LIMITS);
    assert.equal((await store.files.resolve("kept.txt"))?.id, file.id);
    await store.transaction((view) => view.files.delete(file.id));
    assert.equal(await store.files.resolve("kept.txt"), null);
  },
};

contractSuite("cached file lookups", steps);
