/**
 * Imported and uploaded files' search keys on Deno KV, built after their
 * write (`db/kv/search_backlog.ts`, KV schema 8): before they are built every
 * search finds the new files as a read of every file would; the build
 * leaves exactly the keys of the records stored, also for files renamed or
 * deleted before it or while it wrote, and one that stopped half way is
 * finished by the next (a store opened with files listed builds them by
 * itself); a store of schema 7 opens at 8.
 */
import assert from "node:assert/strict";
import type { FileQuery, FileRecord } from "../../db/files.ts";
import { queryFiles } from "../../db/files.ts";
import { searchKeys } from "../../db/kv/file_search.ts";
import { KV_SCHEMA_VERSION, type KvStore, openKvStore } from "../../db/kv/mod.ts";
import { patient } from "../../db/kv/patient.ts";
import { BACKLOG, backlogKey, buildBacklog, type ListedFile } from "../../db/kv/search_backlog.ts";
import { fileRecord, storedUser } from "../helpers/stores.ts";
import { inTempStore, meddlingAt } from "../helpers/kv_backlog.ts";

const SEARCH_PREFIXES = [["file_sfx2"], ["file_sfx_long"], ["file_by_type"]];

/** Every search key and its value, serialized, sorted. */
async function searchIndex(kv: Deno.Kv): Promise<string[]> {
  const out: string[] = [];
  for (const prefix of SEARCH_PREFIXES) {
    for await (const { key, value } of kv.list({ prefix })) out.push(JSON.stringify([key, value]));
  }
  return out.sort();
}

/** The search keys `records` should have, serialized, sorted. */
const expectedIndex = (records: FileRecord[]) =>
  records.flatMap((f) => searchKeys(f).map((k) => JSON.stringify([k.key, k.value]))).sort();

const NO_LIMITS = { maxBytes: null, maxFiles: null };

/** The lists of files whose keys are not built yet. */
const listed = async (kv: Deno.Kv) => (await Array.fromAsync(kv.list({ prefix: BACKLOG }))).length;

/** `n` files of `userId` with names, original names and types to search. */
const varied = (userId: string, n: number, tag: string): FileRecord[] =>
  Array.from({ length: n }, (_, i) =>
    fileRecord(userId, {
      name: `${tag}${i}-${crypto.randomUUID().slice(0, 8)}.png`,
      originalName: i % 5 ? `Holiday ${tag} ${i}.PNG` : null,
      type: i % 3 ? "image/png" : "video/mp4",
      favorite: i % 4 === 0,
    }));

/** Searches that reach the index, each checked against a read of every file (`all`). */
async function assertSearches(store: KvStore, userId: string, all: FileRecord[], tag: string) {
  const queries: [FileQuery["search"] & object, Partial<FileQuery>][] = [
    [{ field: "name", query: `${tag}1` }, {}],
    [{ field: "name", query: "PNG" }, { favorite: true }],
    [{ field: "originalName", query: `holiday ${tag} 2` }, {}],
    [{ field: "originalName", query: "day" }, { sortBy: "name", order: "asc" }],
    [{ field: "type", query: "mp4" }, {}],
    [{ field: "type", query: "image" }, { offset: 20 }],
  ];
  for (const [search, extra] of queries) {
    const q: FileQuery = {
      userId,
      offset: 0,
      limit: 25,
      sortBy: "createdAt",
      order: "desc",
      search,
      ...extra,
    };
    const got = await store.files.list(q);
    const want = queryFiles(all, q);
    assert.equal(got.total, want.total, JSON.stringify(search));
    assert.deepEqual(got.files.map((f) => f.id), want.files.map((f) => f.id));
  }
}

Deno.test("kv search backlog: an import's files are found by every search before their keys are built and after", async () => {
  await inTempStore(async (path) => {
    const store = await openKvStore(path);
    try {
      const user = await storedUser(store);
      const uploaded = varied(user.id, 10, "up");
      for (const f of uploaded) await store.files.create(f, NO_LIMITS);
      await store.buildSearchKeys(); // the uploads' keys (listed too), built now
      await store.backlog!.hold(); // no build in the background: the keys stay unbuilt
      const imported = varied(user.id, 150, "imp");
      await store.files.createMany(imported);
      const all = [...uploaded, ...imported];
      const kv = patient(await Deno.openKv(path));
      try {
        assert.deepEqual(
          await searchIndex(kv),
          expectedIndex(uploaded),
          "no key of the import yet",
        );
        assert.ok(await listed(kv) > 0);
        await assertSearches(store, user.id, all, "imp");
        store.backlog!.release();
        await store.buildSearchKeys();
        assert.equal(await listed(kv), 0, "every list built");
        assert.deepEqual(await searchIndex(kv), expectedIndex(all));
        await assertSearches(store, user.id, all, "imp");
      } finally {
        kv.close();
      }
    } finally {
      await store.close();
    }
  });
});

Deno.test("kv search backlog: uploads are listed, not indexed, found by every search before the build and after; renamed or deleted before it, they keep exactly their keys", async () => {
  await inTempStore(async (path) => {
    const store = await openKvStore(path);
    try {
      const user = await storedUser(store);
      await store.backlog!.hold(); // no build in the background until released
      const uploaded = varied(user.id, 12, "up");
      // At once, as concurrent uploads: group-committed writes list their files together.
      await Promise.all(uploaded.map((f) => store.files.create(f, NO_LIMITS)));
      const kv = patient(await Deno.openKv(path));
      try {
        assert.deepEqual(await searchIndex(kv), [], "an upload writes no search key itself");
        assert.ok(await listed(kv) > 0);
        await assertSearches(store, user.id, uploaded, "up");

        const [moved, gone] = uploaded;
        await store.files.update(moved.id, {
          name: "moved-away.png",
          originalName: "Elsewhere.PNG",
        }, new Date());
        await store.files.delete(gone.id);
        const ids = async (field: "name" | "originalName", query: string) =>
          (await store.files.list({
            userId: user.id,
            offset: 0,
            limit: 25,
            sortBy: "createdAt",
            order: "desc",
            search: { field, query },
          })).files.map((f) => f.id);
        const searchesRight = async (stored: FileRecord[]) => {
          await assertSearches(store, user.id, stored, "up");
          assert.deepEqual(await ids("name", "MOVED-aw"), [moved.id]);
          assert.deepEqual(await ids("originalName", "elsewhere"), [moved.id]);
          assert.deepEqual(await ids("name", moved.name), [], "its old name finds nothing");
          assert.deepEqual(await ids("name", gone.name), [], "a deleted file is not found");
        };
        const stored = await store.files.listByUser(user.id);
        assert.equal(stored.length, 11);
        await searchesRight(stored);

        store.backlog!.release();
        await store.buildSearchKeys();
        assert.equal(await listed(kv), 0, "every list built");
        assert.deepEqual(await searchIndex(kv), expectedIndex(stored), "no key of the old name");
        await searchesRight(stored);
      } finally {
        kv.close();
      }
    } finally {
      await store.close();
    }
  });
});

Deno.test("kv search backlog: files renamed or deleted while the build writes keep exactly their keys", async () => {
  await inTempStore(async (path) => {
    const store = await openKvStore(path);
    try {
      const user = await storedUser(store);
      await store.backlog!.hold();
      const imported = varied(user.id, 120, "imp");
      await store.files.createMany(imported);
      // Before the build's second commit (of three): one file whose keys it wrote renamed;
      // one whose keys it has yet to write renamed (it writes the keys of the record it read),
      // one deleted.
      const [early, gone, late] = [imported[0], imported[110], imported[119]];
      let hooked = false;
      const kv = patient(await Deno.openKv(path));
      const meddling = meddlingAt(kv, 2, async () => {
        hooked = true;
        await store.files.update(late.id, { name: "late-renamed.png" }, new Date());
        await store.files.update(early.id, {
          name: "early-renamed.png",
          originalName: "Elsewhere.PNG",
        }, new Date());
        await store.files.delete(gone.id);
      });
      try {
        assert.ok(await buildBacklog(meddling) > 0);
        assert.ok(hooked);
        while (await buildBacklog(kv) > 0) { /* the rest */ }
        assert.equal(await listed(kv), 0);
        const records = await store.files.listByUser(user.id);
        assert.equal(records.length, 119);
        assert.deepEqual(await searchIndex(kv), expectedIndex(records));
        await assertSearches(store, user.id, records, "imp");
        const renamed = await store.files.list({
          userId: user.id,
          offset: 0,
          limit: 10,
          sortBy: "createdAt",
          order: "desc",
          search: { field: "name", query: "renamed" },
        });
        assert.deepEqual(renamed.files.map((f) => f.id).sort(), [early.id, late.id].sort());
      } finally {
        kv.close();
      }
    } finally {
      store.backlog!.release();
      await store.close();
    }
  });
});

Deno.test("kv search backlog: files listed with their searched fields, by id alone (a long list, or one written before the fields were carried), or both, get exactly their keys", async () => {
  await inTempStore(async (path) => {
    const store = await openKvStore(path);
    try {
      const user = await storedUser(store);
      await store.backlog!.hold();
      const uploaded = varied(user.id, 6, "up");
      await Promise.all(uploaded.map((f) => store.files.create(f, NO_LIMITS)));
      // Original names of 2,000 code units: a run of them carries the first files' fields,
      // names the rest by id.
      const long = varied(user.id, 8, "long").map((f) => ({
        ...f,
        originalName: `Holiday long ${f.name}`.repeat(60).slice(0, 2000),
      }));
      await store.files.createMany(long);
      const kv = patient(await Deno.openKv(path));
      try {
        const lists = await Array.fromAsync(kv.list<ListedFile[]>({ prefix: BACKLOG }));
        const items = lists.flatMap((l) => l.value);
        assert.ok(items.some((i) => typeof i === "string"), "a long list names some by id");
        assert.ok(items.some((i) => typeof i !== "string"), "and carries others' fields");
        // A list as written before the fields were carried: ids alone.
        const older = varied(user.id, 5, "old");
        for (const f of older) await kv.set(["file", f.id], f);
        await kv.set(backlogKey(user.id, older[0].id), older.map((f) => f.id));
        const all = [...uploaded, ...long, ...older];
        await assertSearches(store, user.id, all, "up");
        while (await buildBacklog(kv) > 0) { /* every list */ }
        assert.equal(await listed(kv), 0);
        assert.deepEqual(await searchIndex(kv), expectedIndex(all));
        await assertSearches(store, user.id, all, "old");
      } finally {
        kv.close();
      }
    } finally {
      await store.close();
    }
  });
});

Deno.test("kv search backlog: the build writes uploads' keys from their lists and checks the records, reading none that did not change; a changed one is read", async () => {
  await inTempStore(async (path) => {
    const store = await openKvStore(path);
    try {
      const user = await storedUser(store);
      await store.backlog!.hold();
      const uploaded = varied(user.id, 30, "up");
      await Promise.all(uploaded.map((f) => store.files.create(f, NO_LIMITS)));
      const kv = patient(await Deno.openKv(path));
      try {
        let reads = 0;
        const counting = new Proxy(kv, {
          get(target, prop) {
            if (prop === "getMany") {
              return (keys: Deno.KvKey[]) => {
                reads += keys.length;
                return target.getMany(keys);
              };
            }
            const value = Reflect.get(target, prop, target);
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
        assert.equal(await buildBacklog(counting), 30);
        assert.equal(reads, 0, "no record read");
        assert.deepEqual(await searchIndex(kv), expectedIndex(uploaded));
        // A file renamed between the keys' writes and the check: its check fails, it is read.
        const more = varied(user.id, 3, "more");
        await Promise.all(more.map((f) => store.files.create(f, NO_LIMITS)));
        const meddling = meddlingAt(counting, 2, async () => {
          await store.files.update(more[1].id, { name: "renamed-late.png" }, new Date());
        });
        assert.equal(await buildBacklog(meddling), 3);
        assert.ok(reads > 0, "the changed file's records read");
        const records = await store.files.listByUser(user.id);
        assert.deepEqual(await searchIndex(kv), expectedIndex(records));
      } finally {
        kv.close();
      }
    } finally {
      await store.close();
    }
  });
});

Deno.test("kv search backlog: a build stopped half way is finished by a store opened later, by itself", async () => {
  await inTempStore(async (path) => {
    let store = await openKvStore(path);
    const user = await storedUser(store);
    await store.backlog!.hold();
    const imported = varied(user.id, 200, "imp");
    await store.files.createMany(imported);
    const kv = patient(await Deno.openKv(path));
    try {
      // Stopped after its first commit: its lists stay.
      let commits = 0;
      assert.ok(await buildBacklog(kv, 1000, () => ++commits >= 1) > 0);
      assert.ok(await listed(kv) > 0);
      assert.notDeepEqual(await searchIndex(kv), expectedIndex(imported));
      await store.close(); // still held: nothing built in this process

      store = await openKvStore(path);
      await store.backlog!.idle();
      assert.equal(await listed(kv), 0);
      assert.deepEqual(await searchIndex(kv), expectedIndex(imported));
      await assertSearches(store, user.id, imported, "imp");
    } finally {
      kv.close();
      await store.close();
    }
  });
});

Deno.test("kv schema 7 → 8: a store of schema 7 opens at this schema, its files searched as before", async () => {
  await inTempStore(async (path) => {
    let store = await openKvStore(path);
    const user = await storedUser(store);
    const files = varied(user.id, 30, "old");
    await store.files.createMany(files);
    await store.buildSearchKeys();
    await store.close();
    const kv = patient(await Deno.openKv(path));
    await kv.set(["meta", "schema_version"], 7);
    kv.close();

    store = await openKvStore(path);
    try {
      assert.equal(await store.schemaVersion(), KV_SCHEMA_VERSION);
      await assertSearches(store, user.id, files, "old");
    } finally {
      await store.close();
    }
  });
});
