/**
 * Uploads' list entries of the orders other than the default, built after
 * their write on Deno KV (`db/kv/order_backlog.ts`, issue #31): an upload
 * writes its entries of the newest-first order (and its counts) and a mark;
 * the build (in the background, a list in another order first, the
 * statistics' recount, a store opened with marks left) leaves exactly the
 * entries of the records stored, also for files deleted, renamed, made
 * favourites or moved before it or between its read and its commit. Every
 * order's pages right after uploads, on both stores, are in
 * `tests/api/files_orders_test.ts`.
 */
import assert from "node:assert/strict";
import { FILE_SORT_KEYS, type FileQuery, type FileRecord, queryFiles } from "../../db/files.ts";
import { EAGER_KEY, newEntries } from "../../db/kv/file_index.ts";
import { type KvStore, openKvStore } from "../../db/kv/mod.ts";
import { patient } from "../../db/kv/patient.ts";
import { buildOrders, ORDER_TODO } from "../../db/kv/order_backlog.ts";
import { fileRecord, storedUser } from "../helpers/stores.ts";
import { inTempStore, meddlingAt } from "../helpers/kv_backlog.ts";

const NO_LIMITS = { maxBytes: null, maxFiles: null };

/** Every list index entry stored, serialized, sorted. */
async function stored(kv: Deno.Kv): Promise<string[]> {
  const out: string[] = [];
  for await (const { key, value } of kv.list({ prefix: ["file_index"] })) {
    out.push(JSON.stringify([key, value]));
  }
  return out.sort();
}

/** The entries `records` should have, serialized, sorted. */
const expected = (records: FileRecord[]) =>
  newEntries(records).map((e) => JSON.stringify([e.key, e.value])).sort();

/** How many files are marked for the build. */
const marked = async (kv: Deno.Kv) =>
  (await Array.fromAsync(kv.list({ prefix: ORDER_TODO }))).length;

/** `n` files of `userId` of varied sizes, names and types, some in a folder. */
const varied = (userId: string, n: number, tag: string): FileRecord[] =>
  Array.from({ length: n }, (_, i) =>
    fileRecord(userId, {
      name: `${tag}${(i * 7) % n}-${crypto.randomUUID().slice(0, 8)}.png`,
      originalName: i % 3 ? `Orig ${i % 4}` : null,
      size: (i * 37) % 11,
      type: i % 2 ? "image/png" : "text/plain",
      folderId: i % 4 === 1 ? "folder1" : null,
    }));

/** Asserts every order's first page of `userId`'s files, both ways, is the records'. */
async function assertOrders(store: KvStore, userId: string) {
  const all = await store.files.listByUser(userId);
  for (const sortBy of FILE_SORT_KEYS) {
    for (const order of ["asc", "desc"] as const) {
      for (const extra of [{}, { favorite: true }, { folderId: "folder1" }]) {
        const q: FileQuery = { userId, offset: 0, limit: 100, sortBy, order, ...extra };
        const got = await store.files.list(q);
        const want = queryFiles(all, q);
        assert.equal(got.total, want.total, JSON.stringify(q));
        assert.deepEqual(got.files.map((f) => f.id), want.files.map((f) => f.id));
      }
    }
  }
}

/** Uploads `files`, most at once (group-committed), the last one alone. */
async function upload(store: KvStore, files: FileRecord[]) {
  await Promise.all(files.slice(0, -1).map((f) => store.files.create(f, NO_LIMITS)));
  await store.files.create(files.at(-1)!, NO_LIMITS);
}

Deno.test("kv list orders: an upload writes the newest-first entries and a mark; deleted, renamed, favourite and moved files before the build end with exactly their records' entries", async () => {
  await inTempStore(async (path) => {
    const store = await openKvStore(path);
    const kv = patient(await Deno.openKv(path));
    try {
      const user = await storedUser(store);
      await store.backlog!.hold(); // no build in the background until released
      const files = varied(user.id, 14, "up");
      await upload(store, files);
      const keys = (await stored(kv)).map((s) => JSON.parse(s)[0] as Deno.KvKey);
      assert.ok(keys.length > 0 && keys.every((k) => k[3] === EAGER_KEY), "the default order only");
      assert.equal(await marked(kv), 14);
      // The newest first needs no build: the marks stay.
      const newest = await store.files.list({
        userId: user.id,
        offset: 0,
        limit: 5,
        sortBy: "createdAt",
        order: "desc",
      });
      assert.equal(newest.total, 14);
      assert.equal(await marked(kv), 14);

      const [gone, renamed, loved, moved] = files;
      await store.files.delete(gone.id);
      await store.files.update(
        renamed.id,
        { name: "0-renamed.png", originalName: "X" },
        new Date(),
      );
      await store.files.update(loved.id, { favorite: true }, new Date());
      await store.files.update(moved.id, { folderId: "folder1" }, new Date());
      store.backlog!.release();
      await store.buildSearchKeys();
      assert.equal(await marked(kv), 0, "every mark built");
      const records = await store.files.listByUser(user.id);
      assert.equal(records.length, 13);
      assert.deepEqual(await stored(kv), expected(records));
      await assertOrders(store, user.id);
    } finally {
      kv.close();
      await store.close();
    }
  });
});

Deno.test("kv list orders: a list in another order builds its owner's marks first, not another's", async () => {
  await inTempStore(async (path) => {
    const store = await openKvStore(path);
    const kv = patient(await Deno.openKv(path));
    try {
      const [a, b] = [await storedUser(store, "a"), await storedUser(store, "b")];
      await store.backlog!.hold();
      await upload(store, varied(a.id, 6, "a"));
      await upload(store, varied(b.id, 4, "b"));
      await store.files.delete((await store.files.listByUser(a.id))[2].id);
      await store.files.list({ userId: a.id, offset: 0, limit: 5, sortBy: "size", order: "asc" });
      assert.equal(await marked(kv), 4, "b's marks stay");
      await assertOrders(store, a.id);
      await assertOrders(store, b.id);
      assert.equal(await marked(kv), 0);
      const records = [
        ...await store.files.listByUser(a.id),
        ...await store.files.listByUser(b.id),
      ];
      assert.deepEqual(await stored(kv), expected(records));
      store.backlog!.release();
    } finally {
      kv.close();
      await store.close();
    }
  });
});

Deno.test("kv list orders: a file changed between the build's read and its commit is read again", async () => {
  await inTempStore(async (path) => {
    const store = await openKvStore(path);
    const kv = patient(await Deno.openKv(path));
    try {
      const user = await storedUser(store);
      await store.backlog!.hold();
      const files = varied(user.id, 8, "m");
      await upload(store, files);
      let meddled = false;
      const meddling = meddlingAt(kv, 1, async () => {
        meddled = true;
        await store.files.update(files[1].id, { name: "late.png" }, new Date());
        await store.files.delete(files[5].id);
      });
      // Its first commit fails its checks (two records changed): it reads them again.
      assert.equal(await buildOrders(meddling), 8);
      assert.ok(meddled);
      assert.equal(await marked(kv), 0);
      assert.deepEqual(await stored(kv), expected(await store.files.listByUser(user.id)));
      store.backlog!.release();
    } finally {
      kv.close();
      await store.close();
    }
  });
});

Deno.test("kv list orders: a store stopped with marks left builds them once opened again; the statistics' recount builds them too", async () => {
  await inTempStore(async (path) => {
    let store = await openKvStore(path);
    const user = await storedUser(store);
    await store.backlog!.hold();
    await upload(store, varied(user.id, 9, "r"));
    await store.close(); // SIGTERM's path: the build stops, the marks stay
    const kv = patient(await Deno.openKv(path));
    try {
      assert.equal(await marked(kv), 9);
      store = await openKvStore(path);
      await store.backlog!.idle(); // the build the store started on opening
      assert.equal(await marked(kv), 0);
      assert.deepEqual(await stored(kv), expected(await store.files.listByUser(user.id)));

      await store.backlog!.hold();
      await upload(store, varied(user.id, 5, "s"));
      assert.equal(await marked(kv), 5);
      while (!(await store.files.recountStats(user.id, 1000)).done) {
        // passes until done
      }
      assert.equal(await marked(kv), 0, "the recount built them");
      assert.deepEqual(await stored(kv), expected(await store.files.listByUser(user.id)));
      store.backlog!.release();
    } finally {
      kv.close();
      await store.close();
    }
  });
});

Deno.test("kv list orders: a store closed while its build runs stops at a commit; opened again, it ends with exactly the records' entries", async () => {
  await inTempStore(async (path) => {
    let store = await openKvStore(path);
    const user = await storedUser(store);
    await store.backlog!.hold();
    const files = varied(user.id, 300, "t");
    for (let i = 0; i < files.length; i += 30) await upload(store, files.slice(i, i + 30));
    store.backlog!.release(); // the build starts: the close below stops it at its next commit
    await store.close();
    store = await openKvStore(path);
    const kv = patient(await Deno.openKv(path));
    try {
      await store.backlog!.idle();
      assert.equal(await marked(kv), 0);
      assert.deepEqual(await stored(kv), expected(await store.files.listByUser(user.id)));
    } finally {
      kv.close();
      await store.close();
    }
  });
});
