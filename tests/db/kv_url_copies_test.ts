/**
 * Deno KV schema 14 (`db/kv/urls.ts`, `backfillUrlCopies`): a store written
 * before it, whose URL list read each URL and its views by id and whose
 * statistics summed every URL's views, opens with each owned URL copied into
 * its owner's oldest-first order and each owner's views total filled, once,
 * also when an upgrade stopped half way.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { KV_SCHEMA_VERSION, openKvStore } from "../../db/kv/mod.ts";
import { patient } from "../../db/kv/patient.ts";
import type { UrlRecord } from "../../db/urls.ts";
import { storedUser, urlRecord } from "../helpers/stores.ts";

Deno.test("kv schema 11 → 14: URL list copies and views totals filled once, also after a stopped upgrade", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ferry-kv-schema-" });
  const path = join(dir, "ferry.kv");
  try {
    const store = await openKvStore(path);
    const ann = await storedUser(store);
    const bob = await storedUser(store);
    // More URLs than three pages of the upgrade, two owners and some with none.
    const urls = Array.from(
      { length: 130 },
      (_, i) => urlRecord(i % 10 === 9 ? null : i % 2 ? ann.id : bob.id, `c${i}`, { views: i % 4 }),
    );
    await store.urls.createMany(urls);
    const expected = (owner: string) => {
      const mine = urls.filter((u) => u.userId === owner);
      return {
        stats: { urls: mine.length, views: mine.reduce((n, u) => n + u.views, 0) },
        list: mine.map((u) => [u.id, u.views, u.destination]),
      };
    };
    const seen = async (s: typeof store, owner: string) => ({
      stats: await s.urls.statsByUser(owner),
      list: (await s.urls.listByUser(owner)).map((u) => [u.id, u.views, u.destination]),
    });
    for (const owner of [ann.id, bob.id]) {
      assert.deepEqual(await seen(store, owner), expected(owner));
    }
    await store.close();

    // Schema 11 kept no copies and no totals (its index entries held `true`);
    // an upgrade stopped after its first page left that page's copies and sums.
    const kv = patient(await Deno.openKv(path));
    await kv.set(["meta", "schema_version"], 11);
    const first = await Array.fromAsync(kv.list<UrlRecord>({ prefix: ["url"] }, { limit: 40 }));
    const done = new Set(first.map((e) => e.value.id));
    for await (const { key } of kv.list({ prefix: ["url_views_total"] })) await kv.delete(key);
    for await (const { key } of kv.list({ prefix: ["url_by_user_at_views"] })) {
      if (!done.has(key.at(-1) as string)) await kv.delete(key);
    }
    for await (const { key } of kv.list({ prefix: ["url_by_user_at"] })) {
      if (!done.has(key.at(-1) as string)) await kv.set(key, true);
    }
    for (const owner of [ann.id, bob.id]) {
      const views = urls.filter((u) => u.userId === owner && done.has(u.id))
        .reduce((n, u) => n + u.views, 0);
      await kv.set(["url_views_total", owner], new Deno.KvU64(BigInt(views)));
    }
    await kv.set(["meta", "url_copy_backfill"], first.at(-1)!.key);
    kv.close();

    const upgraded = await openKvStore(path);
    assert.equal(await upgraded.schemaVersion(), KV_SCHEMA_VERSION);
    for (const owner of [ann.id, bob.id]) {
      assert.deepEqual(await seen(upgraded, owner), expected(owner));
      assert.equal(await upgraded.urls.recount(owner), 0, "nothing left to repair");
    }
    await upgraded.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
