/** The user export store's contract: one suite, run against Deno KV and PostgreSQL alike. */
import assert from "node:assert/strict";
import { newId, systemRandom } from "../../core/clock.ts";
import type { UserExportRecord } from "../../db/user_exports.ts";
import { type ContractSteps, contractSuite, storedUser as owner } from "../helpers/stores.ts";

let tick = Date.UTC(2026, 0, 1);
const next = () => new Date(tick += 1000);

function record(userId: string): UserExportRecord {
  const at = next();
  const id = newId(systemRandom, Date.now());
  return {
    id,
    userId,
    path: `.exports/${id}.zip`,
    files: 3,
    size: 0,
    completed: false,
    createdAt: at,
    updatedAt: at,
  };
}

const steps: ContractSteps = {
  "user exports: created, listed per user, read back": async (store) => {
    const a = await owner(store);
    const b = await owner(store);
    const [mine, other] = [record(a.id), record(b.id)];
    for (const r of [mine, other]) assert.equal(await store.userExports.create(r), true);
    assert.deepEqual(await store.userExports.listByUser(a.id), [mine]);
    assert.deepEqual(await store.userExports.listByUser(b.id), [other]);
    assert.deepEqual(await store.userExports.get(mine.id), mine);
    assert.equal(await store.userExports.get("nope"), null);
  },

  "security #7: one export per user; of concurrent creates one wins": async (store) => {
    const a = await owner(store);
    const tries = [record(a.id), record(a.id), record(a.id)];
    const created = await Promise.all(tries.map((r) => store.userExports.create(r)));
    assert.deepEqual(created.filter(Boolean).length, 1);
    const won = tries[created.indexOf(true)];
    assert.deepEqual(await store.userExports.listByUser(a.id), [won]);
    assert.equal(await store.userExports.create(record(a.id)), false, "complete or not");
    await store.userExports.complete(won.id, 10, next());
    assert.equal(await store.userExports.create(record(a.id)), false);
    await store.userExports.delete(won.id);
    const after = record(a.id);
    assert.equal(await store.userExports.create(after), true, "free once deleted");
    assert.deepEqual(await store.userExports.listByUser(a.id), [after]);
  },

  "user exports: completed once, with a size past 4 GiB": async (store) => {
    const a = await owner(store);
    const r = record(a.id);
    await store.userExports.create(r);
    const at = next();
    const size = 5 * 2 ** 30 + 7;
    const done = await store.userExports.complete(r.id, size, at);
    assert.deepEqual(done, { ...r, size, completed: true, updatedAt: at });
    assert.deepEqual(await store.userExports.listByUser(a.id), [done]);
    assert.equal(await store.userExports.complete(r.id, 1, next()), null, "already complete");
    assert.equal(await store.userExports.complete("nope", 1, next()), null);
  },

  "user exports: deleted records are gone, and cannot complete": async (store) => {
    const a = await owner(store);
    const r = record(a.id);
    await store.userExports.create(r);
    assert.deepEqual(await store.userExports.delete(r.id), r);
    assert.equal(await store.userExports.delete(r.id), null);
    assert.equal(await store.userExports.get(r.id), null);
    assert.deepEqual(await store.userExports.listByUser(a.id), []);
    assert.equal(await store.userExports.complete(r.id, 10, next()), null);
  },

  "user exports: touched while building; listed by when they were last updated": async (
    store,
  ) => {
    const [a, b, c] = [await owner(store), await owner(store), await owner(store)];
    const [old, touched, done] = [record(a.id), record(b.id), record(c.id)];
    for (const r of [old, touched, done]) await store.userExports.create(r);
    const completedAt = next();
    const complete = await store.userExports.complete(done.id, 10, completedAt);
    const cutoff = next();
    const at = next();
    await store.userExports.touch(touched.id, at);
    await store.userExports.touch(done.id, next());
    await store.userExports.touch("nope", next());
    assert.deepEqual((await store.userExports.get(touched.id))?.updatedAt, at);
    assert.deepEqual(
      (await store.userExports.get(done.id))?.updatedAt,
      completedAt,
      "a complete export is not touched",
    );
    assert.deepEqual(await store.userExports.listUpdatedBefore(completedAt), [old]);
    assert.deepEqual(await store.userExports.listUpdatedBefore(cutoff), [old, complete]);
    assert.deepEqual(await store.userExports.listUpdatedBefore(next()), [
      old,
      { ...touched, updatedAt: at },
      complete,
    ]);
  },
};

contractSuite("user export store contract", steps);
