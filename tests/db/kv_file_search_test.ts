/**
 * The Deno KV search index (`db/kv/file_search.ts`): KV schema 5 fills it
 * for the files a store of schema 3 or 4 holds, also when an upgrade stopped
 * half way resumes; the longest names stay within an atomic operation's
 * limits, in an upload, an import and a rename.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { FileLimits, FileQuery, FileRecord } from "../../db/files.ts";
import { MAX_SEARCH_KEYS, searchKeys } from "../../db/kv/file_search.ts";
import { KV_SCHEMA_VERSION, openKvStore } from "../../db/kv/mod.ts";
import { fileRecord, storedUser } from "../helpers/stores.ts";

const NO_LIMITS: FileLimits = { maxBytes: null, maxFiles: null };
const INDEX_PREFIXES = [["file_sfx"], ["file_sfx_long"], ["file_by_type"]];

/** Every key of the search index, in key order. */
async function indexKeys(kv: Deno.Kv): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  for (const prefix of INDEX_PREFIXES) {
    for await (const { key } of kv.list({ prefix })) keys.push(key);
  }
  return keys;
}

/** A search of `userId`'s files, every match, newest first. */
const searchOf = (userId: string, field: "name" | "originalName" | "type", query: string) =>
  ({
    userId,
    offset: 0,
    limit: 100,
    sortBy: "createdAt",
    order: "desc",
    search: { field, query },
  }) satisfies FileQuery;

for (const from of [3, 4]) {
  Deno.test(`kv schema ${from} → 5: the search index is filled for the files stored, also when an upgrade stopped half way`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "ferry-kv-search-" });
    const path = join(dir, "ferry.kv");
    try {
      const store = await openKvStore(path);
      const [ann, bob] = [await storedUser(store), await storedUser(store)];
      const files = [
        fileRecord(ann.id, { name: "Alpha.png", originalName: "Holiday.PNG", type: "image/png" }),
        fileRecord(ann.id, { name: "beta.txt", originalName: null }),
        fileRecord(ann.id, { name: `${"é".repeat(70)}tail.txt`, originalName: "x" }),
        fileRecord(ann.id, { name: "pending-alpha.png", pending: true }),
        fileRecord(bob.id, { name: "bob-alpha.txt" }),
        fileRecord(null, { name: "orphan-alpha.txt" }),
      ];
      await store.files.createMany(files);
      await store.close();

      const kv = await Deno.openKv(path);
      const want = await indexKeys(kv);
      assert.ok(want.length > 0);
      // What schema 3 or 4 held: no index. From 4, an upgrade had indexed the first copy and
      // stopped.
      for (const key of want) await kv.delete(key);
      await kv.set(["meta", "schema_version"], from);
      if (from === 4) {
        const [first] = await Array.fromAsync(
          kv.list<FileRecord>({ prefix: ["file_by_user"] }, { limit: 1 }),
        );
        const op = kv.atomic();
        for (const key of searchKeys(first.value)) op.set(key, true);
        await op.set(["meta", "search_backfill"], [...first.key, ""]).commit();
      }
      kv.close();

      const upgraded = await openKvStore(path);
      assert.equal(await upgraded.schemaVersion(), KV_SCHEMA_VERSION);
      const ids = async (q: FileQuery) => (await upgraded.files.list(q)).files.map((f) => f.id);
      assert.deepEqual(await ids(searchOf(ann.id, "name", "ALPHA")), [files[0].id]);
      assert.deepEqual(await ids(searchOf(ann.id, "originalName", "day.p")), [files[0].id]);
      assert.deepEqual(await ids(searchOf(ann.id, "name", "TAIL")), [files[2].id]);
      assert.deepEqual(await ids(searchOf(ann.id, "type", "text")), [files[2].id, files[1].id]);
      assert.deepEqual(await ids(searchOf(bob.id, "name", "a")), [files[4].id]);
      await upgraded.close();

      const raw = await Deno.openKv(path);
      assert.deepEqual(await indexKeys(raw), want, "the keys a write makes, no more");
      assert.equal((await raw.get(["meta", "search_backfill"])).value, null, "the cursor is gone");
      raw.close();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("kv search index: the longest names fit one atomic operation, uploaded, imported and renamed", async () => {
  const store = await openKvStore(":memory:");
  try {
    const user = await storedUser(store);
    // 255 code points of 4 bytes each, every suffix distinct: the most keys, the longest.
    const long = (seed: number) =>
      Array.from({ length: 255 }, (_, i) => String.fromCodePoint(0x1f300 + (i * seed) % 700))
        .join("");
    const uploaded = fileRecord(user.id, { name: long(1), originalName: long(3) });
    assert.equal(searchKeys(uploaded).length, MAX_SEARCH_KEYS);
    await store.files.create(uploaded, NO_LIMITS);
    const imported = Array.from(
      { length: 12 },
      (_, i) => fileRecord(user.id, { name: long(11 + i), originalName: long(40 + i) }),
    );
    await store.files.createMany(imported);
    const renamed = await store.files.update(uploaded.id, {
      name: long(7),
      originalName: long(9),
    }, new Date());
    assert.equal(renamed?.name, long(7));
    const found = await store.files.list(searchOf(user.id, "name", long(7).slice(-40)));
    assert.deepEqual(found.files.map((f) => f.id), [uploaded.id]);
    assert.equal((await store.files.list(searchOf(user.id, "name", long(1)))).total, 0);
  } finally {
    await store.close();
  }
});
