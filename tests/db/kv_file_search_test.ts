/**
 * The Deno KV search index (`db/kv/file_search.ts`): KV schema 6 fills it
 * for the files a store of schema 3, 4 or 5 holds (removing schema 5's
 * suffix keys), also when an upgrade stopped half way resumes; the longest
 * names stay within an atomic operation's limits, in an upload, an import
 * and a rename; a query found at an odd position, at the last even one, in
 * a suffix that recurs, or of one code point is found.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { FileLimits, FileQuery, FileRecord } from "../../db/files.ts";
import { MAX_SEARCH_KEYS, searchKeys } from "../../db/kv/file_search.ts";
import { KV_SCHEMA_VERSION, openKvStore } from "../../db/kv/mod.ts";
import { patient } from "../../db/kv/patient.ts";
import { fileRecord, storedUser } from "../helpers/stores.ts";

const NO_LIMITS: FileLimits = { maxBytes: null, maxFiles: null };
const INDEX_PREFIXES = [["file_sfx2"], ["file_sfx_long"], ["file_by_type"]];

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

for (const from of [3, 4, 5]) {
  Deno.test(`kv schema ${from} → 6: the search index is filled for the files stored, also when an upgrade stopped half way`, async () => {
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
      await store.buildSearchKeys();
      await store.close();

      const kv = patient(await Deno.openKv(path));
      const want = await indexKeys(kv);
      assert.ok(want.length > 0);
      // What schema 3 or 4 held: no index; schema 5: a suffix key at every position, and a
      // stopped backfill's cursor. From 4, an upgrade to 6 had indexed the first copy and stopped.
      for (const key of want) await kv.delete(key);
      await kv.set(["meta", "schema_version"], from);
      if (from === 5) {
        await kv.set(["file_sfx", ann.id, "n", "lpha.png", files[0].id], true);
        await kv.set(["meta", "search_backfill"], ["file_by_user", ann.id]);
      }
      if (from === 4) {
        const [first] = await Array.fromAsync(
          kv.list<FileRecord>({ prefix: ["file_by_user"] }, { limit: 1 }),
        );
        const op = kv.atomic();
        for (const { key, value } of searchKeys(first.value)) op.set(key, value);
        await op.set(["meta", "search_backfill_6"], [...first.key, ""]).commit();
      }
      kv.close();

      const upgraded = await openKvStore(path);
      assert.equal(await upgraded.schemaVersion(), KV_SCHEMA_VERSION);
      const ids = async (q: FileQuery) => (await upgraded.files.list(q)).files.map((f) => f.id);
      assert.deepEqual(await ids(searchOf(ann.id, "name", "ALPHA")), [files[0].id]);
      assert.deepEqual(await ids(searchOf(ann.id, "name", "LPHA")), [files[0].id]);
      assert.deepEqual(await ids(searchOf(ann.id, "originalName", "day.p")), [files[0].id]);
      assert.deepEqual(await ids(searchOf(ann.id, "name", "TAIL")), [files[2].id]);
      assert.deepEqual(await ids(searchOf(ann.id, "type", "text")), [files[2].id, files[1].id]);
      assert.deepEqual(await ids(searchOf(bob.id, "name", "a")), [files[4].id]);
      await upgraded.close();

      const raw = patient(await Deno.openKv(path));
      assert.deepEqual(await indexKeys(raw), want, "the keys a write makes, no more");
      for (const key of [["meta", "search_backfill"], ["meta", "search_backfill_6"]]) {
        assert.equal((await raw.get(key)).value, null, "the cursors are gone");
      }
      const old = await Array.fromAsync(raw.list({ prefix: ["file_sfx"] }));
      assert.deepEqual(old, [], "schema 5's keys are gone");
      raw.close();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("kv search index: a query at an odd or even position, at the edge of the suffixes kept, or in a recurring suffix", async () => {
  const store = await openKvStore(":memory:");
  try {
    const user = await storedUser(store);
    const edge = `${"x".repeat(47)}ab${"y".repeat(10)}`; // "ab" at 47: odd, its tail at 48
    const files = [
      fileRecord(user.id, { name: "abcdef.txt" }),
      fileRecord(user.id, { name: "xabcde.txt" }),
      fileRecord(user.id, { name: "zQzQzR.txt" }),
      fileRecord(user.id, { name: "qzqzrz.txt" }),
      fileRecord(user.id, { name: edge }),
      fileRecord(user.id, { name: "😀😁😂😃.bin" }),
      // The suffixes at 0, 2, … 8 cut to 16 are one key, after "" and after "d".
      fileRecord(user.id, { name: `${"cd".repeat(12)}.x` }),
    ];
    for (const f of files) await store.files.create(f, NO_LIMITS);
    const ids = async (query: string) =>
      (await store.files.list(searchOf(user.id, "name", query))).files.map((f) => f.id).sort();
    const of = (...i: number[]) => i.map((n) => files[n].id).sort();
    assert.deepEqual(await ids("ab"), of(0, 1, 4));
    assert.deepEqual(await ids("BCD"), of(0, 1));
    assert.deepEqual(await ids("cde.t"), of(1));
    assert.deepEqual(await ids("qzr"), of(2, 3));
    assert.deepEqual(await ids("zqzr"), of(2, 3));
    assert.deepEqual(await ids("DCDC"), of(6));
    assert.deepEqual(await ids("cdcd"), of(6));
    assert.deepEqual(await ids("xab"), of(1, 4));
    assert.deepEqual(await ids("by"), of(4));
    assert.deepEqual(await ids("😁😂"), of(5));
    assert.deepEqual(await ids("😂"), of(5));
    assert.deepEqual(
      await ids("\ud83d"),
      of(5),
      "a lone surrogate still finds what includes() finds",
    );
    assert.deepEqual(await ids("e"), of(0, 1));
  } finally {
    await store.close();
  }
});

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
    assert.equal(MAX_SEARCH_KEYS, 51, "half of schema 5's 99");
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
