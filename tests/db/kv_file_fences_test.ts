/**
 * The fences of the files list's index on Deno KV (`db/kv/file_fences.ts`,
 * schema 15): deep pages in every order but newest first, both ways, in
 * every scope, against an in-memory sort of the same files through imports,
 * uploads (before and after their build), renames, favourites, views,
 * moves, deletes and bulk deletes, before and after splits (small sizes
 * forced by the split's parameters, fences and their groups); writes into
 * one block while it splits; schema 14 → 15 (also after a stopped fill);
 * schema 21 → 22, the groups of fences (also after a stopped fill); the
 * recount setting a fence's or a group's count made wrong by hand right;
 * runs of new entries in key order cutting blocks of their own as they are
 * written.
 */
import assert from "node:assert/strict";
import { FILE_SORT_KEYS, type FileQuery, queryFiles } from "../../db/files.ts";
import { countOf } from "../../db/kv/file_blocks.ts";
import {
  applyFences,
  blockSize,
  FENCE_KEYS,
  fenceBase,
  FENCES,
  FenceSums,
  fillFences,
  splitFences,
} from "../../db/kv/file_fences.ts";
import { compareTails } from "../../db/kv/file_fence_keys.ts";
import {
  fillFenceGroups,
  groupBase,
  groupFences,
  readGroups,
} from "../../db/kv/file_fence_groups.ts";
import { pageIds } from "../../db/kv/file_index.ts";
import { KV_SCHEMA_VERSION, type KvStore, openKvStore } from "../../db/kv/mod.ts";
import { patient } from "../../db/kv/patient.ts";
import { storedUser } from "../helpers/stores.ts";
import { inTempStore, splitSmall, tiedFiles } from "../helpers/kv_backlog.ts";

const NO_LIMITS = { maxFiles: null, maxBytes: null };

/** Asserts deep pages of every fenced order, both ways, in every scope, are the records'. */
async function assertDeepPages(store: KvStore, userId: string) {
  const all = await store.files.listByUser(userId);
  for (const sortBy of FILE_SORT_KEYS) {
    for (const order of ["asc", "desc"] as const) {
      for (const extra of [{}, { favorite: true }, { folderId: "folder1" }]) {
        const total = queryFiles(all, { userId, offset: 0, limit: 1, sortBy, order, ...extra })
          .total;
        for (const offset of [128, 131, 150, 177, 205, total - 3, total, total + 5]) {
          if (offset < 128) continue;
          const q: FileQuery = { userId, offset, limit: 6, sortBy, order, ...extra };
          const got = (await store.files.list(q)).files.map((f) => f.id);
          assert.deepEqual(got, queryFiles(all, q).files.map((f) => f.id), JSON.stringify(q));
        }
      }
    }
  }
}

/**
 * Asserts every fence's count is the entries of its block, and every
 * group's the sum of its fences'; with `many`, that there is more than one
 * fence an index, and more than one group in some.
 */
async function assertCounts(kv: Deno.Kv, many = false) {
  let fences = 0;
  const indexes = new Map<string, Deno.KvKey>();
  for await (const { key, value } of kv.list({ prefix: FENCES })) {
    fences++;
    assert.equal(countOf(value), await blockSize(kv, key), JSON.stringify(key));
    indexes.set(JSON.stringify(key.slice(0, 4)), key.slice(0, 4));
  }
  let split = 0;
  for (const base of indexes.values()) {
    const groups = await readGroups(kv, groupBase(base));
    for (const [i, group] of groups.entries()) {
      const { fences } = await groupFences(kv, groups, i);
      const sum = fences.reduce((n, f) => n + f.count, 0);
      assert.equal(group.count, sum, JSON.stringify(group.key));
    }
    if (groups.filter((g) => g.key.length > 5).length > 0) split++;
  }
  if (many) {
    assert.ok(fences > 3 * FENCE_KEYS.length, `${fences} fences`);
    assert.ok(split > 0, "no index of more than one group a section");
  }
}

Deno.test("kv fences: deep pages in every order and scope through every write, before and after splits", async () => {
  await inTempStore(async (path) => {
    const store = await openKvStore(path);
    const kv = patient(await Deno.openKv(path));
    try {
      const user = await storedUser(store);
      const imported = tiedFiles(user.id, 420, "im");
      await store.files.createMany(imported);
      await assertDeepPages(store, user.id);
      await assertCounts(kv);

      await splitSmall(kv, user.id);
      await assertCounts(kv, true);
      await assertDeepPages(store, user.id);

      // Uploads: their other orders' entries wait for the build (a list builds its owner's).
      await store.backlog!.hold();
      const uploads = tiedFiles(user.id, 40, "up");
      await Promise.all(uploads.map((f) => store.files.create(f, NO_LIMITS)));
      // Writes of uploads not built yet, and of imported files in split blocks.
      const now = new Date();
      await store.files.update(uploads[0].id, { name: "renamed-upload.png" }, now);
      await store.files.update(uploads[1].id, { favorite: true }, now);
      await store.files.delete(uploads[2].id);
      for (const f of imported.slice(0, 30)) {
        await store.files.update(f.id, { name: `z${f.name}`, favorite: !f.favorite }, now);
      }
      for (const f of imported.slice(30, 40)) await store.files.addView(f.id);
      await store.files.update(imported[40].id, { folderId: "folder1" }, now);
      await store.files.update(imported[41].id, { folderId: null }, now);
      await store.files.deleteMany(imported.slice(50, 80).map((f) => f.id));
      store.backlog!.release();
      await assertDeepPages(store, user.id);
      await store.buildSearchKeys();
      await assertCounts(kv);

      await splitSmall(kv, user.id);
      await store.files.createMany(tiedFiles(user.id, 60, "again"));
      await store.files.deleteMany(imported.slice(100, 120).map((f) => f.id));
      await assertCounts(kv, true);
      await assertDeepPages(store, user.id);
    } finally {
      kv.close();
      await store.close();
    }
  });
});

Deno.test("kv fences: writes into one block while it splits keep every count right", async () => {
  await inTempStore(async (path) => {
    const store = await openKvStore(path);
    const kv = patient(await Deno.openKv(path));
    try {
      const user = await storedUser(store);
      const files = tiedFiles(user.id, 200, "c");
      await store.files.createMany(files);
      const now = new Date();
      await Promise.all([
        splitSmall(kv, user.id),
        ...files.slice(0, 40).map((f, i) =>
          store.files.update(f.id, { name: `c${i % 3}-moved-${i}`, type: `t/${i % 4}` }, now)
        ),
        store.files.deleteMany(files.slice(40, 60).map((f) => f.id)),
        splitSmall(kv, user.id),
      ]);
      await splitSmall(kv, user.id);
      await assertCounts(kv, true);
      await assertDeepPages(store, user.id);
    } finally {
      kv.close();
      await store.close();
    }
  });
});

Deno.test("kv schema 14 → 15: fences filled from the entries stored, also after a stopped fill", async () => {
  await inTempStore(async (path) => {
    let store = await openKvStore(path);
    const user = await storedUser(store);
    await store.files.createMany(tiedFiles(user.id, 220, "u"));
    await store.close();

    // As schema 14 left it: no fence.
    const kv = patient(await Deno.openKv(path));
    const drop = async () => {
      for await (const { key } of kv.list({ prefix: FENCES })) await kv.delete(key);
      await kv.delete(["meta", "file_fence_fill"]);
      await kv.delete(["meta", "file_fence_group_fill"]);
      await kv.set(["meta", "schema_version"], 14);
    };
    await drop();
    // A fill of small blocks stopped after two commits, then resumed; its state as a version
    // before the shared fill kept it (the fence open as `fence`).
    let commits = 0;
    await fillFences(kv, { piece: 16, stop: () => commits++ >= 2 });
    const state = await kv.get<{ open: unknown }>(["meta", "file_fence_fill"]);
    assert.ok(state.value !== null, "stopped half way");
    const { open, ...rest } = state.value;
    await kv.set(["meta", "file_fence_fill"], { ...rest, fence: open });
    await fillFences(kv, { piece: 16 });
    await fillFenceGroups(kv, { piece: 40 });
    await assertCounts(kv, true);
    // The upgrade on open.
    await drop();
    kv.close();
    store = await openKvStore(path);
    const raw = patient(await Deno.openKv(path));
    try {
      assert.equal(await store.schemaVersion(), KV_SCHEMA_VERSION);
      await assertCounts(raw);
      await splitSmall(raw, user.id);
      await assertDeepPages(store, user.id);
    } finally {
      raw.close();
      await store.close();
    }
  });
});

Deno.test("kv schema 21 → 22: groups of fences filled from the fences stored, also after a stopped fill", async () => {
  await inTempStore(async (path) => {
    let store = await openKvStore(path);
    const user = await storedUser(store);
    const kv = patient(await Deno.openKv(path));
    try {
      await store.files.createMany(tiedFiles(user.id, 300, "g"));
      await splitSmall(kv, user.id);
      await store.close();
      // As schema 21 left it: fences, no group.
      for (const prefix of [["file_fence_group"], ["file_fence_group_split"]]) {
        for await (const { key } of kv.list({ prefix })) await kv.delete(key);
      }
      await kv.set(["meta", "schema_version"], 21);
      // A fill stopped after two commits of 20 fences (groups of 40 entries), resumed on open.
      let commits = 0;
      await fillFenceGroups(kv, { piece: 40, page: 20, stop: () => commits++ >= 2 });
      const fill = await kv.get<{ after: Deno.KvKey }>(["meta", "file_fence_group_fill"]);
      assert.ok(fill.value && fill.value.after.length > 0, "stopped half way");
      store = await openKvStore(path);
      assert.equal(await store.schemaVersion(), KV_SCHEMA_VERSION);
      await assertCounts(kv, true);
      await assertDeepPages(store, user.id);
      // Writes after the upgrade move the groups filled.
      const more = tiedFiles(user.id, 80, "h");
      await store.files.createMany(more);
      await store.files.deleteMany(more.slice(0, 20).map((f) => f.id));
      await store.files.update(more[30].id, { name: "a-renamed.png" }, new Date());
      await assertCounts(kv, true);
      await assertDeepPages(store, user.id);
    } finally {
      kv.close();
      await store.close();
    }
  });
});

Deno.test("kv fences: a count made wrong by hand is set right by the recount's passes", async () => {
  await inTempStore(async (path) => {
    const store = await openKvStore(path);
    const kv = patient(await Deno.openKv(path));
    try {
      const user = await storedUser(store);
      await store.files.createMany(tiedFiles(user.id, 200, "r"));
      await splitSmall(kv, user.id);
      const fences =
        (await Array.fromAsync(kv.list({ prefix: [...FENCES, user.id, "all", "name"] })))
          .map((e) => e.key);
      await kv.set(fences[2], new Deno.KvU64(77n));
      await kv.delete(fences[4]);
      const groups = await readGroups(kv, groupBase(fenceBase(user.id, "all", "size")));
      assert.ok(groups.length > 2, `${groups.length} groups`);
      await kv.set(groups[1].key, new Deno.KvU64(5n));
      let repaired = 0;
      for (let done = false; !done;) {
        const pass = await store.files.recountStats(user.id, 100);
        done = pass.done;
        repaired += pass.repaired;
      }
      assert.ok(repaired >= 1, `repaired ${repaired}`);
      await assertCounts(kv, true);
      await assertDeepPages(store, user.id);
    } finally {
      kv.close();
      await store.close();
    }
  });
});

Deno.test("kv fences: a run of new entries past a block's end starts a block of its own; others are counted where they fall", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const entry = (i: number, name: string): Deno.KvKey => [
      "file_index",
      "o",
      "all",
      "name",
      0,
      name,
      `id${String(i).padStart(4, "0")}`,
    ];
    const write = async (keys: Deno.KvKey[]) => {
      const sums = new FenceSums({ at: 20, cut: 5 });
      for (const key of keys) sums.add(key, 1);
      const op = applyFences(kv.atomic(), await sums.resolve(kv));
      for (const key of keys) op.set(key, [0, "text/plain"]);
      assert.ok((await op.commit()).ok);
    };
    const keys: Deno.KvKey[] = [];
    // In key order, 10 a write (an import's runs), then 60 at random places among them.
    for (let run = 0; run < 30; run++) {
      const batch = Array.from(
        { length: 10 },
        (_, j) => entry(run * 10 + j, `n${String(run * 10 + j).padStart(4, "0")}`),
      );
      batch.sort((a, b) => compareTails(a, b));
      await write(batch);
      keys.push(...batch);
    }
    const fences = await Array.fromAsync(kv.list({ prefix: FENCES }));
    assert.ok(fences.length >= 10, `${fences.length} fences`);
    assert.equal((await Array.fromAsync(kv.list({ prefix: ["file_fence_split"] }))).length, 0);
    for (let i = 0; i < 6; i++) {
      const batch = Array.from({ length: 10 }, (_, j) => entry(1000 + i * 10 + j, `n${j * 31}x`));
      batch.sort((a, b) => compareTails(a, b));
      await write(batch);
      keys.push(...batch);
    }
    await assertCounts(kv);
    await splitFences(kv, { owner: "o", all: true, at: 20, piece: 10 });
    await assertCounts(kv);
    keys.sort((a, b) => compareTails(a, b));
    const ids = keys.map((k) => k[6] as string);
    for (const offset of [128, 200, 301, 355]) {
      const q = { userId: "o", sortBy: "name", offset, limit: 5, total: keys.length } as const;
      assert.deepEqual(
        (await pageIds(kv, { ...q, order: "asc" })).ids,
        ids.slice(offset, offset + 5),
      );
    }
  } finally {
    kv.close();
  }
});

Deno.test("kv fences: a block split by another process after the fences were read cuts nothing and does not fail", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const entry = (i: number): Deno.KvKey => [
      "file_index",
      "o",
      "all",
      "name",
      0,
      `n${String(i).padStart(4, "0")}`,
      `id${String(i).padStart(4, "0")}`,
    ];
    const sums = () => new FenceSums({ at: 20, cut: 5 });
    for (let run = 0; run < 3; run++) {
      const batch = Array.from({ length: 10 }, (_, j) => entry(run * 10 + j));
      const s = sums();
      for (const key of batch) s.add(key, 1);
      const op = applyFences(kv.atomic(), await s.resolve(kv));
      for (const key of batch) op.set(key, [0, "text/plain"]);
      assert.ok((await op.commit()).ok);
    }
    // A run past the last block's end, long enough to start a block of its own; while it is
    // resolved, another process splits that block with a fence before the run.
    const run = Array.from({ length: 15 }, (_, j) => entry(100 + j));
    const s = sums();
    for (const key of run) s.add(key, 1);
    const split: Deno.KvKey = [...FENCES, "o", "all", "name", 0, "n0050", "id0050"];
    let meddled = false;
    const meddling = new Proxy(kv, {
      get(target, prop) {
        if (prop !== "list") {
          const value = Reflect.get(target, prop);
          return typeof value === "function" ? value.bind(target) : value;
        }
        return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
          // The read of the block's end: from just past its fence to the next nulls group.
          const start = "start" in selector ? selector.start : undefined;
          const end = "end" in selector ? selector.end : undefined;
          if (
            !meddled && start?.[0] === FENCES[0] && start.at(-1) === "" &&
            typeof end?.at(-1) === "number"
          ) {
            meddled = true;
            return (async function* () {
              await target.set(split, new Deno.KvU64(0n));
              yield* target.list(selector, options);
            })();
          }
          return target.list(selector, options);
        };
      },
    });
    const resolved = await s.resolve(meddling);
    assert.ok(meddled, "the split came between the reads");
    assert.deepEqual(resolved.cuts, [], "nothing cut from a stale read");
  } finally {
    kv.close();
  }
});
