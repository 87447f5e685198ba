/**
 * Deno KV schema 16 (`db/kv/urls.ts`, `backfillUrlOrphans`): the URLs without
 * an owner have an index, a count and a views total, which the metrics task
 * reads instead of every URL. A store written before it opens with them
 * filled, once, also when an upgrade stopped half way; the recount puts right
 * a count, a total or an entry made wrong by hand.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { KV_SCHEMA_VERSION, openKvStore } from "../../db/kv/mod.ts";
import { patient } from "../../db/kv/patient.ts";
import type { UrlRecord } from "../../db/urls.ts";
import { storedUser, urlRecord } from "../helpers/stores.ts";

/** A KV database in a fresh folder, removed after `fn`. */
async function withKvPath(fn: (path: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "ferry-kv-orphans-" });
  try {
    await fn(join(dir, "ferry.kv"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("kv schema 14 → 16: the URLs without an owner counted once, also after a stopped upgrade", async () => {
  await withKvPath(async (path) => {
    const store = await openKvStore(path);
    const ann = await storedUser(store);
    // More URLs than three pages of the upgrade; every third without an owner.
    const urls = Array.from(
      { length: 130 },
      (_, i) => urlRecord(i % 3 === 0 ? null : ann.id, `o${i}`, { views: i % 5 }),
    );
    await store.urls.createMany(urls);
    const orphans = urls.filter((u) => u.userId === null);
    const expected = { urls: orphans.length, views: orphans.reduce((n, u) => n + u.views, 0) };
    assert.deepEqual(await store.urls.statsByUser(null), expected);
    await store.close();

    // Schema 14 kept none of it; an upgrade stopped after its first page left that page's.
    const kv = patient(await Deno.openKv(path));
    await kv.set(["meta", "schema_version"], 14);
    const first = await Array.fromAsync(kv.list<UrlRecord>({ prefix: ["url"] }, { limit: 40 }));
    const done = new Set(first.map((e) => e.value.id));
    const early = orphans.filter((u) => done.has(u.id));
    for await (const { key } of kv.list({ prefix: ["url_orphan"] })) {
      if (!done.has(key[1] as string)) await kv.delete(key);
    }
    await kv.set(["url_orphan_count"], new Deno.KvU64(BigInt(early.length)));
    const earlyViews = early.reduce((n, u) => n + u.views, 0);
    await kv.set(["url_orphan_views"], new Deno.KvU64(BigInt(earlyViews)));
    await kv.set(["meta", "url_orphan_backfill"], first.at(-1)!.key);
    kv.close();

    const upgraded = await openKvStore(path);
    assert.equal(await upgraded.schemaVersion(), KV_SCHEMA_VERSION);
    assert.deepEqual(await upgraded.urls.statsByUser(null), expected);
    assert.equal(await upgraded.urls.recount(null), 0, "nothing left to repair");
    await upgraded.close();
  });
});

Deno.test("kv: the recount puts right the count, views total and index of the URLs without an owner", async () => {
  await withKvPath(async (path) => {
    const store = await openKvStore(path);
    const ann = await storedUser(store);
    const kept = urlRecord(null, "k", { views: 2 });
    const owned = urlRecord(ann.id, "m", { views: 7 });
    await store.urls.createMany([kept, urlRecord(null, "l", { views: 1 }), owned]);
    await store.close();

    // By hand: a count and a total wrong, an entry of an owned URL, one of a URL gone.
    const kv = patient(await Deno.openKv(path));
    await kv.set(["url_orphan_count"], new Deno.KvU64(40n));
    await kv.set(["url_orphan_views"], new Deno.KvU64(0n));
    await kv.set(["url_orphan", owned.id], true);
    await kv.set(["url_orphan", "gone"], true);
    kv.close();

    const reopened = await openKvStore(path);
    assert.equal(await reopened.urls.recount(null), 4);
    assert.deepEqual(await reopened.urls.statsByUser(null), { urls: 2, views: 3 });
    assert.equal(await reopened.urls.recount(null), 0, "nothing left to repair");
    await reopened.urls.delete(kept.id);
    assert.deepEqual(await reopened.urls.statsByUser(null), { urls: 1, views: 1 });
    await reopened.close();
  });
});
