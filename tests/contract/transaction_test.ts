/**
 * `Backend.transaction` and the bulk writes imports make inside it, run against
 * Deno KV (a journal of undoable writes) and PostgreSQL (one transaction)
 * alike: what a transaction wrote is seen through the store once it resolves,
 * and nothing of it once it throws, in the store and its sub-stores.
 */
import assert from "node:assert/strict";
import { newId, systemRandom } from "../../core/clock.ts";
import type { FileRecord } from "../../db/files.ts";
import type { OauthLinkRecord } from "../../db/oauth.ts";
import { type Backend } from "../../db/store.ts";
import type { UserRecord } from "../../db/users.ts";
import { UniqueError } from "../../db/errors.ts";
import { URL_RULE_DEFAULTS, type UrlRecord } from "../../db/urls.ts";
import { type ContractSteps, contractSuite, fileRecord, storedUser } from "../helpers/stores.ts";

const T0 = Date.UTC(2026, 0, 1);
const at = (s: number) => new Date(T0 + s * 1000);

/** A file of `userId` with the fields the round trips compare set to non-defaults. */
function file(userId: string, name: string, size = 100): FileRecord {
  return fileRecord(userId, {
    name,
    originalName: `${name}.orig`,
    size,
    type: "image/png",
    views: 3,
    favorite: true,
    createdAt: at(1),
    updatedAt: at(2),
  });
}

function url(userId: string, code: string, vanity: string | null = null): UrlRecord {
  return {
    id: newId(systemRandom, Date.now()),
    code,
    vanity,
    destination: `https://example.com/${code}`,
    views: 5,
    maxViews: 9,
    password: null,
    enabled: true,
    userId,
    createdAt: at(1),
    updatedAt: at(2),
    ...URL_RULE_DEFAULTS,
  };
}

function link(userId: string, oauthId: string): OauthLinkRecord {
  return {
    id: newId(systemRandom, Date.now()),
    userId,
    provider: "GITHUB",
    username: `gh-${oauthId}`,
    accessToken: "access",
    refreshToken: null,
    oauthId,
    createdAt: at(1),
  };
}

const metric = (s: number) => ({
  id: newId(systemRandom, Date.now()),
  createdAt: at(s),
  data: { files: s },
});

/** Many files spread over `owners`: more than one KV atomic operation holds. */
const manyFiles = (owners: UserRecord[], n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => file(owners[i % owners.length].id, `${prefix}-${i}.png`, i));

/** What the writes of {@link writeEverything} leave, read through `store`. */
async function snapshot(store: Backend, owner: UserRecord) {
  const files: string[] = [];
  for await (const f of store.files.iterate()) files.push(f.name);
  const urls: string[] = [];
  for await (const u of store.urls.iterate()) urls.push(u.code);
  const metrics: number[] = [];
  for await (const m of store.metrics.iterate()) metrics.push(m.data.files as number);
  return {
    users: (await store.users.list()).map((u) => u.username),
    owner: (await store.users.get(owner.id))?.username,
    files: files.sort(),
    usage: await store.files.usage(owner.id),
    urls: urls.sort(),
    urlCount: await store.urls.countByUser(owner.id),
    links: (await store.oauth.listByUser(owner.id)).map((l) => l.oauthId),
    metrics,
    settings: await store.settings.read(),
  };
}

/** Writes through every part of `tx` that imports use; returns the new user. */
async function writeEverything(tx: Backend, owner: UserRecord, existing: FileRecord) {
  const added = await storedUser(tx, "added");
  await tx.users.update(owner.id, { username: "renamed" }, at(9));
  await tx.files.create(file(owner.id, "one.png", 10), { maxBytes: null, maxFiles: null });
  await tx.files.createMany([...manyFiles([owner, added], 150, "bulk")]);
  await tx.files.delete(existing.id);
  await tx.urls.create(url(owner.id, "solo"), null);
  await tx.urls.createMany([url(owner.id, "b1", "v1"), url(added.id, "b2")]);
  await tx.oauth.create(link(owner.id, "42"));
  await tx.metrics.add([metric(1), metric(2)]);
  await tx.settings.update({ websiteTitle: "In a transaction" });
  return added;
}

/** A user `owner` with one file, `existing.png`. */
async function withOwner(store: Backend) {
  const owner = await storedUser(store, "owner");
  const existing = file(owner.id, "existing.png", 7);
  await store.files.create(existing, { maxBytes: null, maxFiles: null });
  return { owner, existing };
}

const steps: ContractSteps = {
  "a transaction that resolves: its writes are seen through the store, its result returned": async (
    store,
  ) => {
    const { owner, existing } = await withOwner(store);
    const result = await store.transaction(async (tx) => {
      const added = await writeEverything(tx, owner, existing);
      assert.equal((await tx.users.getByUsername("added"))?.id, added.id, "reads its own writes");
      return added.id;
    });
    assert.equal((await store.users.getByUsername("added"))?.id, result);
    const seen = await snapshot(store, owner);
    assert.deepEqual(seen.users, ["renamed", "added"]);
    assert.equal(seen.owner, "renamed");
    assert.equal(seen.files.length, 1 + 150);
    assert.ok(seen.files.includes("one.png") && !seen.files.includes("existing.png"));
    assert.deepEqual(seen.usage, { files: 1 + 75, bytes: 10 + 75 * 74 });
    assert.deepEqual(seen.urls, ["b1", "b2", "solo"]);
    assert.equal(seen.urlCount, 2);
    assert.deepEqual(seen.links, ["42"]);
    assert.deepEqual(seen.metrics, [1, 2]);
    assert.equal(seen.settings.websiteTitle, "In a transaction");
    assert.equal((await store.oauth.find("GITHUB", "42"))?.userId, owner.id);
    assert.equal(await store.metrics.count(), 2);
  },

  "a transaction that throws: nothing of it is left, changed records are restored": async (
    store,
  ) => {
    const { owner, existing } = await withOwner(store);
    await store.urls.create(url(owner.id, "kept"), null);
    await store.oauth.create(link(owner.id, "1"));
    await store.metrics.add([metric(0)]);
    await store.settings.update({ websiteTitle: "Before" });
    const before = await snapshot(store, owner);
    await assert.rejects(
      store.transaction(async (tx) => {
        await writeEverything(tx, owner, existing);
        throw new Error("stop");
      }),
      /stop/,
    );
    assert.deepEqual(await snapshot(store, owner), before);
    assert.deepEqual(await store.files.get(existing.id), existing, "the deleted file is back");
    assert.equal(await store.users.getByUsername("renamed"), null);
    assert.equal((await store.users.getByUsername("owner"))?.id, owner.id);
    assert.equal(await store.oauth.find("GITHUB", "42"), null);
    assert.deepEqual(
      await store.files.takenNames(["one.png", "bulk-0.png", "existing.png"]),
      new Set(["existing.png"]),
    );
    assert.deepEqual(await store.urls.takenNames(["solo", "b1", "v1", "kept"]), new Set(["kept"]));
    // The names are free again.
    await storedUser(store, "added");
    await store.urls.create(url(owner.id, "v1"), null);
    await store.files.create(file(owner.id, "bulk-0.png"), { maxBytes: null, maxFiles: null });
  },

  "files.createMany: every field kept, usage counted, names found by takenNames": async (store) => {
    const a = await storedUser(store);
    const b = await storedUser(store);
    const files = manyFiles([a, b], 230, "f");
    await store.files.createMany(files);
    await store.files.createMany([]);
    assert.deepEqual(await store.files.get(files[17].id), files[17]);
    assert.deepEqual(await store.files.getByName("f-229.png"), files[229]);
    assert.equal((await store.files.listByUser(a.id)).length, 115);
    assert.deepEqual(await store.files.usage(b.id), {
      files: 115,
      bytes: files.filter((f) => f.userId === b.id).reduce((n, f) => n + f.size, 0),
    });
    assert.deepEqual(
      await store.files.takenNames(["f-0.png", "nope.png", "f-100.png"]),
      new Set(["f-0.png", "f-100.png"]),
    );
    assert.deepEqual(await store.files.takenNames([]), new Set());
  },

  "files.createMany: a taken name is a UniqueError, and a transaction undoes the rest": async (
    store,
  ) => {
    const a = await storedUser(store);
    await store.files.create(file(a.id, "taken.png"), { maxBytes: null, maxFiles: null });
    const files = [...manyFiles([a], 180, "g"), file(a.id, "taken.png")];
    await assert.rejects(
      store.transaction((tx) => tx.files.createMany(files)),
      (e) => e instanceof UniqueError && e.field === "name",
    );
    assert.deepEqual(await store.files.takenNames(["g-0.png", "g-179.png"]), new Set());
    assert.deepEqual(await store.files.usage(a.id), { files: 1, bytes: 100 });
  },

  "urls.createMany: every field kept, counted, codes and vanities found by takenNames": async (
    store,
  ) => {
    const a = await storedUser(store);
    const urls = Array.from({ length: 120 }, (_, i) => url(a.id, `c${i}`, i % 3 ? null : `v${i}`));
    await store.urls.createMany(urls);
    assert.deepEqual(await store.urls.get(urls[3].id), urls[3]);
    assert.deepEqual(await store.urls.getByName("v3"), urls[3]);
    assert.equal(await store.urls.countByUser(a.id), 120);
    assert.deepEqual(
      await store.urls.takenNames(["c0", "v0", "v1", "c119"]),
      new Set(["c0", "v0", "c119"]),
    );
    await assert.rejects(
      store.transaction((tx) => tx.urls.createMany([url(a.id, "new"), url(a.id, "x", "c5")])),
      (e) => e instanceof UniqueError,
    );
    assert.equal(await store.urls.getByName("new"), null);
    assert.equal(await store.urls.countByUser(a.id), 120);
  },
};

contractSuite("transaction contract", steps);
