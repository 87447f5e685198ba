/**
 * The file store's contract (`db/files.ts`): records, names, the usage
 * counters and their limits, pages, views, access grants and the totals the
 * API relies on; one suite, run against Deno KV and PostgreSQL alike.
 */
import assert from "node:assert/strict";
import { newId, systemRandom } from "../../core/clock.ts";
import {
  type FileLimits,
  type FileRecord,
  type FileStats,
  mostViewedOf,
  QuotaError,
} from "../../db/files.ts";
import { type Backend } from "../../db/store.ts";
import { UniqueError } from "../../db/errors.ts";
import { type ContractSteps, contractSuite, fileRecord, storedUser } from "../helpers/stores.ts";
import { recounted, spoilCounters } from "../helpers/file_stats.ts";

const NO_LIMITS: FileLimits = { maxBytes: null, maxFiles: null };
let tick = Date.UTC(2026, 6, 1);
const next = () => new Date(tick += 1000);

async function stored(store: Backend, userId: string | null, extra: Partial<FileRecord> = {}) {
  const file = fileRecord(userId, extra);
  await store.files.create(file, NO_LIMITS);
  return file;
}

const isUnique = (field: string) => (e: unknown) => e instanceof UniqueError && e.field === field;
const isQuota = (kind: string) => (e: unknown) => e instanceof QuotaError && e.kind === kind;
const ids = (files: FileRecord[]) => files.map((f) => f.id);
/** The first page of a user's files, newest first. */
const newest = (userId: string) =>
  ({ userId, offset: 0, limit: 10, sortBy: "createdAt", order: "desc" }) as const;

const steps: ContractSteps = {
  async "namedWithPrefix: names starting with the prefix, in name order, at most limit"(store) {
    const user = await storedUser(store);
    for (const name of ["abc.txt", "abc", "abc.tar.gz", "abcd.png", "ab.png", "abc.ü"]) {
      await stored(store, user.id, { name });
    }
    const names = async (prefix: string, limit = 10) =>
      (await store.files.namedWithPrefix(prefix, limit)).map((f) => f.name);
    assert.deepEqual(await names("abc."), ["abc.tar.gz", "abc.txt", "abc.ü"]);
    assert.deepEqual(await names("abc.", 2), ["abc.tar.gz", "abc.txt"]);
    assert.deepEqual(await names("abc"), ["abc", "abc.tar.gz", "abc.txt", "abc.ü", "abcd.png"]);
    assert.deepEqual(await names("zz"), []);
    assert.deepEqual(await names("a%"), [], "no pattern characters");
  },

  async "create, get and getByName; a taken name or id is refused"(store) {
    const user = await storedUser(store);
    const file = await stored(store, user.id, { originalName: "a b.txt", deletesAt: next() });
    assert.deepEqual(await store.files.get(file.id), file);
    assert.deepEqual(await store.files.getByName(file.name), file);
    assert.equal(await store.files.get("missing"), null);
    assert.equal(await store.files.getByName("missing"), null);
    await assert.rejects(
      store.files.create(fileRecord(user.id, { name: file.name }), NO_LIMITS),
      isUnique("name"),
    );
    await assert.rejects(
      store.files.create(fileRecord(user.id, { id: file.id }), NO_LIMITS),
      isUnique("id"),
    );
    assert.deepEqual(await store.files.usage(user.id), { bytes: 1, files: 1 });
  },

  async "resize: corrects a complete file's size and its owner's bytes, past any quota"(store) {
    const user = await storedUser(store);
    const file = await stored(store, user.id, { size: 10 });
    await stored(store, user.id, { size: 5 });
    const at = next();
    const grown = await store.files.resize(file.id, 100, at);
    assert.deepEqual(grown, { ...file, size: 100, updatedAt: at });
    assert.deepEqual(await store.files.get(file.id), grown);
    assert.deepEqual(await store.files.usage(user.id), { bytes: 105, files: 2 });
    await store.files.resize(file.id, 0, next());
    assert.deepEqual(await store.files.usage(user.id), { bytes: 5, files: 2 });
    const pending = await stored(store, user.id, { pending: true, size: 0 });
    assert.equal(await store.files.resize(pending.id, 7, next()), null, "pending");
    assert.equal(await store.files.resize("missing", 7, next()), null);
    const orphan = await stored(store, null, { size: 3 });
    assert.equal((await store.files.resize(orphan.id, 4, next()))?.size, 4);
  },

  async "a pending file counts as a file, then its bytes once completed"(store) {
    const user = await storedUser(store);
    const file = await stored(store, user.id, { pending: true, size: 0 });
    assert.deepEqual(await store.files.usage(user.id), { bytes: 0, files: 1 });
    const page = newest(user.id);
    assert.deepEqual((await store.files.list(page)).files, []);
    assert.equal(await store.files.addView(file.id), "missing");
    const done = await store.files.complete(file.id, 42, NO_LIMITS, next());
    assert.equal(done?.pending, false);
    assert.equal(done?.size, 42);
    assert.deepEqual(await store.files.get(file.id), done);
    assert.deepEqual(await store.files.usage(user.id), { bytes: 42, files: 1 });
    assert.equal(await store.files.complete(file.id, 1, NO_LIMITS, next()), null, "not pending");
    assert.equal(await store.files.complete("missing", 1, NO_LIMITS, next()), null);
  },

  async "limits are checked in the write: concurrent creates never pass them"(store) {
    const user = await storedUser(store);
    const limits = { maxBytes: null, maxFiles: 3 };
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => store.files.create(fileRecord(user.id), limits)),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 3);
    for (const r of results.filter((r) => r.status === "rejected")) {
      assert.ok(isQuota("files")((r as PromiseRejectedResult).reason));
    }
    assert.deepEqual(await store.files.usage(user.id), { bytes: 3, files: 3 });

    const other = await storedUser(store);
    const bytes = { maxBytes: 100, maxFiles: null };
    const pending = fileRecord(other.id, { pending: true, size: 0 });
    await store.files.create(pending, bytes);
    await assert.rejects(store.files.complete(pending.id, 101, bytes, next()), isQuota("bytes"));
    assert.equal((await store.files.get(pending.id))?.pending, true, "nothing written");
    assert.deepEqual(await store.files.usage(other.id), { bytes: 0, files: 1 });
    await assert.rejects(
      store.files.create(fileRecord(other.id, { size: 101 }), bytes),
      isQuota("bytes"),
    );
    // An owner-less file counts against nobody.
    await store.files.create(fileRecord(null, { size: 500 }), bytes);
  },

  async "concurrent uploads of several owners: each refused or stored alone, counts exact"(store) {
    // Many creates and completes at once, as a busy server sends them: a store may commit them
    // together (Deno KV does), but each is answered as it would be alone.
    const [a, b] = [await storedUser(store), await storedUser(store)];
    const limitsA = { maxBytes: null, maxFiles: 5 };
    const limitsB = { maxBytes: 50, maxFiles: null };
    const filesA = Array.from({ length: 9 }, () => fileRecord(a.id, { size: 1 }));
    const filesB = Array.from({ length: 9 }, () => fileRecord(b.id, { pending: true, size: 0 }));
    const created = await Promise.allSettled([
      ...filesA.map((f) => store.files.create(f, limitsA)),
      ...filesB.map((f) => store.files.create(f, limitsB)),
    ]);
    assert.equal(created.filter((r) => r.status === "fulfilled").length, 5 + 9);
    const reasons = created.flatMap((r) => r.status === "rejected" ? [r.reason] : []);
    assert.ok(reasons.every(isQuota("files")));
    assert.deepEqual(await store.files.usage(a.id), { bytes: 5, files: 5 });

    // Completing 10 bytes each against 50: five pass, in whatever order they land.
    const completed = await Promise.allSettled([
      ...filesB.map((f) => store.files.complete(f.id, 10, limitsB, next())),
      store.files.complete("missing", 10, limitsB, next()),
    ]);
    const done = completed.flatMap((r) => r.status === "fulfilled" && r.value ? [r.value] : []);
    assert.equal(done.length, 5);
    assert.ok(done.every((f) => !f.pending && f.size === 10));
    const refused = completed.flatMap((r) => r.status === "rejected" ? [r.reason] : []);
    assert.equal(refused.filter(isQuota("bytes")).length, 4);
    assert.deepEqual(completed.at(-1), { status: "fulfilled", value: null }, "no such file");
    assert.deepEqual(await store.files.usage(b.id), { bytes: 50, files: 9 });
    assert.equal((await store.files.listByUser(b.id)).filter((f) => f.pending).length, 4);

    // A taken name among others, and one file completed twice at once: only those fail.
    const clash = fileRecord(b.id, { name: filesA[0].name });
    const twice = fileRecord(a.id, { pending: true, size: 0 });
    await store.files.create(twice, NO_LIMITS);
    const mixed = await Promise.allSettled([
      store.files.create(fileRecord(null), NO_LIMITS),
      store.files.create(clash, NO_LIMITS),
      store.files.create(fileRecord(null), NO_LIMITS),
      store.files.complete(twice.id, 2, NO_LIMITS, next()),
      store.files.complete(twice.id, 2, NO_LIMITS, next()),
    ]);
    assert.deepEqual(mixed.map((r) => r.status), [
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
      "fulfilled",
    ]);
    assert.ok(isUnique("name")((mixed[1] as PromiseRejectedResult).reason));
    const twiceDone = mixed.slice(3).map((r) => (r as PromiseFulfilledResult<unknown>).value);
    assert.equal(twiceDone.filter((f) => f === null).length, 1, "a file completes once");
    assert.equal(await store.files.get(clash.id), null);
    assert.deepEqual(await store.files.usage(a.id), { bytes: 7, files: 6 });
  },

  async "one owner's creates at once: a taken name or a passed limit fails only its own"(store) {
    // Creates that arrive together may be stored together (both stores group-commit them): each
    // is still refused or stored as it would be alone, in arrival order.
    const user = await storedUser(store);
    const taken = await stored(store, user.id);
    const files = Array.from(
      { length: 6 },
      (_, i) => fileRecord(user.id, { size: 10, ...(i === 2 ? { name: taken.name } : {}) }),
    );
    const byName = await Promise.allSettled(files.map((f) => store.files.create(f, NO_LIMITS)));
    assert.deepEqual(byName.map((r) => r.status), [
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
      "fulfilled",
    ]);
    assert.ok(isUnique("name")((byName[2] as PromiseRejectedResult).reason));
    assert.equal(await store.files.get(files[2].id), null);
    assert.deepEqual(await store.files.usage(user.id), { bytes: 51, files: 6 });
    // 6 files of 51 bytes: room for 2 more by count, for 4 more of 10 bytes by size.
    const limits = { maxBytes: 100, maxFiles: 8 };
    const more = Array.from({ length: 4 }, () => fileRecord(user.id, { size: 10 }));
    const counted = await Promise.allSettled(more.map((f) => store.files.create(f, limits)));
    assert.deepEqual(counted.map((r) => r.status), [
      "fulfilled",
      "fulfilled",
      "rejected",
      "rejected",
    ]);
    assert.ok(counted.slice(2).every((r) => isQuota("files")((r as PromiseRejectedResult).reason)));
    const bytes = { maxBytes: 80, maxFiles: null };
    const big = Array.from(
      { length: 3 },
      (_, i) => fileRecord(user.id, { size: i === 0 ? 10 : 1 }),
    );
    const sized = await Promise.allSettled(big.map((f) => store.files.create(f, bytes)));
    assert.deepEqual(sized.map((r) => r.status), ["rejected", "fulfilled", "fulfilled"]);
    assert.ok(isQuota("bytes")((sized[0] as PromiseRejectedResult).reason));
    assert.deepEqual(await store.files.usage(user.id), { bytes: 73, files: 10 });
    const stats = await store.files.stats(user.id);
    assert.equal(stats.files, 10);
  },

  async "update applies a patch and renames with the name's uniqueness"(store) {
    const user = await storedUser(store);
    const a = await stored(store, user.id);
    const b = await stored(store, user.id);
    const at = next();
    const patch = {
      favorite: true,
      maxViews: 3,
      password: "hash",
      originalName: "x.txt",
      type: "text/markdown",
      name: "renamed.txt",
      deletesAt: null,
      thumbnail: ".thumbnail.x.jpg",
    };
    // `undefined` leaves a field as it is.
    const changed = await store.files.update(a.id, { ...patch, folderId: undefined }, at);
    assert.deepEqual(changed, { ...a, ...patch, updatedAt: at });
    assert.deepEqual(await store.files.getByName("renamed.txt"), changed);
    assert.equal(await store.files.getByName(a.name), null, "the old name is free");
    await assert.rejects(
      store.files.update(b.id, { name: "renamed.txt" }, next()),
      isUnique("name"),
    );
    assert.equal((await store.files.get(b.id))?.name, b.name);
    assert.equal(await store.files.update("missing", { favorite: true }, next()), null);
  },

  async "delete returns the record and uncounts it"(store) {
    const user = await storedUser(store);
    const file = await stored(store, user.id, { size: 10 });
    await stored(store, user.id, { size: 5 });
    assert.deepEqual(await store.files.delete(file.id), file);
    assert.equal(await store.files.get(file.id), null);
    assert.equal(await store.files.getByName(file.name), null);
    assert.deepEqual(await store.files.usage(user.id), { bytes: 5, files: 1 });
    assert.equal(await store.files.delete(file.id), null);
    await stored(store, user.id, { name: file.name }); // the name is free again
  },

  async "list: the user's complete files, filtered, searched, sorted and paged"(store) {
    const user = await storedUser(store);
    const other = await storedUser(store);
    const folder = newId(systemRandom, Date.now());
    const f1 = await stored(store, user.id, {
      originalName: "Cat.png",
      type: "image/png",
      size: 3,
    });
    const f2 = await stored(store, user.id, { type: "text/plain", size: 1, favorite: true });
    const f3 = await stored(store, user.id, { type: "video/mp4", size: 2, folderId: folder });
    await stored(store, user.id, { pending: true });
    await stored(store, other.id);
    const q = newest(user.id);
    const all = await store.files.list(q);
    assert.deepEqual(ids(all.files), [f3.id, f2.id, f1.id]);
    assert.equal(all.total, 3);
    const paged = await store.files.list({ ...q, offset: 1, limit: 1 });
    assert.deepEqual([ids(paged.files), paged.total], [[f2.id], 3]);
    assert.deepEqual(await store.files.list({ ...q, offset: 9 }), { files: [], total: 3 });
    assert.deepEqual(ids((await store.files.list({ ...q, sortBy: "size", order: "asc" })).files), [
      f2.id,
      f3.id,
      f1.id,
    ]);
    assert.deepEqual(
      ids((await store.files.list({ ...q, sortBy: "originalName", order: "asc" })).files)[0],
      f1.id,
      "nulls last",
    );
    assert.deepEqual(ids((await store.files.list({ ...q, favorite: true })).files), [f2.id]);
    assert.deepEqual(ids((await store.files.list({ ...q, folderId: folder })).files), [f3.id]);
    assert.deepEqual(ids((await store.files.list({ ...q, ids: [f1.id, "x"] })).files), [f1.id]);
    const media = await store.files.list({ ...q, typePrefixes: ["image/", "video/"] });
    assert.deepEqual(ids(media.files), [f3.id, f1.id]);
    const found = await store.files.list({
      ...q,
      search: { field: "originalName", query: "cAT" },
    });
    assert.deepEqual([ids(found.files), found.total], [[f1.id], 1]);
  },

  async "listByUser (pending included, oldest first), iterate, and disown"(store) {
    const user = await storedUser(store);
    const a = await stored(store, user.id);
    const b = await stored(store, user.id, { pending: true });
    const orphan = await stored(store, null);
    assert.deepEqual(ids(await store.files.listByUser(user.id)), [a.id, b.id]);
    const everything: string[] = [];
    for await (const f of store.files.iterate()) everything.push(f.id);
    assert.deepEqual(everything.sort(), [a.id, b.id, orphan.id].sort());
    await store.files.disown(user.id);
    assert.deepEqual(await store.files.listByUser(user.id), []);
    assert.equal((await store.files.get(a.id))?.userId, null);
    assert.deepEqual(await store.files.usage(user.id), { bytes: 0, files: 0 });
  },

  async "addView counts up to maxViews, at once from many viewers"(store) {
    const user = await storedUser(store);
    const file = await stored(store, user.id, { maxViews: 3 });
    const results = await Promise.all(
      Array.from({ length: 6 }, () => store.files.addView(file.id)),
    );
    assert.equal(results.filter((r) => r === "counted").length, 3);
    assert.equal(results.filter((r) => r === "exhausted").length, 3);
    assert.equal((await store.files.get(file.id))?.views, 3);
    const open = await stored(store, user.id);
    assert.equal(await store.files.addView(open.id), "counted");
    assert.equal(await store.files.addView("missing"), "missing");
  },

  async "access grants hold for their file and key until they expire"(store) {
    const user = await storedUser(store);
    const file = await stored(store, user.id);
    const now = new Date();
    const until = new Date(now.getTime() + 60_000);
    await store.files.grantAccess(file.id, "k1", until, now);
    assert.equal(await store.files.hasAccess(file.id, "k1", now), true);
    assert.equal(await store.files.hasAccess(file.id, "k2", now), false);
    assert.equal(await store.files.hasAccess("other", "k1", now), false);
    assert.equal(await store.files.hasAccess(file.id, "k1", until), false, "expired at its time");
  },

  async "stats: totals and types over a user's complete files only"(store) {
    const user = await storedUser(store);
    const other = await storedUser(store);
    const empty: FileStats = { files: 0, favorites: 0, views: 0, bytes: 0, types: {} };
    assert.deepEqual(await store.files.stats(user.id), empty);
    await stored(store, user.id, { type: "image/png", size: 100, views: 4, favorite: true });
    await stored(store, user.id, { type: "image/png", size: 50, views: 1 });
    await stored(store, user.id, { type: "text/plain", size: 7 });
    await stored(store, user.id, { pending: true, type: "video/mp4", size: 0 });
    await stored(store, other.id, { type: "audio/mpeg", size: 9, views: 9, favorite: true });
    assert.deepEqual(await store.files.stats(user.id), {
      files: 3,
      favorites: 1,
      views: 5,
      bytes: 157,
      types: { "image/png": 2, "text/plain": 1 },
    });
  },

  async "stats: the counters follow every write of a file"(store) {
    const user = await storedUser(store);
    const pending = await stored(store, user.id, { pending: true, type: "video/mp4", size: 0 });
    assert.deepEqual(await store.files.stats(user.id), await recounted(store, user.id));
    assert.equal((await store.files.stats(user.id)).files, 0, "a pending file is not counted");
    await store.files.complete(pending.id, 500, NO_LIMITS, next());
    const png = await stored(store, user.id, { type: "image/png", size: 100, views: 2 });
    await store.files.update(png.id, { favorite: true, type: "image/webp" }, next());
    await store.files.resize(png.id, 80, next());
    assert.equal(await store.files.addView(png.id), "counted");
    await store.files.createMany([
      fileRecord(user.id, { type: "text/plain", size: 7, views: 3, favorite: true }),
      fileRecord(user.id, { type: "image/webp", size: 5 }),
      fileRecord(null, { type: "text/plain", size: 11 }),
    ]);
    assert.deepEqual(await store.files.stats(user.id), {
      files: 4,
      favorites: 2,
      views: 6,
      bytes: 592,
      types: { "video/mp4": 1, "image/webp": 2, "text/plain": 1 },
    });
    assert.deepEqual(await store.files.stats(user.id), await recounted(store, user.id));
    await store.files.delete(pending.id);
    assert.deepEqual(
      (await store.files.stats(user.id)).types,
      { "image/webp": 2, "text/plain": 1 },
      "a type whose last file went is not listed",
    );
    assert.deepEqual(await store.files.stats(null), await recounted(store, null));
    await store.files.disown(user.id);
    assert.deepEqual(await store.files.stats(user.id), EMPTY, "a disowned user counts nothing");
    assert.deepEqual(await store.files.stats(null), {
      files: 4,
      favorites: 2,
      views: 6,
      bytes: 103,
      types: { "image/webp": 2, "text/plain": 2 },
    });
  },

  async "stats: concurrent uploads, completions and views keep the counters exact"(store) {
    const user = await storedUser(store);
    const pending = await Promise.all(
      Array.from({ length: 12 }, () => stored(store, user.id, { pending: true, size: 0 })),
    );
    const done = await Promise.all(
      Array.from({ length: 12 }, (_, i) => stored(store, user.id, { size: i, type: `t/${i % 3}` })),
    );
    await Promise.all([
      ...pending.map((f) => store.files.complete(f.id, 10, NO_LIMITS, next())),
      ...done.flatMap((f) => [store.files.addView(f.id), store.files.addView(f.id)]),
      ...done.slice(0, 4).map((f) => store.files.delete(f.id)),
    ]);
    const stats = await store.files.stats(user.id);
    assert.deepEqual(stats, await recounted(store, user.id));
    assert.equal(stats.files, 20);
    assert.equal(stats.views, 16);
  },

  async "recountStats: sets right counters made wrong by hand, a budget of records a pass"(store) {
    const user = await storedUser(store);
    for (let i = 0; i < 7; i++) {
      await stored(store, user.id, {
        type: i % 2 ? "image/png" : "text/plain",
        size: 10,
        views: 1,
      });
    }
    const right = await store.files.stats(user.id);
    assert.deepEqual(await store.files.recountStats(user.id, 100), {
      done: true,
      repaired: 0,
      read: 7,
    });
    await spoilCounters(store, user.id);
    assert.notDeepEqual(await store.files.stats(user.id), right, "spoilt");
    let passes = 0;
    let repaired = 0;
    for (let done = false; !done; passes++) {
      const pass = await store.files.recountStats(user.id, 3);
      done = pass.done;
      repaired += pass.repaired;
    }
    assert.ok(repaired >= 3, `repaired ${repaired}`);
    assert.equal(passes, 3, "3 + 3 + 1 records");
    assert.deepEqual(await store.files.stats(user.id), right);
    // Right again, the counters move on with the writes.
    await stored(store, user.id, { type: "audio/ogg", size: 1 });
    assert.deepEqual(await store.files.stats(user.id), await recounted(store, user.id));
  },

  async "recountStats: a counter that writes move during a recount is never set to its sums, and the next recount sets it right"(
    store,
  ) {
    const user = await storedUser(store);
    const files = [];
    for (let i = 0; i < 6; i++) {
      files.push(await stored(store, user.id, { type: "text/plain", size: 10, views: 1 }));
    }
    await spoilCounters(store, user.id);
    const first = await store.files.recountStats(user.id, 5);
    assert.deepEqual([first.done, first.read], [false, 5]);
    // At least one of the two was read by the first pass: its sums count it.
    await store.files.delete(files[0].id);
    await store.files.delete(files[5].id);
    for (let done = false; !done;) done = (await store.files.recountStats(user.id, 5)).done;
    const after = (await store.files.stats(user.id)).types["text/plain"];
    assert.ok(after === 4 || after === 97, `text/plain counted ${after}: right, or left spoilt`);
    for (let done = false; !done;) done = (await store.files.recountStats(user.id, 5)).done;
    assert.deepEqual(await store.files.stats(user.id), await recounted(store, user.id));
  },

  async "deleteMany: removes the files given (missing ones passed over) with their counters, list entries and tag links"(
    store,
  ) {
    const [ann, bob] = [await storedUser(store), await storedUser(store)];
    const tag = {
      id: crypto.randomUUID(),
      name: "t",
      color: "#123456",
      userId: ann.id,
      createdAt: next(),
      updatedAt: next(),
    };
    await store.tags.create(tag);
    const files: FileRecord[] = [];
    for (let i = 0; i < 60; i++) {
      files.push(fileRecord(i % 3 === 2 ? bob.id : ann.id, {
        size: i + 1,
        favorite: i % 5 === 0,
        views: i % 4,
        type: i % 2 ? "image/png" : "text/plain",
        originalName: `holiday ${i}.png`,
        deletesAt: i % 7 === 0 ? next() : null,
      }));
    }
    files.push(fileRecord(null, { size: 3 }), fileRecord(ann.id, { pending: true, size: 0 }));
    await store.files.createMany(files);
    for (const f of files.slice(0, 10)) {
      if (f.userId === ann.id) {
        await store.files.update(f.id, { thumbnail: `.thumbnail.${f.id}.jpg` }, next());
      }
    }
    await store.files.update(files[2].id, { maxViews: 1 }, next());
    for (const f of files.filter((f) => f.userId === ann.id).slice(0, 6)) {
      await store.tags.setFileTags(f.id, [tag.id]);
    }
    const doomed = files.filter((_, i) => i % 2 === 0 || i >= 60);
    const removed = await store.files.deleteMany([...ids(doomed), "missing", doomed[0].id]);
    assert.deepEqual(ids(removed).sort(), ids(doomed).sort());
    assert.deepEqual(await store.files.deleteMany(ids(doomed)), [], "gone already");
    const left = files.filter((f) => !doomed.includes(f));
    assert.deepEqual(
      ids(await store.files.getMany([...ids(files), "missing"])).sort(),
      ids(left).sort(),
    );
    for (const user of [ann, bob]) {
      const own = left.filter((f) => f.userId === user.id);
      assert.deepEqual(await store.files.usage(user.id), {
        files: own.length,
        bytes: own.reduce((sum, f) => sum + f.size, 0),
      });
      assert.deepEqual(await store.files.stats(user.id), await recounted(store, user.id));
      const page = await store.files.list({ ...newest(user.id), limit: 100 });
      assert.deepEqual(ids(page.files).sort(), ids(own).sort());
      assert.equal(page.total, own.length);
      const search = await store.files.list({
        ...newest(user.id),
        limit: 100,
        search: { field: "originalName", query: "holiday" },
      });
      assert.deepEqual(ids(search.files).sort(), ids(own).sort(), "search index");
    }
    assert.deepEqual(await store.files.stats(null), EMPTY);
    const tagged = await store.tags.tagsOfFiles(ids(files));
    assert.deepEqual([...tagged.keys()].sort(), ids(left.filter((f) => tagged.has(f.id))).sort());
    assert.ok([...tagged.keys()].every((id) => !ids(doomed).includes(id)));
    // The cleaning tasks' indexes forget them too.
    const by = new Date(tick + 1e9);
    const expired = await store.files.candidates({ kind: "expired", by }, 100);
    assert.deepEqual(
      ids(expired).sort(),
      ids(left.filter((f) => f.deletesAt !== null)).sort(),
    );
    assert.deepEqual(await store.files.candidates({ kind: "abandoned", by }, 100), []);
    assert.deepEqual(await store.files.candidates({ kind: "exhausted" }, 100), []);
    const thumbnailed = await store.files.candidates({ kind: "thumbnailed" }, 100);
    assert.ok(thumbnailed.every((f) => left.some((l) => l.id === f.id)));
    assert.equal(
      thumbnailed.length,
      left.filter((f) => f.userId === ann.id && files.indexOf(f) < 10).length,
    );
  },

  async "candidates: each kind names exactly its files, following every write"(store) {
    const user = await storedUser(store);
    const at = next();
    const soon = new Date(at.getTime() + 60_000);
    const expired = await stored(store, user.id, { deletesAt: at });
    const later = await stored(store, user.id, { deletesAt: soon });
    const exhausted = await stored(store, user.id, { maxViews: 2, views: 2 });
    const viewable = await stored(store, user.id, { maxViews: 2, views: 1 });
    const early = new Date(at.getTime() - 1000);
    const stale = await stored(store, user.id, { pending: true, size: 0, updatedAt: early });
    const fresh = await stored(store, user.id, { pending: true, size: 0, updatedAt: soon });
    const pendingExpiry = await stored(store, user.id, {
      pending: true,
      deletesAt: at,
      updatedAt: soon,
    });
    const plain = await stored(store, user.id);
    const other = await storedUser(store);
    const others = await stored(store, other.id, { deletesAt: at });
    const kinds = async () => ({
      expired: ids(await store.files.candidates({ kind: "expired", by: at }, 100)).sort(),
      exhausted: ids(await store.files.candidates({ kind: "exhausted" }, 100)).sort(),
      abandoned: ids(await store.files.candidates({ kind: "abandoned", by: at }, 100)).sort(),
      thumbnailed: ids(await store.files.candidates({ kind: "thumbnailed" }, 100)).sort(),
      owned: ids(await store.files.candidates({ kind: "owned", userId: other.id }, 100)).sort(),
    });
    const sorted = (...files: FileRecord[]) => ids(files).sort();
    assert.deepEqual(await kinds(), {
      expired: sorted(expired, others),
      exhausted: sorted(exhausted),
      abandoned: sorted(stale),
      thumbnailed: [],
      owned: sorted(others),
    });
    assert.equal((await store.files.candidates({ kind: "expired", by: at }, 1)).length, 1, "limit");
    // Writes move files in and out of each index.
    assert.equal(await store.files.addView(viewable.id), "counted");
    await store.files.update(expired.id, { deletesAt: null }, next());
    await store.files.update(later.id, { deletesAt: at }, next());
    await store.files.update(exhausted.id, { maxViews: 5 }, next());
    await store.files.complete(stale.id, 4, NO_LIMITS, next());
    await store.files.update(plain.id, { thumbnail: `.thumbnail.${plain.id}.jpg` }, next());
    await store.files.update(fresh.id, { thumbnail: `.thumbnail.${fresh.id}.png` }, next());
    await store.files.delete(others.id);
    assert.deepEqual(await kinds(), {
      expired: sorted(later),
      exhausted: sorted(viewable),
      abandoned: [],
      thumbnailed: sorted(plain, fresh),
      owned: [],
    });
    const completed = await store.files.complete(pendingExpiry.id, 1, NO_LIMITS, next());
    assert.ok(completed);
    assert.deepEqual(
      (await kinds()).expired,
      sorted(later, pendingExpiry),
      "completed: now counts",
    );
    const [first] = await store.files.candidates({ kind: "thumbnailed" }, 1);
    const after = await store.files.candidates({ kind: "thumbnailed", after: first.id }, 10);
    assert.deepEqual(ids([first, ...after]).sort(), sorted(plain, fresh));
    assert.equal(after.length, 1);
  },

  async "candidates foldered: a folder's files, pending ones included, following every write"(
    store,
  ) {
    const user = await storedUser(store);
    const other = await storedUser(store);
    const kept = await stored(store, user.id, { folderId: "f1" });
    const hidden = await stored(store, user.id, { folderId: "f1", private: true, favorite: true });
    const pending = await stored(store, user.id, { folderId: "f1", pending: true, size: 0 });
    await stored(store, user.id, { pending: true, size: 0 });
    await stored(store, user.id, { folderId: "f2" });
    await stored(store, user.id);
    await stored(store, other.id, { folderId: "f1" });
    const inF1 = async (limit = 100) =>
      ids(
        await store.files.candidates({ kind: "foldered", userId: user.id, folderId: "f1" }, limit),
      )
        .sort();
    const sorted = (...files: FileRecord[]) => ids(files).sort();
    assert.deepEqual(await inF1(), sorted(kept, hidden, pending));
    assert.equal((await inF1(2)).length, 2, "limit");
    await store.files.update(kept.id, { folderId: null }, next());
    await store.files.complete(pending.id, 3, NO_LIMITS, next());
    assert.deepEqual(await inF1(), sorted(hidden, pending), "moved out; completed");
    await store.files.delete(hidden.id);
    await store.files.update(pending.id, { folderId: "f2" }, next());
    assert.deepEqual(await inF1(), [], "deleted; moved to another folder");
  },

  async "mostViewed: most views first, ties by name, complete files only, from their index"(
    store,
  ) {
    const user = await storedUser(store);
    const other = await storedUser(store);
    const names = async (take: number) => (await store.files.mostViewed(take)).map((f) => f.name);
    assert.deepEqual(await names(5), [], "no file");
    const views = async (file: FileRecord, n: number) => {
      for (let i = 0; i < n; i++) assert.equal(await store.files.addView(file.id), "counted");
    };
    const b = await stored(store, user.id, { name: "b.txt" });
    const a = await stored(store, other.id, { name: "a.txt" });
    const z = await stored(store, null, { name: "Z.txt" });
    const c = await stored(store, user.id, { name: "c.txt" });
    await stored(store, user.id, { name: "0pending.txt", pending: true });
    const ü = await stored(store, user.id, { name: "ü.txt" });
    assert.deepEqual(await names(10), ["Z.txt", "a.txt", "b.txt", "c.txt", "ü.txt"], "none viewed");
    assert.deepEqual(await names(2), ["Z.txt", "a.txt"]);
    await views(c, 2);
    await views(b, 2);
    await views(ü, 3);
    await views(a, 1);
    assert.deepEqual(await names(3), ["ü.txt", "b.txt", "c.txt"], "ties by name");
    assert.deepEqual(await names(10), ["ü.txt", "b.txt", "c.txt", "a.txt", "Z.txt"]);
    const imported = fileRecord(other.id, { name: "imported.txt", views: 7 });
    await store.files.createMany([imported]);
    await store.files.update(b.id, { name: "bb.txt" }, next());
    await views(z, 2);
    assert.deepEqual(await names(4), ["imported.txt", "ü.txt", "Z.txt", "bb.txt"]);
    await store.files.delete(ü.id);
    await store.files.deleteMany([imported.id, c.id]);
    await store.files.disown(other.id);
    const top = await store.files.mostViewed(10);
    assert.deepEqual(top.map((f) => f.name), ["Z.txt", "bb.txt", "a.txt"]);
    assert.equal(top[2].userId, null, "records as stored: disowned");
    assert.equal(top[0].views, 2);
    const all = [];
    for await (const f of store.files.iterate()) all.push(f);
    assert.deepEqual(top, mostViewedOf(all, 10), "the rule in memory");
  },
};

const EMPTY: FileStats = { files: 0, favorites: 0, views: 0, bytes: 0, types: {} };

contractSuite("file store contract", steps);
