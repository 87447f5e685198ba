/**
 * The serving store (`db/serving.ts`) over each backend: its caches answer
 * within their second, see every write through the store at once (a write
 * through it, a write through a transaction), and see a write another
 * process made around them once their second has passed on the clock; its
 * rate limits count through the owner (`db/rate_limit_owner.ts`) as the
 * contract of `hit` says. The backend beneath stands in for another process.
 */
import assert from "node:assert/strict";
import { systemRandom } from "../../core/clock.ts";
import { newStoredToken } from "../../core/tokens.ts";
import { FILES_FRESH_MS } from "../../db/cached_files.ts";
import type { FileLimits, FileQuery } from "../../db/files.ts";
import { FOLDERS_FRESH_MS } from "../../db/folder_cache.ts";
import type { FolderRecord } from "../../db/folders.ts";
import { URLS_FRESH_MS } from "../../db/url_cache.ts";
import { USERS_FRESH_MS } from "../../db/user_cache.ts";
import {
  fileRecord,
  type ServingSteps,
  servingSuite,
  storedUser,
  urlRecord,
  userRecord as user,
} from "../helpers/stores.ts";

const NO_LIMITS: FileLimits = { maxBytes: null, maxFiles: null };
const later = new Date(Date.UTC(2026, 6, 1));

/** The first page of a user's files, by name. */
const page = (userId: string): FileQuery => ({
  userId,
  offset: 0,
  limit: 10,
  sortBy: "name",
  order: "asc",
});

const steps: ServingSteps = {
  async "a write through it is seen at once by every cache"(store) {
    const owner = await storedUser(store);
    const file = fileRecord(owner.id, { name: "a.txt" });
    const link = urlRecord(owner.id, "go");
    assert.equal(await store.files.resolve("a.txt"), null);
    assert.equal(await store.urls.resolve("go"), null);
    assert.equal((await store.files.list(page(owner.id))).total, 0);
    assert.equal((await store.users.listCached()).length, 1);
    await store.files.create(file, NO_LIMITS);
    await store.urls.create(link, null);
    await store.users.create(user("new"));
    assert.equal((await store.files.resolve("a.txt"))?.id, file.id);
    assert.equal(store.files.resolveCached("a.txt")?.id, file.id);
    assert.equal((await store.urls.resolve("go"))?.id, link.id);
    assert.equal((await store.files.list(page(owner.id))).total, 1);
    assert.equal((await store.users.listCached()).length, 2);
  },

  async "a write through a transaction is seen by every cache once it ends"(store) {
    const owner = await storedUser(store);
    const file = fileRecord(owner.id, { name: "a.txt" });
    const link = urlRecord(owner.id, "go");
    await store.files.create(file, NO_LIMITS);
    await store.urls.create(link, null);
    assert.equal((await store.files.resolve("a.txt"))?.id, file.id);
    assert.equal((await store.urls.resolve("go"))?.id, link.id);
    assert.equal((await store.files.list(page(owner.id))).total, 1);
    assert.equal((await store.users.getCached(owner.id))?.role, "USER");
    await store.transaction(async (view) => {
      await view.files.delete(file.id);
      await view.urls.delete(link.id);
      await view.users.update(owner.id, { role: "ADMIN" }, later);
    });
    assert.equal(await store.files.resolve("a.txt"), null);
    assert.equal(await store.urls.resolve("go"), null);
    assert.equal((await store.files.list(page(owner.id))).total, 0);
    assert.equal((await store.users.getCached(owner.id))?.role, "ADMIN");
  },

  async "another process's write shows once the second has passed, not before"(
    store,
    clock,
    backend,
  ) {
    const owner = await storedUser(store);
    const file = fileRecord(owner.id, { name: "a.txt" });
    const link = urlRecord(owner.id, "go");
    await store.files.create(file, NO_LIMITS);
    await store.urls.create(link, null);
    assert.equal((await store.files.resolve("a.txt"))?.id, file.id);
    assert.equal((await store.urls.resolve("go"))?.enabled, true);
    assert.equal((await store.files.list(page(owner.id))).total, 1);
    assert.equal((await store.users.getCached(owner.id))?.role, "USER");
    assert.equal((await store.users.listCached()).length, 1);

    // Around this process's caches, as another process writes.
    await backend.files.delete(file.id);
    await backend.urls.update(link.id, { enabled: false }, later);
    await backend.users.update(owner.id, { role: "ADMIN" }, later);
    await backend.users.create(user("elsewhere"));

    clock.advance(Math.min(FILES_FRESH_MS, URLS_FRESH_MS, USERS_FRESH_MS) - 1);
    assert.equal((await store.files.resolve("a.txt"))?.id, file.id, "a name within its second");
    assert.equal((await store.urls.resolve("go"))?.enabled, true);
    assert.equal((await store.files.list(page(owner.id))).total, 0, "lists are never cached");
    assert.equal((await store.users.getCached(owner.id))?.role, "USER");
    assert.equal((await store.users.listCached()).length, 1);

    clock.advance(1);
    assert.equal(await store.files.resolve("a.txt"), null, "past it, read afresh");
    assert.equal((await store.urls.resolve("go"))?.enabled, false);
    assert.equal((await store.users.getCached(owner.id))?.role, "ADMIN");
    assert.equal((await store.users.listCached()).length, 2);
    assert.equal((await store.files.list(page(owner.id))).total, 0);
  },

  async "a folder's privacy: at once through it or a transaction, within a second from elsewhere"(
    store,
    clock,
    backend,
  ) {
    const owner = await storedUser(store);
    const folder: FolderRecord = {
      id: crypto.randomUUID(),
      name: "docs",
      public: false,
      allowUploads: false,
      parentId: null,
      userId: owner.id,
      private: false,
      createdAt: later,
      updatedAt: later,
    };
    /** Whether the folder is private, as the cache answers now. */
    const cachedPrivate = async () => (await store.folders.getCached(folder.id))?.private === true;
    assert.equal(store.folders.peekCached(folder.id), undefined, "nothing until read");
    assert.equal(await store.folders.getCached(folder.id), null);
    await store.folders.create(folder);
    assert.equal((await store.folders.getCached(folder.id))?.id, folder.id, "the create forgot");
    assert.equal(store.folders.peekCached(folder.id)?.id, folder.id);

    await store.folders.update(folder.id, { private: true }, later);
    assert.equal(store.folders.peekCached(folder.id), undefined, "the update forgot");
    assert.equal(await cachedPrivate(), true);

    await store.transaction((view) => view.folders.update(folder.id, { private: false }, later));
    assert.equal(await cachedPrivate(), false, "so did the transaction");

    await backend.folders.update(folder.id, { private: true }, later);
    clock.advance(FOLDERS_FRESH_MS - 1);
    assert.equal(await cachedPrivate(), false, "within its second");
    clock.advance(1);
    assert.equal(await cachedPrivate(), true, "past it, read afresh");
  },

  "rate limits: counts to max, refuses past it, windows are separate": async (store) => {
    const start = Math.floor(Date.now() / 60_000) * 60_000;
    const hits = [];
    for (let i = 0; i < 4; i++) hits.push(await store.rateLimits.hit("k", start, 60_000, 3));
    assert.deepEqual(hits, [
      { allowed: true, count: 1 },
      { allowed: true, count: 2 },
      { allowed: true, count: 3 },
      { allowed: false, count: 3 },
    ]);
    assert.deepEqual(await store.rateLimits.hit("other", start, 60_000, 3), {
      allowed: true,
      count: 1,
    });
    assert.deepEqual(await store.rateLimits.hit("k", start + 60_000, 60_000, 3), {
      allowed: true,
      count: 1,
    });
    const racers = await Promise.all(
      Array.from({ length: 10 }, () => store.rateLimits.hit("race", start, 60_000, 4)),
    );
    assert.equal(racers.filter((h) => h.allowed).length, 4);
    assert.equal(await store.rateLimits.sweep(start + 60_001), 3);
    assert.deepEqual(await store.rateLimits.hit("k", start, 60_000, 3), {
      allowed: true,
      count: 1,
    });
  },

  "rate limits: a burst over many windows counts each one exactly": async (store) => {
    const start = Math.floor(Date.now() / 60_000) * 60_000;
    const keys = Array.from({ length: 25 }, (_, i) => `burst${i}`);
    const burst = await Promise.all(
      Array.from({ length: 250 }, (_, i) => store.rateLimits.hit(keys[i % 25], start, 60_000, 7)),
    );
    for (const [k, key] of keys.entries()) {
      const mine = burst.filter((_, i) => i % 25 === k);
      assert.deepEqual(
        mine.filter((h) => h.allowed).map((h) => h.count).sort((a, b) => a - b),
        [1, 2, 3, 4, 5, 6, 7],
        key,
      );
    }
    assert.deepEqual(await store.rateLimits.hit("burst0", start, 60_000, 8), {
      allowed: true,
      count: 8,
    });
  },

  "cached user reads show every user write through the store at once": async (store) => {
    const u = user("cached");
    assert.equal(await store.users.getCached(u.id), null);
    await store.users.create(u);
    assert.deepEqual(await store.users.getCached(u.id), u);
    const copy = (await store.users.getCached(u.id))!;
    copy.role = "SUPERADMIN";
    assert.equal((await store.users.getCached(u.id))?.role, "USER");
    const token = newStoredToken(Date.now(), systemRandom, "u");
    await store.users.update(u.id, { role: "ADMIN", token }, new Date(2026, 0, 2));
    assert.deepEqual(
      [(await store.users.getCached(u.id))?.role, (await store.users.getCached(u.id))?.token],
      ["ADMIN", token],
    );
    assert.equal((await store.users.listCached()).find((x) => x.id === u.id)?.role, "ADMIN");
    await store.users.delete(u.id);
    assert.equal(await store.users.getCached(u.id), null);
    assert.equal((await store.users.listCached()).some((x) => x.id === u.id), false);
  },

  "a transaction's user writes reach the cached reads at once": async (store) => {
    const u = user("cached-tx");
    await store.users.create(u);
    assert.equal((await store.users.getCached(u.id))?.role, "USER");
    await store.transaction((tx) => tx.users.update(u.id, { role: "ADMIN" }, new Date(2026, 0, 2)));
    assert.equal((await store.users.getCached(u.id))?.role, "ADMIN");
  },
};

servingSuite("serving store", steps);
