/**
 * A tag's scope of the files list's index on Deno KV (`tag:<id>`,
 * `db/kv/file_index.ts`, kept by `db/kv/tags.ts`, schema 19): one tag's
 * pages in every order, both ways, first and deep (blocks and fences, small
 * splits forced), with a type filter, against an in-memory sort of the
 * tag's records, through tags added and removed (many at once: in steps),
 * renames, views, resizes, favourites, moves, uploads tagged before their
 * build, deletes single and bulk (a file of many tags too), a tag's deletion
 * (its scope's keys gone), an import with tags in a transaction; and the
 * upgrade from schema 18, also resumed after a stop. A tag with favourites,
 * a folder or more tags (`db/kv/tag_filter.ts`) through the same writes.
 */
import assert from "node:assert/strict";
import { FILE_SORT_KEYS, type FileQuery, queryFiles } from "../../db/files.ts";
import { countOf } from "../../db/kv/file_blocks.ts";
import { blockSize, FENCES } from "../../db/kv/file_fences.ts";
import { KV_SCHEMA_VERSION, type KvStore, openKvStore } from "../../db/kv/mod.ts";
import { patient } from "../../db/kv/patient.ts";
import { TAGS_A_STEP } from "../../db/kv/tags.ts";
import type { TagRecord } from "../../db/tags.ts";
import { storedUser } from "../helpers/stores.ts";
import { inTempStore, splitSmall, tiedFiles } from "../helpers/kv_backlog.ts";

const NO_LIMITS = { maxFiles: null, maxBytes: null };

/** A tag of `userId`. */
function tag(userId: string, name: string): TagRecord {
  const at = new Date();
  return { id: crypto.randomUUID(), name, color: "#123456", userId, createdAt: at, updatedAt: at };
}

/** Asserts `tagId`'s pages of every order, both ways, are its records' sorted in memory. */
async function assertTagPages(store: KvStore, userId: string, tagId: string) {
  const all = await store.files.listByUser(userId);
  const ids = (await store.tags.filesOfTags([tagId])).get(tagId) ?? [];
  for (const sortBy of FILE_SORT_KEYS) {
    for (const order of ["asc", "desc"] as const) {
      for (const extra of [{}, { typePrefixes: ["image/"] }]) {
        const base = { userId, sortBy, order, ...extra };
        const total = queryFiles(all, { ...base, offset: 0, limit: 1, ids }).total;
        for (const offset of [0, 7, 128, 131, 150, total - 3, total, total + 5]) {
          if (offset < 0) continue;
          const q: FileQuery = { ...base, offset, limit: 6 };
          const got = await store.files.list({ ...q, tagIds: [tagId] });
          const want = queryFiles(all, { ...q, ids });
          const label = JSON.stringify({ ...q, tagId });
          assert.deepEqual(got.files.map((f) => f.id), want.files.map((f) => f.id), label);
          assert.equal(got.total, want.total, label);
        }
      }
    }
  }
}

/**
 * Asserts the pages of `tagIds` with each other filter the API combines
 * (`db/kv/tag_filter.ts`: scopes merged or looked up), every order, both
 * ways, across the whole result, are the records' sorted in memory.
 */
async function assertCombinedPages(store: KvStore, userId: string, tagIds: string[]) {
  const all = await store.files.listByUser(userId);
  const held = await store.tags.filesOfTags(tagIds);
  const ids = all.map((f) => f.id).filter((id) => tagIds.every((t) => held.get(t)?.includes(id)));
  const filters: Partial<FileQuery>[] = [
    {},
    { favorite: true },
    { favorite: false, typePrefixes: ["image/", "text/"] },
    { folderId: "folder1" },
    { folderId: "folder1", favorite: true },
  ];
  for (const sortBy of FILE_SORT_KEYS) {
    for (const order of ["asc", "desc"] as const) {
      for (const filter of filters) {
        const base = { userId, sortBy, order, ...filter };
        const total = queryFiles(all, { ...base, offset: 0, limit: 1, ids }).total;
        for (let offset = 0; offset <= total; offset += 9) {
          const q: FileQuery = { ...base, offset, limit: 9 };
          const got = await store.files.list({ ...q, tagIds });
          const want = queryFiles(all, { ...q, ids });
          const label = JSON.stringify({ ...q, tagIds });
          assert.deepEqual(got.files.map((f) => f.id), want.files.map((f) => f.id), label);
          assert.equal(got.total, want.total, label);
        }
      }
    }
  }
}

/** Asserts every fence's count is the entries of its block. */
async function assertFences(kv: Deno.Kv) {
  for await (const { key, value } of kv.list({ prefix: FENCES })) {
    assert.equal(countOf(value), await blockSize(kv, key), JSON.stringify(key));
  }
}

/** Every key of the list index's scope of `tagId` (entries, counts, blocks, fences). */
async function scopeKeys(kv: Deno.Kv, userId: string, tagId: string): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  for (const first of ["file_index", "file_index_n", "file_blocks", "file_fence"]) {
    for await (const e of kv.list({ prefix: [first, userId, `tag:${tagId}`] })) keys.push(e.key);
    const count = await kv.get([first, userId, `tag:${tagId}`]);
    if (count.value !== null) keys.push(count.key);
  }
  return keys;
}

Deno.test("kv tag scope: a tag's pages in every order through every write", async () => {
  await inTempStore(async (path) => {
    const store = await openKvStore(path);
    const kv = patient(await Deno.openKv(path));
    try {
      const user = await storedUser(store);
      const [t1, t2, t3] = [tag(user.id, "one"), tag(user.id, "two"), tag(user.id, "three")];
      for (const t of [t1, t2, t3]) await store.tags.create(t);
      const files = tiedFiles(user.id, 400, "f");
      await store.files.createMany(files);
      // t1 on 2 of 3 files, t2 on every 5th too, t3 on a few.
      for (const [i, f] of files.entries()) {
        const tags = [
          ...(i % 3 ? [t1.id] : []),
          ...(i % 5 === 0 ? [t2.id] : []),
          ...(i % 40 === 0 ? [t3.id] : []),
        ];
        if (tags.length > 0) await store.tags.setFileTags(f.id, tags);
      }
      await assertTagPages(store, user.id, t1.id);
      await assertTagPages(store, user.id, t2.id);
      // A small tag with a large scope (looked up), tags of near sizes (merged).
      for (const tagIds of [[t3.id], [t2.id], [t1.id, t3.id], [t1.id, t2.id, t3.id]]) {
        await assertCombinedPages(store, user.id, tagIds);
      }
      await splitSmall(kv, user.id);
      await assertFences(kv);
      await assertTagPages(store, user.id, t1.id);

      // Writes that move sort keys, favourites, folders; tags added and removed.
      const now = new Date();
      for (const f of files.slice(0, 30)) {
        await store.files.update(f.id, { name: `z${f.name}`, favorite: !f.favorite }, now);
      }
      for (const f of files.slice(30, 45)) await store.files.addView(f.id);
      for (const f of files.slice(45, 55)) await store.files.resize(f.id, 99, now);
      await store.files.update(files[55].id, { folderId: "folder1", type: "image/gif" }, now);
      for (const f of files.slice(60, 90)) await store.tags.setFileTags(f.id, [t2.id]);
      for (const f of files.slice(90, 100)) await store.tags.setFileTags(f.id, []);
      // Uploads tagged before their other orders are built, then written again.
      await store.backlog!.hold();
      const uploads = tiedFiles(user.id, 20, "up");
      await Promise.all(uploads.map((f) => store.files.create(f, NO_LIMITS)));
      for (const f of uploads) await store.tags.setFileTags(f.id, [t1.id]);
      await store.files.update(uploads[0].id, { name: "renamed-upload.png" }, now);
      await store.files.addView(uploads[1].id);
      await store.files.delete(uploads[2].id);
      // Their favourites' and folder's entries of the other orders wait for the build.
      await assertCombinedPages(store, user.id, [t1.id]);
      // Deletes, single and bulk; a file of many tags.
      const many = Array.from({ length: 2 * TAGS_A_STEP + 3 }, (_, i) => tag(user.id, `m${i}`));
      for (const t of many) await store.tags.create(t);
      await store.tags.setFileTags(files[101].id, [t1.id, ...many.map((t) => t.id)]);
      assert.equal((await store.tags.tagsOfFiles([files[101].id])).get(files[101].id)?.length, 20);
      await assertTagPages(store, user.id, many[5].id);
      await store.files.delete(files[100].id);
      await store.files.deleteMany(files.slice(101, 140).map((f) => f.id));
      store.backlog!.release();
      await store.buildSearchKeys();
      await assertTagPages(store, user.id, t1.id);
      await assertTagPages(store, user.id, t2.id);
      for (const tagIds of [[t3.id], [t2.id], [t1.id, t3.id], [t2.id, t1.id]]) {
        await assertCombinedPages(store, user.id, tagIds);
      }
      await assertFences(kv);
      for (const t of many) {
        const left = await Array.fromAsync(
          kv.list({ prefix: ["file_index", user.id, `tag:${t.id}`] }),
        );
        assert.deepEqual(left, [], t.name);
        assert.equal(countOf((await kv.get(["file_index_n", user.id, `tag:${t.id}`])).value), 0);
      }

      // A tag's deletion leaves none of its scope's keys; the others stay right.
      assert.ok((await scopeKeys(kv, user.id, t2.id)).length > 0);
      await store.tags.delete(t2.id);
      assert.deepEqual(await scopeKeys(kv, user.id, t2.id), []);
      assert.equal(
        (await store.files.list({
          userId: user.id,
          offset: 0,
          limit: 5,
          sortBy: "name",
          order: "asc",
          tagIds: [t2.id],
        })).total,
        0,
      );
      await splitSmall(kv, user.id);
      await assertFences(kv);
      await assertTagPages(store, user.id, t1.id);
      await assertTagPages(store, user.id, t3.id);
    } finally {
      kv.close();
      await store.close();
    }
  });
});

Deno.test("kv tag scope: an import's files tagged in its transaction", async () => {
  const store = await openKvStore(":memory:");
  try {
    const user = await storedUser(store);
    const t = tag(user.id, "imported");
    const files = tiedFiles(user.id, 200, "i");
    await store.transaction(async (view) => {
      await view.tags.create(t);
      await view.files.createMany(files);
      for (const f of files.filter((_, i) => i % 2)) await view.tags.setFileTags(f.id, [t.id]);
    });
    await assertTagPages(store, user.id, t.id);
    // An import that fails leaves no entry in the scope.
    const u = tag(user.id, "undone");
    await assert.rejects(store.transaction(async (view) => {
      await view.tags.create(u);
      for (const f of files.slice(0, 50)) await view.tags.setFileTags(f.id, [t.id, u.id]);
      throw new Error("stop");
    }));
    assert.equal(
      (await store.files.list({
        userId: user.id,
        offset: 0,
        limit: 5,
        sortBy: "size",
        order: "desc",
        tagIds: [u.id],
      })).total,
      0,
    );
    await assertTagPages(store, user.id, t.id);
  } finally {
    await store.close();
  }
});

/** The first key parts of a tag scope's keys in the list index (with the fences' groups, schema 22). */
const TAG_SCOPE_PREFIXES = [
  "file_index",
  "file_blocks",
  "file_fence",
  "file_fence_split",
  "file_fence_group",
  "file_fence_group_split",
];

Deno.test("kv schema 18 → 19: tags' scopes filled from the links stored, also after a stop", async () => {
  await inTempStore(async (path) => {
    let store = await openKvStore(path);
    const user = await storedUser(store);
    const [t1, t2] = [tag(user.id, "one"), tag(user.id, "two")];
    for (const t of [t1, t2]) await store.tags.create(t);
    const files = tiedFiles(user.id, 300, "u");
    await store.files.createMany(files);
    for (const [i, f] of files.entries()) {
      await store.tags.setFileTags(f.id, i % 4 === 0 ? [t1.id, t2.id] : i % 2 ? [t1.id] : []);
    }
    await store.close();

    // As schema 18 left it: no tag scope; then as an upgrade stopped half way left it.
    const kv = patient(await Deno.openKv(path));
    const links = await Array.fromAsync(kv.list({ prefix: ["tag_file"] }), (e) => e.key);
    const drop = async () => {
      for (const first of TAG_SCOPE_PREFIXES) {
        for (const t of [t1, t2]) {
          for await (const { key } of kv.list({ prefix: [first, user.id, `tag:${t.id}`] })) {
            await kv.delete(key);
          }
        }
      }
      for (const t of [t1, t2]) await kv.delete(["file_index_n", user.id, `tag:${t.id}`]);
      await kv.delete(["meta", "tag_scope_backfill"]);
      await kv.set(["meta", "schema_version"], 18);
    };
    await drop();
    kv.close();
    store = await openKvStore(path);
    await assertTagPages(store, user.id, t1.id);
    await assertTagPages(store, user.id, t2.id);
    await store.close();

    // Stopped half way: t1's links done, t2's not (their cursor where t2's start; when
    // t2's sort first, none: t1's are then done again, which their entries tell).
    const raw = patient(await Deno.openKv(path));
    await (async (kv: Deno.Kv) => {
      for (const first of TAG_SCOPE_PREFIXES) {
        for await (const { key } of kv.list({ prefix: [first, user.id, `tag:${t2.id}`] })) {
          await kv.delete(key);
        }
      }
      await kv.delete(["file_index_n", user.id, `tag:${t2.id}`]);
      await kv.set(["meta", "schema_version"], 18);
      const t2First = links.findIndex((k) => k[1] === t2.id);
      const t1First = links.findIndex((k) => k[1] === t1.id);
      const cursor = t2First < t1First ? null : links[t2First - 1];
      if (cursor === null) await kv.delete(["meta", "tag_scope_backfill"]);
      else await kv.set(["meta", "tag_scope_backfill"], cursor);
    })(raw);
    raw.close();
    store = await openKvStore(path);
    const check = patient(await Deno.openKv(path));
    try {
      assert.equal(await store.schemaVersion(), KV_SCHEMA_VERSION);
      await assertTagPages(store, user.id, t1.id);
      await assertTagPages(store, user.id, t2.id);
      await splitSmall(check, user.id);
      await assertFences(check);
      await assertTagPages(store, user.id, t2.id);
    } finally {
      check.close();
      await store.close();
    }
  });
});
