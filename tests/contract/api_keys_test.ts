/** The API key store contract, run against Deno KV and PostgreSQL. */
import assert from "node:assert/strict";
import { ManualClock, systemRandom } from "../../core/clock.ts";
import { mintApiKey } from "../../core/api_keys.ts";
import type { ApiKeyRecord } from "../../db/api_keys.ts";
import type { Backend } from "../../db/store.ts";
import { UniqueError } from "../../db/errors.ts";
import { type ContractSteps, contractSuite, storedUser } from "../helpers/stores.ts";

const clock = new ManualClock(Date.UTC(2026, 0, 1));

/** A new key record of `userId`, a second younger than the one before. */
function key(userId: string, name = "key"): ApiKeyRecord {
  clock.advance(1000);
  return mintApiKey({ clock, random: systemRandom }, userId, {
    name,
    scopes: ["files:write", "files:read"],
  }).record;
}

/** The user's keys, by name. */
async function names(store: Backend, userId: string): Promise<string[]> {
  return (await store.apiKeys.listByUser(userId)).map((k) => k.name);
}

const steps: ContractSteps = {
  "a key is found by its hash and by its id, as it was stored": async (store) => {
    const a = await storedUser(store, "a");
    const k = { ...key(a.id), expiresAt: new Date(Date.UTC(2027, 0, 1)) };
    await store.apiKeys.create(k);
    assert.deepEqual(await store.apiKeys.findByHash(k.hash), k);
    assert.deepEqual(await store.apiKeys.get(k.id), k);
    assert.equal(await store.apiKeys.findByHash("unknown"), null);
    assert.equal(await store.apiKeys.get("unknown"), null);
  },
  "a hash is stored once": async (store) => {
    const [a, b] = [await storedUser(store, "a"), await storedUser(store, "b")];
    const k = key(a.id);
    await store.apiKeys.create(k);
    await assert.rejects(store.apiKeys.create({ ...key(b.id), hash: k.hash }), UniqueError);
    assert.deepEqual(await names(store, b.id), []);
  },
  "a user's keys are listed oldest first, and only theirs": async (store) => {
    const [a, b] = [await storedUser(store, "a"), await storedUser(store, "b")];
    await store.apiKeys.create(key(a.id, "one"));
    await store.apiKeys.create(key(b.id, "other"));
    await store.apiKeys.create(key(a.id, "two"));
    assert.deepEqual(await names(store, a.id), ["one", "two"]);
    assert.deepEqual(await names(store, b.id), ["other"]);
  },
  "rename and touch change only their field": async (store) => {
    const a = await storedUser(store, "a");
    const k = key(a.id);
    await store.apiKeys.create(k);
    assert.deepEqual(await store.apiKeys.rename(k.id, "new"), { ...k, name: "new" });
    const at = new Date(Date.UTC(2026, 5, 1));
    await store.apiKeys.touch(k.id, at);
    assert.deepEqual(await store.apiKeys.findByHash(k.hash), { ...k, name: "new", lastUsedAt: at });
    assert.equal(await store.apiKeys.rename("unknown", "x"), null);
    await store.apiKeys.touch("unknown", at);
  },
  "delete removes one key, deleteByUser all of a user's": async (store) => {
    const [a, b] = [await storedUser(store, "a"), await storedUser(store, "b")];
    const [one, two, three] = [key(a.id, "one"), key(a.id, "two"), key(a.id, "three")];
    for (const k of [one, two, three, key(b.id, "other")]) await store.apiKeys.create(k);
    assert.deepEqual(await store.apiKeys.delete(one.id), one);
    assert.equal(await store.apiKeys.delete(one.id), null);
    assert.equal(await store.apiKeys.findByHash(one.hash), null);
    assert.equal(await store.apiKeys.get(one.id), null);
    assert.equal(await store.apiKeys.deleteByUser(a.id), 2);
    assert.equal(await store.apiKeys.findByHash(two.hash), null);
    assert.equal(await store.apiKeys.get(three.id), null);
    assert.deepEqual(await names(store, a.id), []);
    assert.deepEqual(await names(store, b.id), ["other"]);
    assert.equal(await store.apiKeys.deleteByUser(a.id), 0);
    // The hash is free again.
    await store.apiKeys.create({ ...key(a.id, "again"), hash: one.hash });
  },
  "a key written in a transaction that fails is gone": async (store) => {
    const a = await storedUser(store, "a");
    const k = key(a.id);
    await assert.rejects(
      store.transaction(async (view) => {
        await view.apiKeys.create(k);
        throw new Error("stop");
      }),
      /stop/,
    );
    assert.equal(await store.apiKeys.findByHash(k.hash), null);
    assert.deepEqual(await names(store, a.id), []);
  },
};

contractSuite("api key store", steps);
