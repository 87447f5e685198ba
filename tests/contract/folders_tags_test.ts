/** The folder and tag stores' contract: one suite, run against Deno KV and PostgreSQL alike. */
import assert from "node:assert/strict";
import { newId, systemRandom } from "../../core/clock.ts";
import { type FolderRecord, FolderTreeError } from "../../db/folders.ts";
import { type Backend } from "../../db/store.ts";
import { UniqueError } from "../../db/errors.ts";
import type { TagRecord } from "../../db/tags.ts";
import {
  type ContractSteps,
  contractSuite,
  fileRecord,
  storedUser as owner,
} from "../helpers/stores.ts";

let tick = Date.UTC(2026, 0, 1);
const next = () => new Date(tick += 1000);

function folder(userId: string, name: string, parentId: string | null = null): FolderRecord {
  const at = next();
  return {
    id: newId(systemRandom, Date.now()),
    name,
    public: false,
    allowUploads: false,
    parentId,
    userId,
    createdAt: at,
    updatedAt: at,
  };
}

function tag(userId: string, name: string): TagRecord {
  const at = next();
  return {
    id: newId(systemRandom, Date.now()),
    name,
    color: "#fff",
    userId,
    createdAt: at,
    updatedAt: at,
  };
}

async function file(store: Backend, userId: string, folderId: string | null = null) {
  const at = next();
  const record = fileRecord(userId, { folderId, createdAt: at, updatedAt: at });
  await store.files.create(record, { maxBytes: null, maxFiles: null });
  return record;
}

const isTree = (reason: string) => (e: unknown) =>
  e instanceof FolderTreeError && e.reason === reason;
const isUnique = (e: unknown) => e instanceof UniqueError && e.field === "name";
const names = (folders: FolderRecord[]) => folders.map((f) => f.name);

const steps: ContractSteps = {
  "folders: names unique per user, parents of the same user, listing": async (store) => {
    const a = await owner(store);
    const b = await owner(store);
    const docs = folder(a.id, "docs");
    await store.folders.create(docs);
    await assert.rejects(store.folders.create(folder(a.id, "docs")), isUnique);
    await store.folders.create(folder(b.id, "docs"));
    const sub = folder(a.id, "sub", docs.id);
    await store.folders.create(sub);
    await assert.rejects(store.folders.create(folder(b.id, "x", docs.id)), isTree("parent"));
    await assert.rejects(store.folders.create(folder(a.id, "y", "missing")), isTree("parent"));
    assert.deepEqual(names(await store.folders.listByUser(a.id)), ["docs", "sub"]);
    assert.deepEqual(await store.folders.get(sub.id), sub);
    assert.equal((await store.folders.listByName("docs")).length, 2);
    const all = [];
    for await (const f of store.folders.iterate()) all.push(f.id);
    assert.equal(all.length, 3);
  },

  "folders: concurrent creates of one name: exactly one wins": async (store) => {
    const a = await owner(store);
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => store.folders.create(folder(a.id, "same"))),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
    assert.ok(results.every((r) => r.status === "fulfilled" || isUnique(r.reason)));
    assert.deepEqual(names(await store.folders.listByUser(a.id)), ["same"]);
  },

  "folders: no folder below itself, even under concurrent moves": async (store) => {
    const a = await owner(store);
    const top = folder(a.id, "top");
    const mid = folder(a.id, "mid", top.id);
    const low = folder(a.id, "low", mid.id);
    for (const f of [top, mid, low]) await store.folders.create(f);
    const now = next();
    await assert.rejects(store.folders.update(top.id, { parentId: low.id }, now), isTree("cycle"));
    await assert.rejects(store.folders.update(top.id, { parentId: top.id }, now), isTree("cycle"));
    await assert.rejects(store.folders.update(mid.id, { name: "top" }, now), isUnique);
    const moved = await store.folders.update(low.id, { parentId: null, name: "free" }, now);
    assert.equal(moved?.parentId, null);
    assert.equal(moved?.name, "free");
    assert.equal(await store.folders.update("missing", { name: "z" }, now), null);

    const x = folder(a.id, "x");
    const y = folder(a.id, "y");
    await store.folders.create(x);
    await store.folders.create(y);
    const race = await Promise.allSettled([
      store.folders.update(x.id, { parentId: y.id }, now),
      store.folders.update(y.id, { parentId: x.id }, now),
    ]);
    assert.equal(race.filter((r) => r.status === "fulfilled").length, 1);
    const [nx, ny] = [await store.folders.get(x.id), await store.folders.get(y.id)];
    assert.ok(nx?.parentId === null || ny?.parentId === null);
  },

  "folders: removal moves or removes the subtree atomically": async (store) => {
    const a = await owner(store);
    const top = folder(a.id, "top");
    const mid = folder(a.id, "mid", top.id);
    const low = folder(a.id, "low", mid.id);
    const target = folder(a.id, "target");
    for (const f of [top, mid, low, target]) await store.folders.create(f);
    const now = next();
    await assert.rejects(
      store.folders.delete(top.id, { subtree: false, moveTo: low.id }, now),
      isTree("cycle"),
    );
    await assert.rejects(
      store.folders.delete(top.id, { subtree: false, moveTo: "missing" }, now),
      isTree("parent"),
    );
    assert.equal((await store.folders.listByUser(a.id)).length, 4);
    const removed = await store.folders.delete(top.id, { subtree: false, moveTo: target.id }, now);
    assert.deepEqual(removed?.map((f) => f.id), [top.id]);
    assert.equal((await store.folders.get(mid.id))?.parentId, target.id);
    const tree = await store.folders.delete(target.id, { subtree: true, moveTo: null }, now);
    assert.deepEqual(tree?.map((f) => f.id).sort(), [target.id, mid.id, low.id].sort());
    assert.deepEqual(await store.folders.listByUser(a.id), []);
    assert.equal(await store.folders.delete(top.id, { subtree: true, moveTo: null }, now), null);
    await store.folders.create(folder(a.id, "again"));
    await store.folders.deleteByUser(a.id);
    assert.deepEqual(await store.folders.listByUser(a.id), []);
  },

  "folders: a transaction with files is all or nothing": async (store) => {
    const a = await owner(store);
    const docs = folder(a.id, "docs");
    await store.folders.create(docs);
    const f = await file(store, a.id, docs.id);
    await assert.rejects(
      store.transaction(async (tx) => {
        await tx.folders.delete(docs.id, { subtree: true, moveTo: null }, next());
        await tx.files.update(f.id, { folderId: null }, next());
        throw new Error("stop");
      }),
      /stop/,
    );
    assert.notEqual(await store.folders.get(docs.id), null);
    assert.equal((await store.files.get(f.id))?.folderId, docs.id);
  },

  "tags: names unique per user, update, delete": async (store) => {
    const a = await owner(store);
    const b = await owner(store);
    const work = tag(a.id, "work");
    await store.tags.create(work);
    await assert.rejects(store.tags.create(tag(a.id, "work")), isUnique);
    await store.tags.create(tag(b.id, "work"));
    const home = tag(a.id, "home");
    await store.tags.create(home);
    assert.deepEqual((await store.tags.listByUser(a.id)).map((t) => t.name), ["work", "home"]);
    await assert.rejects(store.tags.update(home.id, { name: "work" }, next()), isUnique);
    const renamed = await store.tags.update(home.id, { name: "house", color: "#000" }, next());
    assert.equal(renamed?.name, "house");
    await store.tags.create(tag(a.id, "home"));
    assert.equal(await store.tags.update("missing", { name: "x" }, next()), null);
    assert.deepEqual(await store.tags.delete(work.id), work);
    assert.equal(await store.tags.get(work.id), null);
    await store.tags.create(tag(a.id, "work"));
    const all = [];
    for await (const t of store.tags.iterate()) all.push(t);
    assert.equal(all.length, 4);
    await store.tags.deleteByUser(a.id);
    assert.deepEqual(await store.tags.listByUser(a.id), []);
    assert.equal((await store.tags.listByUser(b.id)).length, 1);
  },

  "tags: file links replace, and go with their tag or file": async (store) => {
    const a = await owner(store);
    const [t1, t2, t3] = [tag(a.id, "one"), tag(a.id, "two"), tag(a.id, "three")];
    for (const t of [t1, t2, t3]) await store.tags.create(t);
    const f1 = await file(store, a.id);
    const f2 = await file(store, a.id);
    await store.tags.setFileTags(f1.id, [t1.id, t2.id]);
    await store.tags.setFileTags(f2.id, [t1.id]);
    const ids = (tags: TagRecord[] | undefined) => (tags ?? []).map((t) => t.id).sort();
    let of = await store.tags.tagsOfFiles([f1.id, f2.id]);
    assert.deepEqual(ids(of.get(f1.id)), [t1.id, t2.id].sort());
    assert.deepEqual(
      (await store.tags.filesOfTags([t1.id])).get(t1.id)?.sort(),
      [f1.id, f2.id].sort(),
    );
    await store.tags.setFileTags(f1.id, [t2.id, t3.id]);
    of = await store.tags.tagsOfFiles([f1.id]);
    assert.deepEqual(ids(of.get(f1.id)), [t2.id, t3.id].sort());
    assert.deepEqual((await store.tags.filesOfTags([t1.id])).get(t1.id), [f2.id]);
    const links = [];
    for await (const link of store.tags.iterateLinks()) links.push(link);
    assert.equal(links.length, 3);

    await store.tags.delete(t2.id);
    assert.deepEqual(ids((await store.tags.tagsOfFiles([f1.id])).get(f1.id)), [t3.id]);
    await store.files.delete(f1.id);
    assert.equal((await store.tags.filesOfTags([t3.id])).has(t3.id), false);
    await store.tags.setFileTags(f2.id, []);
    assert.deepEqual(await store.tags.tagsOfFiles([f2.id]), new Map());
  },

  "tags: two concurrent replacements of a file's set leave one of them whole": async (store) => {
    const a = await owner(store);
    const [t1, t2, t3, t4] = ["one", "two", "three", "four"].map((n) => tag(a.id, n));
    for (const t of [t1, t2, t3, t4]) await store.tags.create(t);
    const f = await file(store, a.id);
    const sets = [[t1.id, t2.id], [t3.id, t4.id]].map((set) => set.sort());
    for (let round = 0; round < 10; round++) {
      await store.tags.setFileTags(f.id, round % 2 ? [t1.id, t3.id] : []);
      await Promise.all(sets.map((set) => store.tags.setFileTags(f.id, set)));
      const now = (await store.tags.tagsOfFiles([f.id])).get(f.id)!.map((t) => t.id).sort();
      assert.ok(sets.some((set) => set.join() === now.join()), `round ${round}: ${now}`);
      const linked = await store.tags.filesOfTags([t1.id, t2.id, t3.id, t4.id]);
      assert.deepEqual([...linked.keys()].sort(), now, "the links agree both ways");
    }
    await store.tags.setFileTags("no-such-file", [t1.id]);
    assert.deepEqual(await store.tags.tagsOfFiles(["no-such-file"]), new Map());
  },
};

contractSuite("folder and tag store contract", steps);
