/**
 * An import on Deno KV (`files.createMany` in `Store.transaction`): its
 * journal takes the index keys of the new files and their lists for the
 * search keys' build as absent without reading them (`knownAbsent`,
 * `db/kv/journal.ts`), and a failed import still leaves every key as it
 * was; a committed one leaves the counters, the list index and the search
 * right; one refused on a taken name outside a transaction leaves no list
 * entry of the files it did not write (it writes the entries first).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { FileQuery, FileRecord } from "../../db/files.ts";
import { queryFiles } from "../../db/files.ts";
import { openKvStore } from "../../db/kv/mod.ts";
import { patient } from "../../db/kv/patient.ts";
import { UniqueError } from "../../db/errors.ts";
import { fileRecord, storedUser } from "../helpers/stores.ts";

/** Every key and value of the database at `path`, in key order (a counter as its number). */
async function everything(path: string): Promise<[Deno.KvKey, unknown][]> {
  const kv = patient(await Deno.openKv(path));
  try {
    const out: [Deno.KvKey, unknown][] = [];
    for await (const { key, value } of kv.list({ prefix: [] })) {
      out.push([key, value instanceof Deno.KvU64 ? `u64 ${value.value}` : value]);
    }
    return out;
  } finally {
    kv.close();
  }
}

/** `n` files of `userId` with names and original names to search, some favourites. */
const files = (userId: string, n: number, tag: string): FileRecord[] =>
  Array.from({ length: n }, (_, i) =>
    fileRecord(userId, {
      name: `${tag}-${i}-${crypto.randomUUID().slice(0, 6)}.png`,
      originalName: `Holiday ${tag} ${i}.PNG`,
      type: i % 3 ? "image/png" : "video/mp4",
      favorite: i % 4 === 0,
      size: i,
    }));

Deno.test("kv import: a failed import leaves every key as it was; a committed one is listed and searched", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ferry-kv-import-" });
  const path = join(dir, "ferry.kv");
  try {
    let store = await openKvStore(path);
    const user = await storedUser(store);
    await store.files.createMany(files(user.id, 20, "old"));
    await store.buildSearchKeys(); // nothing built in the background while the import fails
    await store.close();
    const before = await everything(path);

    store = await openKvStore(path);
    await assert.rejects(
      store.transaction(async (tx) => {
        await tx.files.createMany(files(user.id, 300, "new"));
        throw new Error("stop");
      }),
      /stop/,
    );
    await store.close();
    assert.deepEqual(await everything(path), before, "nothing of the import is left");

    store = await openKvStore(path);
    const imported = files(user.id, 300, "new");
    await store.transaction((tx) => tx.files.createMany(imported));
    const all = await store.files.listByUser(user.id);
    assert.equal(all.length, 320);
    const queries: Partial<FileQuery>[] = [
      {},
      { favorite: true, offset: 40 },
      { search: { field: "originalName", query: "holiday new 1" } },
      { search: { field: "name", query: "W-29" } },
      { search: { field: "type", query: "image" }, offset: 100 },
      { search: { field: "type", query: "VIDEO" }, favorite: false },
    ];
    for (const extra of queries) {
      const q: FileQuery = {
        userId: user.id,
        sortBy: "size",
        order: "desc",
        offset: 0,
        limit: 25,
        ...extra,
      };
      const got = await store.files.list(q);
      const want = queryFiles(all, q);
      assert.equal(got.total, want.total, JSON.stringify(extra));
      assert.deepEqual(got.files.map((f) => f.id), want.files.map((f) => f.id));
    }
    const stats = await store.files.stats(user.id);
    assert.equal(stats.files, 320);
    assert.equal(stats.types["video/mp4"], 7 + 100);
    await store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kv import: createMany refused on a taken name leaves no list entry of a file it did not write", async () => {
  const store = await openKvStore(":memory:");
  try {
    const user = await storedUser(store);
    const taken = fileRecord(user.id, { name: "taken.png" });
    await store.files.create(taken, { maxBytes: null, maxFiles: null });
    await store.buildSearchKeys(); // the upload's entries of the other orders (`order_backlog.ts`)
    // A run holds at most 99 files (KV's 100 checks): the clash is in a later run.
    const batch = files(user.id, 400, "b");
    batch[350] = { ...batch[350], name: "taken.png" };
    await assert.rejects(store.files.createMany(batch), UniqueError);
    const written = await store.files.listByUser(user.id);
    assert.ok(written.length > 1 && written.length < 401, `${written.length} written`);
    const kept = new Set(written.map((f) => f.id));
    // Through the backend's own database: every entry names a file written, each file has its 10.
    const kv = (store as unknown as { kv: Deno.Kv }).kv;
    const entries = await Array.fromAsync(kv.list({ prefix: ["file_index", user.id, "all"] }));
    assert.equal(entries.length, written.length * 10);
    for (const { key } of entries) assert.ok(kept.has(key.at(-1) as string));
    const page = await store.files.list({
      userId: user.id,
      offset: 0,
      limit: 500,
      sortBy: "name",
      order: "asc",
    });
    assert.equal(page.total, written.length);
    assert.deepEqual(
      page.files.map((f) => f.id),
      queryFiles(written, { userId: user.id, offset: 0, limit: 500, sortBy: "name", order: "asc" })
        .files.map((f) => f.id),
    );
  } finally {
    await store.close();
  }
});
