/**
 * The block counts of the files list's index on Deno KV
 * (`db/kv/file_blocks.ts`, schema 10): made wrong by hand, the recount task's
 * passes (`KvFiles.recountStats`) set them right; a store written at schema
 * 9 gets them on open, each file counted once, also when an upgrade stopped
 * half way. Their pages against every write are in
 * `tests/contract/file_list_test.ts`.
 */
import assert from "node:assert/strict";
import { type FileQuery, type FileRecord, queryFiles } from "../../db/files.ts";
import { blockKeys, countOf } from "../../db/kv/file_blocks.ts";
import { IndexChange } from "../../db/kv/file_index.ts";
import { KV_SCHEMA_VERSION, type KvStore, openKvStore } from "../../db/kv/mod.ts";
import { patient } from "../../db/kv/patient.ts";
import { fileRecord, storedUser } from "../helpers/stores.ts";
import { inTempStore } from "../helpers/kv_backlog.ts";

/** 700 files of `userId`: a second apart, then a tie of 300 at one instant; some favourites. */
function files(userId: string): FileRecord[] {
  const start = Date.UTC(2026, 4, 1);
  return Array.from({ length: 700 }, (_, i) => {
    const at = new Date(i < 400 ? start + i * 1000 : start + 500_000);
    const id = `c${i % 7}${i % 3}bbbbb${String(i).padStart(6, "0")}${crypto.randomUUID()}`;
    return fileRecord(userId, {
      id: id.slice(0, 25),
      favorite: i % 4 === 0,
      createdAt: at,
      updatedAt: at,
    });
  });
}

/** The block counts stored (those not 0), and those the index entries give. */
async function counts(
  path: string,
): Promise<{ stored: Map<string, number>; want: Map<string, number> }> {
  const kv = patient(await Deno.openKv(path));
  try {
    const stored = new Map<string, number>();
    for await (const { key, value } of kv.list({ prefix: ["file_blocks"] })) {
      if (countOf(value) !== 0) stored.set(JSON.stringify(key), countOf(value));
    }
    const want = new Map<string, number>();
    for await (const { key } of kv.list({ prefix: ["file_index"] })) {
      for (const block of blockKeys(key)) {
        const id = JSON.stringify(block);
        want.set(id, (want.get(id) ?? 0) + 1);
      }
    }
    return { stored, want };
  } finally {
    kv.close();
  }
}

/** Asserts deep pages of the newest and oldest first, all and favourites, are the records'. */
async function assertPages(store: KvStore, userId: string) {
  const all = await store.files.listByUser(userId);
  for (const favorite of [undefined, true]) {
    for (const order of ["asc", "desc"] as const) {
      for (const offset of [130, 399, 401, 555, 690]) {
        const q: FileQuery = { userId, sortBy: "createdAt", order, offset, limit: 9, favorite };
        const got = (await store.files.list(q)).files.map((f) => f.id);
        assert.deepEqual(got, queryFiles(all, q).files.map((f) => f.id), JSON.stringify(q));
      }
    }
  }
}

Deno.test("kv block counts: made wrong by hand, the recount's passes set them right", async () => {
  await inTempStore(async (path) => {
    let store = await openKvStore(path);
    const ann = await storedUser(store);
    await store.files.createMany(files(ann.id));
    await store.close();
    const right = await counts(path);
    assert.deepEqual(right.stored, right.want, "kept with the writes");

    // Spoilt: a count too high, one gone, one for a block that holds nothing.
    const kv = patient(await Deno.openKv(path));
    const keys = [...right.stored.keys()].map((k) => JSON.parse(k) as Deno.KvKey);
    // The first 65 s of the oldest: its files, then the rest, are where a deep page looks.
    const top = keys.find((k) => k[2] === "all" && k[4] === 5)!;
    await kv.set(top, new Deno.KvU64(999n));
    await kv.delete(keys.find((k) => k[2] === "fav" && k[4] === 9)!);
    await kv.set([...top.slice(0, 4), 2, 0, 12345], new Deno.KvU64(40n));
    kv.close();

    store = await openKvStore(path);
    try {
      const all = await store.files.listByUser(ann.id);
      const q: FileQuery = {
        userId: ann.id,
        sortBy: "createdAt",
        order: "asc",
        offset: 300,
        limit: 5,
      };
      assert.notDeepEqual(
        (await store.files.list(q)).files.map((f) => f.id),
        queryFiles(all, q).files.map((f) => f.id),
        "the pages read the counts",
      );
      let passes = 0;
      let repaired = 0;
      for (let done = false; !done; passes++) {
        const pass = await store.files.recountStats(ann.id, 100);
        done = pass.done;
        repaired += pass.repaired;
      }
      assert.ok(repaired >= 3, `repaired ${repaired}`);
      assert.ok(passes > 1, "in passes");
      await assertPages(store, ann.id);
    } finally {
      await store.close();
    }
    const repairedCounts = await counts(path);
    assert.deepEqual(repairedCounts.stored, repairedCounts.want);
  });
});

Deno.test("kv schema 9 → 10: the files stored get their block counts, once, also after a stopped upgrade", async () => {
  await inTempStore(async (path) => {
    const store = await openKvStore(path);
    const ann = await storedUser(store);
    await store.files.createMany(files(ann.id));
    await store.close();

    // Schema 9 kept no block counts; an upgrade stopped after its first page of records.
    const kv = patient(await Deno.openKv(path));
    for await (const { key } of kv.list({ prefix: ["file_blocks"] })) await kv.delete(key);
    await kv.set(["meta", "schema_version"], 9);
    const page = await Array.fromAsync(kv.list<FileRecord>({ prefix: ["file"] }, { limit: 25 }));
    const change = new IndexChange();
    for (const { value } of page) {
      for (
        const { key } of (await Array.fromAsync(kv.list({ prefix: ["file_index", ann.id] })))
          .filter((e) => e.key.at(-1) === value.id)
      ) {
        change.block(key);
      }
    }
    await change.apply(kv.atomic()).set(["meta", "file_blocks_backfill"], page.at(-1)!.key)
      .commit();
    kv.close();

    const upgraded = await openKvStore(path);
    try {
      assert.equal(await upgraded.schemaVersion(), KV_SCHEMA_VERSION);
      await assertPages(upgraded, ann.id);
    } finally {
      await upgraded.close();
    }
    const after = await counts(path);
    assert.deepEqual(after.stored, after.want);
  });
});
