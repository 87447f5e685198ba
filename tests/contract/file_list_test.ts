/**
 * The files list's pages (`FileStore.list`) against the records themselves:
 * after uploads, imports, deletes, renames, favourite, folder and private
 * changes, views, resizes, a disowned user and concurrent writes, every
 * page of every sort key, both ways, with each filter, is what the records
 * sorted in memory give (`queryFiles`, PostgreSQL's order). On Deno KV that
 * holds the index of `db/kv/file_index.ts` to every write (issue #32), and
 * its searches by type, name and original name, broad and narrow.
 */
import assert from "node:assert/strict";
import {
  FILE_SORT_KEYS,
  type FileLimits,
  type FileQuery,
  type FileRecord,
  queryFiles,
} from "../../db/files.ts";
import type { Backend } from "../../db/store.ts";
import { type ContractSteps, contractSuite, fileRecord, storedUser } from "../helpers/stores.ts";

const NO_LIMITS: FileLimits = { maxBytes: null, maxFiles: null };
const TYPES = ["image/png", "text/plain", "video/mp4", "application/pdf"];
let tick = Date.UTC(2026, 8, 1);
const later = () => new Date(tick += 1000);

/** Files of `userId` whose sort values repeat and are sometimes `null`. */
function variedFiles(userId: string, n: number, folders: string[]): FileRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const at = new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 1000);
    return fileRecord(userId, {
      name: `f${(i * 7919) % 1000}-${i}-${crypto.randomUUID().slice(0, 8)}.bin`,
      originalName: i % 4 === 0 ? null : `Orig ${i % 5}.bin`,
      size: (i * 37) % 11,
      type: TYPES[i % TYPES.length],
      views: i % 3,
      favorite: i % 5 === 0,
      private: i % 6 === 0,
      folderId: i % 4 === 1 ? folders[i % folders.length] : null,
      deletesAt: i % 3 === 0 ? new Date(Date.UTC(2027, 0, 1) + (i % 4) * 1000) : null,
      createdAt: at,
      updatedAt: at,
    });
  });
}

/**
 * Asserts every page of `userId`'s files that the filters and sort keys
 * give, as `store` lists it, equals the records sorted in memory.
 */
async function assertPages(store: Backend, userId: string, folders: string[], tagged: string[]) {
  const all = await store.files.listByUser(userId);
  const filters: Partial<FileQuery>[] = [
    {},
    { favorite: true },
    { favorite: false },
    { typePrefixes: ["image/", "text/"] },
    { favorite: true, typePrefixes: ["video/"] },
    { folderId: folders[0] },
    { folderId: folders[1], private: false },
    { folderId: folders[0], favorite: false },
    { ids: tagged },
    // Searches by type: broad ones are paged from the index on Deno KV, narrow ones read.
    { search: { field: "type", query: "/" } },
    { search: { field: "type", query: "IMAGE" } },
    { search: { field: "type", query: "p" }, typePrefixes: ["image/", "application/"] },
    { search: { field: "type", query: "/" }, favorite: true },
    { search: { field: "name", query: "-1" } },
    { search: { field: "originalName", query: "ORIG 3" } },
  ];
  // Pages before the middle, past it (read backwards on PostgreSQL), the last and past the end.
  const pages = [
    { offset: 0, limit: 4 },
    { offset: 5, limit: 7 },
    { offset: 25, limit: 7 },
    { offset: 36, limit: 7 },
    { offset: 60, limit: 4 },
    { offset: 0, limit: 1000 },
  ];
  for (const sortBy of FILE_SORT_KEYS) {
    for (const order of ["asc", "desc"] as const) {
      for (const filter of filters) {
        for (const page of pages) {
          const q: FileQuery = { userId, sortBy, order, ...page, ...filter };
          const got = await store.files.list(q);
          const want = queryFiles(all, q);
          const what = JSON.stringify({ sortBy, order, filter, page });
          assert.equal(got.total, want.total, `total of ${what}`);
          assert.deepEqual(got.files.map((f) => f.id), want.files.map((f) => f.id), what);
        }
      }
    }
  }
  assert.deepEqual(
    (await store.files.list({ userId, sortBy: "name", order: "asc", offset: 0, limit: 3 })).files,
    queryFiles(all, { userId, sortBy: "name", order: "asc", offset: 0, limit: 3 }).files,
    "the records themselves",
  );
}

const steps: ContractSteps = {
  async "every page of every order and filter is the records' own, through each kind of write"(
    store,
  ) {
    const user = await storedUser(store);
    const other = await storedUser(store);
    const folders = [crypto.randomUUID(), crypto.randomUUID()];
    const files = variedFiles(user.id, 40, folders);
    // An import, and uploads: one straight, one pending then completed.
    await store.files.createMany(files.slice(0, 30));
    for (const f of files.slice(30, 38)) await store.files.create(f, NO_LIMITS);
    const pending = { ...files[38], pending: true, size: 0 };
    await store.files.create(pending, NO_LIMITS);
    await store.files.create({ ...files[39], pending: true }, NO_LIMITS);
    await store.files.complete(pending.id, 9, NO_LIMITS, later());
    await store.files.createMany(variedFiles(other.id, 5, folders));
    const tagged = files.filter((_, i) => i % 7 === 0).map((f) => f.id);
    await assertPages(store, user.id, folders, tagged);

    // Renames, favourites, folders, private, originals and expiries changed; views; sizes.
    await store.files.update(files[0].id, { name: "zz-renamed.bin" }, later());
    await store.files.update(files[1].id, { favorite: true, folderId: folders[0] }, later());
    await store.files.update(files[5].id, { favorite: false, folderId: null }, later());
    await store.files.update(files[2].id, { private: true, originalName: "Aaa" }, later());
    await store.files.update(files[3].id, { deletesAt: null, type: "image/gif" }, later());
    await store.files.addView(files[4].id);
    await store.files.addView(files[4].id);
    await store.files.resize(files[6].id, 1234, later());
    // Deletes, of a complete file and of a pending one.
    await store.files.delete(files[7].id);
    await store.files.delete(files[39].id);
    await assertPages(store, user.id, folders, tagged);

    // Concurrent writes of the same files and of others.
    await Promise.all([
      ...files.slice(10, 20).map((f, i) =>
        store.files.update(f.id, { favorite: i % 2 === 0, folderId: folders[i % 2] }, later())
      ),
      ...files.slice(10, 20).map((f) => store.files.addView(f.id)),
      ...files.slice(20, 25).map((f) => store.files.delete(f.id)),
      ...variedFiles(user.id, 6, folders).map((f) => store.files.create(f, NO_LIMITS)),
    ]);
    await assertPages(store, user.id, folders, tagged);

    // A disowned user's files leave its list.
    await store.files.disown(other.id);
    const left = await store.files.list({
      userId: other.id,
      sortBy: "size",
      order: "desc",
      offset: 0,
      limit: 10,
    });
    assert.deepEqual(left, { files: [], total: 0 });
  },

  async "a deep page and the pages around a run of equal values"(store) {
    const user = await storedUser(store);
    // 1,200 files of two sizes: runs of equal values longer than one read.
    const files = Array.from(
      { length: 1200 },
      (_, i) => fileRecord(user.id, { size: i % 2, views: i === 600 ? 1 : 0 }),
    );
    await store.files.createMany(files);
    const all = await store.files.listByUser(user.id);
    for (const sortBy of ["size", "views", "createdAt"] as const) {
      for (const order of ["asc", "desc"] as const) {
        for (const offset of [0, 590, 598, 1100, 1195, 1200]) {
          const q: FileQuery = { userId: user.id, sortBy, order, offset, limit: 10 };
          const got = await store.files.list(q);
          const want = queryFiles(all, q);
          assert.equal(got.total, 1200);
          assert.deepEqual(got.files.map((f) => f.id), want.files.map((f) => f.id), `${sortBy}`);
        }
      }
    }
  },

  async "deep pages of the oldest and newest first, with favourites and a folder, through writes"(
    store,
  ) {
    const user = await storedUser(store);
    const folder = crypto.randomUUID();
    const start = Date.UTC(2026, 2, 1);
    // Times a second apart, a burst within a few 256 ms blocks, and a tie of 300 files (an
    // import at one instant) whose ids spread over many prefixes: on Deno KV, every level of
    // the block counts (db/kv/file_blocks.ts) and a tie split by id.
    const time = (i: number) =>
      i < 300 ? start + i * 1000 : i < 600 ? start + 400_000 + (i % 50) * 7 : start + 900_000;
    const files = Array.from({ length: 900 }, (_, i) => {
      const at = new Date(time(i));
      const id = `c${i % 9}${i % 5}aaaaa${String(i).padStart(6, "0")}${crypto.randomUUID()}`;
      return fileRecord(user.id, {
        id: id.slice(0, 25),
        favorite: i % 3 === 0,
        folderId: i % 4 === 0 ? folder : null,
        createdAt: at,
        updatedAt: at,
      });
    });
    const check = async () => {
      const all = await store.files.listByUser(user.id);
      for (const filter of [{}, { favorite: true }, { folderId: folder }]) {
        for (const order of ["asc", "desc"] as const) {
          const total = queryFiles(all, {
            userId: user.id,
            sortBy: "createdAt",
            order,
            offset: 0,
            limit: 1,
            ...filter,
          }).total;
          for (
            const offset of [
              0,
              127,
              128,
              129,
              200,
              333,
              450,
              599,
              600,
              701,
              total - 1,
              total,
              total + 5,
            ]
          ) {
            const q: FileQuery = {
              userId: user.id,
              sortBy: "createdAt",
              order,
              offset,
              limit: 15,
              ...filter,
            };
            const got = await store.files.list(q);
            const want = queryFiles(all, q);
            const what = JSON.stringify({ order, filter, offset });
            assert.equal(got.total, want.total, what);
            assert.deepEqual(got.files.map((f) => f.id), want.files.map((f) => f.id), what);
          }
        }
      }
    };
    await store.files.createMany(files.slice(0, 700));
    for (const f of files.slice(700, 760)) await store.files.create(f, NO_LIMITS);
    await check();
    // Deletes (one by one and in bulk), favourites and folder moves, a rename, an import.
    await store.files.deleteMany(files.slice(100, 160).map((f) => f.id));
    await store.files.delete(files[650].id);
    await store.files.delete(files[5].id);
    await Promise.all(
      files.slice(300, 340).map((f) =>
        store.files.update(
          f.id,
          { favorite: !f.favorite, folderId: f.folderId ? null : folder },
          later(),
        )
      ),
    );
    await store.files.update(files[7].id, { name: "renamed.bin" }, later());
    await store.files.createMany(files.slice(760));
    await check();
  },

  async "the tag filter: every page of files carrying all the tags given, with each filter the API combines, through writes"(
    store,
  ) {
    const user = await storedUser(store);
    const other = await storedUser(store);
    const at = new Date(Date.UTC(2026, 0, 1));
    const tag = (userId: string, name: string) => ({
      id: crypto.randomUUID(),
      name,
      color: "#123456",
      userId,
      createdAt: at,
      updatedAt: at,
    });
    const [red, blue, rare] = [tag(user.id, "red"), tag(user.id, "blue"), tag(user.id, "rare")];
    for (const t of [red, blue, rare]) await store.tags.create(t);
    const folders = [crypto.randomUUID(), crypto.randomUUID()];
    const files = variedFiles(user.id, 60, folders);
    await store.files.createMany(files);
    // Another owner's file with the same tag (as a link made by hand) is never listed.
    const stranger = fileRecord(other.id);
    await store.files.createMany([stranger]);
    const tags = (i: number) => [
      ...(i % 2 === 0 ? [red.id] : []),
      ...(i % 3 === 0 ? [blue.id] : []),
      ...(i % 12 === 1 ? [rare.id] : []),
    ];
    for (const [i, f] of files.entries()) await store.tags.setFileTags(f.id, tags(i));
    await store.tags.setFileTags(stranger.id, [red.id]);
    // Tags moved and a tagged file deleted.
    await store.tags.setFileTags(files[0].id, [blue.id]);
    await store.files.delete(files[6].id);
    const check = async () => {
      const all = await store.files.listByUser(user.id);
      const held = await store.tags.tagsOfFiles(all.map((f) => f.id));
      const carrying = (ids: string[]) =>
        all.filter((f) => ids.every((t) => held.get(f.id)?.some((h) => h.id === t))).map((f) =>
          f.id
        );
      const filters: Partial<FileQuery>[] = [
        {},
        { favorite: true },
        { favorite: false },
        { folderId: folders[0] },
        { folderId: folders[1], favorite: false },
        { typePrefixes: ["image/", "video/", "audio/", "text/"] },
        { typePrefixes: ["image/", "video/", "audio/", "text/"], favorite: true },
        { typePrefixes: ["text/"], folderId: folders[0] },
        // Not offered by the API (its search field is then the tags), answered all the same.
        { search: { field: "type" as const, query: "image" } },
      ];
      const tagSets = [
        [red.id],
        [blue.id],
        [rare.id],
        [red.id, blue.id],
        [blue.id, red.id, red.id],
        [rare.id, red.id],
        [red.id, blue.id, rare.id],
      ];
      const pages = [{ offset: 0, limit: 5 }, { offset: 3, limit: 4 }, { offset: 0, limit: 100 }];
      for (const tagIds of tagSets) {
        for (
          const sortBy of [
            "createdAt",
            "name",
            "deletesAt",
            "size",
            "updatedAt",
            "favorite",
          ] as const
        ) {
          for (const order of ["asc", "desc"] as const) {
            for (const filter of filters) {
              for (const page of pages) {
                const q: FileQuery = { userId: user.id, sortBy, order, ...page, ...filter };
                const got = await store.files.list({ ...q, tagIds });
                const want = queryFiles(all, { ...q, ids: carrying(tagIds) });
                const what = JSON.stringify({ tagIds, sortBy, order, filter, page });
                assert.equal(got.total, want.total, what);
                assert.deepEqual(got.files.map((f) => f.id), want.files.map((f) => f.id), what);
              }
            }
          }
        }
      }
    };
    await check();
    // Favourites toggled, files moved between folders, tags changed, files deleted.
    for (const f of files.slice(10, 22)) {
      await store.files.update(f.id, { favorite: !f.favorite, folderId: folders[1] }, later());
    }
    for (const f of files.slice(22, 30)) await store.tags.setFileTags(f.id, [rare.id, blue.id]);
    await store.tags.setFileTags(files[30].id, []);
    await store.files.update(files[31].id, { type: "text/plain", name: "a-moved.txt" }, later());
    await store.files.deleteMany([files[32].id, files[33].id, files[1].id]);
    await check();
  },

  async "iterate: every file in id order, pending ones too; with after, those after that id"(
    store,
  ) {
    const user = await storedUser(store);
    const files = Array.from({ length: 7 }, (_, i) => fileRecord(i === 3 ? null : user.id));
    await store.files.createMany(files);
    await store.files.create(fileRecord(user.id, { pending: true }), NO_LIMITS);
    const all = (await Array.fromAsync(store.files.iterate())).map((f) => f.id);
    assert.equal(all.length, 8);
    assert.deepEqual(all, [...all].sort(), "in id order");
    const after = (await Array.fromAsync(store.files.iterate(all[4]))).map((f) => f.id);
    assert.deepEqual(after, all.slice(5));
    assert.deepEqual(await Array.fromAsync(store.files.iterate(all[7])), []);
  },
};

contractSuite("file list", steps);
