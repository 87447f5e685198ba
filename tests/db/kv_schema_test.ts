/**
 * Deno KV schema upgrades (`db/kv/mod.ts`): a database written by schema 1,
 * whose file-to-tag links were one key each (`["file_tag", fileId, tagId]`),
 * opens under schema 2 with every link in its file's list, nothing of the old
 * keys left, also when an earlier upgrade stopped half way; under schema 3
 * the files already stored are counted into their owners' statistics; under
 * schema 4 they are indexed for the files list (`db/kv/file_index.ts`) and
 * the URLs are given their place in their owner's oldest-first order; under
 * schema 7 they get the cleaning tasks' index (`db/kv/file_tasks.ts`); under
 * schema 20 the viewed ones get the most viewed files' index
 * (`db/kv/file_views.ts`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type FileLimits,
  type FileQuery,
  type FileRecord,
  mostViewedOf,
  queryFiles,
} from "../../db/files.ts";
import { IndexChange } from "../../db/kv/file_index.ts";
import { TASK_INDEX, taskKeys } from "../../db/kv/file_tasks.ts";
import { viewedKey } from "../../db/kv/file_views.ts";
import { KV_SCHEMA_VERSION, type KvStore, openKvStore } from "../../db/kv/mod.ts";
import type { TagRecord } from "../../db/tags.ts";
import type { UrlRecord } from "../../db/urls.ts";
import { fileRecord, storedUser, urlRecord } from "../helpers/stores.ts";

const NO_LIMITS: FileLimits = { maxBytes: null, maxFiles: null };

function tag(userId: string, name: string, at: number): TagRecord {
  const date = new Date(Date.UTC(2026, 0, 1, 0, 0, at));
  return {
    id: crypto.randomUUID(),
    name,
    color: "#123456",
    userId,
    createdAt: date,
    updatedAt: date,
  };
}

Deno.test("kv schema 1 → 2: a file's tag links become its list, the old keys go", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ferry-kv-schema-" });
  const path = join(dir, "ferry.kv");
  try {
    const store = await openKvStore(path);
    const user = await storedUser(store);
    const [red, green, blue] = ["red", "green", "blue"].map((name, i) => tag(user.id, name, i));
    for (const t of [red, green, blue]) await store.tags.create(t);
    const both = fileRecord(user.id);
    const half = fileRecord(user.id);
    const none = fileRecord(user.id);
    for (const file of [both, half, none]) await store.files.create(file, NO_LIMITS);
    await store.close();

    // What schema 1 wrote; `half` as an upgrade stopped after writing its list left it.
    const kv = await Deno.openKv(path);
    await kv.set(["meta", "schema_version"], 1);
    const old = (fileId: string, tagId: string) =>
      kv.atomic().set(["file_tag", fileId, tagId], true).set(["tag_file", tagId, fileId], true)
        .commit();
    await old(both.id, green.id);
    await old(both.id, red.id);
    await old(half.id, blue.id);
    await kv.set(["file_tag_ids", half.id], [red.id]);
    await kv.set(["tag_file", red.id, half.id], true);
    kv.close();

    const upgraded = await openKvStore(path);
    assert.equal(await upgraded.schemaVersion(), KV_SCHEMA_VERSION);
    const tags = await upgraded.tags.tagsOfFiles([both.id, half.id, none.id]);
    assert.deepEqual(tags.get(both.id)?.map((t) => t.name), ["red", "green"]);
    assert.deepEqual(tags.get(half.id)?.map((t) => t.name), ["red", "blue"]);
    assert.equal(tags.has(none.id), false);

    await upgraded.tags.setFileTags(both.id, [blue.id]);
    await upgraded.tags.delete(red.id);
    const after = await upgraded.tags.tagsOfFiles([both.id, half.id]);
    assert.deepEqual(after.get(both.id)?.map((t) => t.name), ["blue"]);
    assert.deepEqual(after.get(half.id)?.map((t) => t.name), ["blue"]);
    await upgraded.close();

    const raw = await Deno.openKv(path);
    const left = await Array.fromAsync(raw.list({ prefix: ["file_tag"] }));
    raw.close();
    assert.deepEqual(left, [], "no schema 1 link is left");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kv schema 2 → 3: the files stored are counted into their owners' statistics, once, also when an upgrade stopped half way", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ferry-kv-schema-" });
  const path = join(dir, "ferry.kv");
  try {
    const store = await openKvStore(path);
    const [ann, bob] = [await storedUser(store), await storedUser(store)];
    const files = [
      fileRecord(ann.id, { type: "image/png", size: 10, views: 2, favorite: true }),
      fileRecord(ann.id, { type: "image/png", size: 20 }),
      fileRecord(ann.id, { type: "text/plain", size: 5, views: 1 }),
      fileRecord(bob.id, { type: "text/plain", size: 7 }),
      fileRecord(ann.id, { type: "video/mp4", size: 0, pending: true }),
      fileRecord(null, { type: "text/plain", size: 3 }),
    ];
    await store.files.createMany(files);
    const want = await Promise.all([ann.id, bob.id, null].map((id) => store.files.stats(id)));
    await store.close();

    // Schema 2 kept no counters; an upgrade stopped after its first page had counted one copy.
    const kv = await Deno.openKv(path);
    await kv.set(["meta", "schema_version"], 2);
    for await (const { key } of kv.list({ prefix: ["file_stats"] })) await kv.delete(key);
    const [first] = await Array.fromAsync(kv.list<FileRecord>({ prefix: ["file_by_user"] }, {
      limit: 1,
    }));
    const owner = first.value.userId ?? "";
    await kv.atomic()
      .set(["file_stats", owner, "files"], new Deno.KvU64(first.value.pending ? 0n : 1n))
      .set(["file_stats", owner, "bytes"], new Deno.KvU64(BigInt(first.value.size)))
      .set(["file_stats", owner, "views"], new Deno.KvU64(BigInt(first.value.views)))
      .set(["file_stats", owner, "favorites"], new Deno.KvU64(first.value.favorite ? 1n : 0n))
      .set(["file_stats", owner, "type", first.value.type], new Deno.KvU64(1n))
      .set(["meta", "file_stats_backfill"], first.key)
      .commit();
    kv.close();

    const upgraded = await openKvStore(path);
    assert.equal(await upgraded.schemaVersion(), KV_SCHEMA_VERSION);
    const got = await Promise.all([ann.id, bob.id, null].map((id) => upgraded.files.stats(id)));
    assert.deepEqual(got, want);
    assert.equal(got[0].files, 3);
    await upgraded.close();
    const again = await openKvStore(path);
    assert.deepEqual(await again.files.stats(ann.id), want[0], "opened again: counted once");
    await again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kv schema 3 → 4: the files stored are indexed for the files list, once, also when an upgrade stopped half way", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ferry-kv-schema-" });
  const path = join(dir, "ferry.kv");
  try {
    const store = await openKvStore(path);
    const [ann, bob] = [await storedUser(store), await storedUser(store)];
    const folder = crypto.randomUUID();
    // More files than one page of the upgrade, of every kind the index tells apart.
    const files = Array.from({ length: 47 }, (_, i) =>
      fileRecord(i % 9 === 0 ? bob.id : ann.id, {
        size: i % 4,
        favorite: i % 3 === 0,
        folderId: i % 5 === 0 ? folder : null,
        private: i % 7 === 0,
        pending: i === 11,
        originalName: i % 2 ? `o${i % 6}` : null,
      }));
    files.push(fileRecord(null, { size: 3 }));
    await store.files.createMany(files);
    const urls = Array.from({ length: 60 }, (_, i) => urlRecord(ann.id, `u${i}`));
    await store.urls.createMany(urls);
    await store.close();

    // Schema 3 kept no index; an upgrade stopped after indexing the first record.
    const kv = await Deno.openKv(path);
    await kv.set(["meta", "schema_version"], 3);
    for (const prefix of [["file_index"], ["file_index_n"], ["url_by_user_at"]]) {
      for await (const { key } of kv.list({ prefix })) await kv.delete(key);
    }
    const [first] = await Array.fromAsync(kv.list<FileRecord>({ prefix: ["file"] }, { limit: 1 }));
    const index = await new IndexChange().file(null, first.value).prepare(kv);
    await index.apply(kv.atomic()).set(["meta", "file_index_backfill"], first.key).commit();
    kv.close();

    const expect = async (s: KvStore, what: string) => {
      for (const user of [ann, bob]) {
        const all = await s.files.listByUser(user.id);
        for (const sortBy of ["createdAt", "size", "originalName"] as const) {
          for (const order of ["asc", "desc"] as const) {
            for (const filter of [{}, { favorite: true }, { folderId: folder, private: false }]) {
              const q: FileQuery = {
                userId: user.id,
                sortBy,
                order,
                offset: 2,
                limit: 20,
                ...filter,
              };
              assert.deepEqual(await s.files.list(q), queryFiles(all, q), what);
            }
          }
        }
      }
    };
    const upgraded = await openKvStore(path);
    assert.equal(await upgraded.schemaVersion(), KV_SCHEMA_VERSION);
    await expect(upgraded, "upgraded");
    const page = await upgraded.urls.pageByUser(ann.id, 55, 10);
    assert.deepEqual(page.urls.map((u) => u.id), urls.slice(55).map((u) => u.id));
    assert.equal(page.total, 60);
    await upgraded.close();
    const again = await openKvStore(path);
    await expect(again, "opened again: indexed once");
    await again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kv schema 6 → 7: the files stored get the cleaning tasks' index, once, also when an upgrade stopped half way", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ferry-kv-schema-" });
  const path = join(dir, "ferry.kv");
  try {
    const store = await openKvStore(path);
    const ann = await storedUser(store);
    const at = new Date(Date.UTC(2026, 0, 2));
    const files = Array.from({ length: 250 }, (_, i) =>
      fileRecord(i % 10 === 9 ? null : ann.id, {
        deletesAt: i % 3 === 0 ? at : null,
        maxViews: i % 4 === 0 ? 1 : null,
        views: i % 8 === 0 ? 1 : 0,
        pending: i % 25 === 0,
        updatedAt: at,
        thumbnail: i % 5 === 0 ? `.thumbnail.${i}.jpg` : null,
      }));
    await store.files.createMany(files);
    const want = await taskIndexOf(path);
    assert.ok(want.length > 100, `${want.length} keys`);
    // Schema 6 kept no such index; an upgrade stopped after its first page.
    const kv = await Deno.openKv(path);
    await kv.set(["meta", "schema_version"], 6);
    for await (const { key } of kv.list({ prefix: TASK_INDEX })) await kv.delete(key);
    const page = await Array.fromAsync(kv.list<FileRecord>({ prefix: ["file"] }, { limit: 90 }));
    const op = kv.atomic();
    for (const e of page) for (const key of taskKeys(e.value)) op.set(key, true);
    await op.set(["meta", "file_task_backfill"], page.at(-1)!.key).commit();
    kv.close();
    await store.close();

    const upgraded = await openKvStore(path);
    assert.equal(await upgraded.schemaVersion(), KV_SCHEMA_VERSION);
    const by = new Date(at.getTime() + 1);
    const expired = await upgraded.files.candidates({ kind: "expired", by }, 1000);
    assert.deepEqual(
      expired.map((f) => f.id).sort(),
      files.filter((f) => !f.pending && f.deletesAt).map((f) => f.id).sort(),
    );
    await upgraded.close();
    assert.deepEqual(await taskIndexOf(path), want);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kv schema 19 → 20: the viewed files get the most viewed index, once, also when an upgrade stopped half way", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ferry-kv-schema-" });
  const path = join(dir, "ferry.kv");
  try {
    const store = await openKvStore(path);
    const ann = await storedUser(store);
    const files = Array.from({ length: 250 }, (_, i) =>
      fileRecord(i % 10 === 9 ? null : ann.id, {
        name: `f${i}.txt`,
        views: i % 3 === 0 ? 0 : i % 7,
        pending: i % 25 === 0,
      }));
    await store.files.createMany(files);
    const want = await keysOf(path, ["file_viewed"]);
    assert.ok(want.length > 100, `${want.length} keys`);
    // Schema 19 kept no such index; an upgrade stopped after its first page.
    const kv = await Deno.openKv(path);
    await kv.set(["meta", "schema_version"], 19);
    for await (const { key } of kv.list({ prefix: ["file_viewed"] })) await kv.delete(key);
    const page = await Array.fromAsync(kv.list<FileRecord>({ prefix: ["file"] }, { limit: 90 }));
    const op = kv.atomic();
    for (const e of page) {
      const key = viewedKey(e.value);
      if (key) op.set(key, true);
    }
    await op.set(["meta", "file_viewed_backfill"], page.at(-1)!.key).commit();
    kv.close();
    await store.close();

    const upgraded = await openKvStore(path);
    assert.equal(await upgraded.schemaVersion(), KV_SCHEMA_VERSION);
    const top = await upgraded.files.mostViewed(100);
    assert.deepEqual(top, mostViewedOf(files, 100));
    await upgraded.close();
    assert.deepEqual(await keysOf(path, ["file_viewed"]), want);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Every key under `prefix` in the database at `path`. */
async function keysOf(path: string, prefix: Deno.KvKey): Promise<Deno.KvKey[]> {
  const kv = await Deno.openKv(path);
  try {
    return (await Array.fromAsync(kv.list({ prefix }))).map((e) => e.key);
  } finally {
    kv.close();
  }
}

/** Every key of the cleaning tasks' index in the database at `path`. */
async function taskIndexOf(path: string): Promise<Deno.KvKey[]> {
  const kv = await Deno.openKv(path);
  try {
    return (await Array.fromAsync(kv.list({ prefix: TASK_INDEX }))).map((e) => e.key);
  } finally {
    kv.close();
  }
}

Deno.test("kv schema 8 → 9: the URLs with a view limit are listed, once, also when an upgrade stopped half way", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ferry-kv-schema-" });
  const path = join(dir, "ferry.kv");
  try {
    const store = await openKvStore(path);
    const ann = await storedUser(store);
    // More URLs than one page of the upgrade; every third limited, every sixth at its limit.
    const urls = Array.from({ length: 130 }, (_, i) =>
      urlRecord(ann.id, `u${i}`, {
        maxViews: i % 3 === 0 ? 2 : null,
        views: i % 6 === 0 ? 2 : 1,
      }));
    await store.urls.createMany(urls);
    await store.close();

    // Schema 8 kept no such list; an upgrade stopped after its first page.
    const kv = await Deno.openKv(path);
    await kv.set(["meta", "schema_version"], 8);
    for await (const { key } of kv.list({ prefix: ["url_limited"] })) await kv.delete(key);
    const page = await Array.fromAsync(kv.list<UrlRecord>({ prefix: ["url"] }, { limit: 50 }));
    const op = kv.atomic();
    for (const { value } of page) {
      if (value.maxViews !== null) op.set(["url_limited", value.id], true);
    }
    await op.set(["meta", "url_limit_backfill"], page.at(-1)!.key).commit();
    kv.close();

    const limited = async () => {
      const kv = await Deno.openKv(path);
      try {
        return (await Array.fromAsync(kv.list({ prefix: ["url_limited"] }))).map((e) => e.key[1]);
      } finally {
        kv.close();
      }
    };
    const upgraded = await openKvStore(path);
    assert.equal(await upgraded.schemaVersion(), KV_SCHEMA_VERSION);
    assert.deepEqual(
      (await upgraded.urls.exhausted(1000)).map((u) => u.code).sort(),
      urls.filter((_, i) => i % 6 === 0).map((u) => u.code).sort(),
    );
    await upgraded.close();
    assert.deepEqual(
      (await limited()).sort(),
      urls.filter((u) => u.maxViews !== null).map((u) => u.id).sort(),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
