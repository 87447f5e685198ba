/**
 * Each owner's URL records packed in chunks on Deno KV (`db/kv/url_chunks.ts`,
 * schema 21), which the URL list reads: the chunks hold exactly the owner's
 * URLs, in order, each within its start and the next chunk's, within the
 * limits of a chunk, through creates, edits, deletes, views, imports, the
 * user's deletion, concurrent creates, splits, and the upgrade from an
 * earlier schema (stopped half way too).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { KV_SCHEMA_VERSION, type KvStore, openKvStore } from "../../db/kv/mod.ts";
import { CHUNK_BYTES, CHUNK_URLS, placeUrls } from "../../db/kv/url_chunks.ts";
import type { UrlRecord } from "../../db/urls.ts";
import { storedUser, urlRecord } from "../helpers/stores.ts";

/** The store's KV handle. */
const kvOf = (store: KvStore) => (store as unknown as { kv: Deno.Kv }).kv;

/** A URL's fields as the list shows them, views included. */
const shown = (u: UrlRecord) =>
  JSON.stringify([
    u.id,
    u.code,
    u.vanity,
    u.destination,
    u.views,
    u.maxViews,
    u.password,
    u.enabled,
    u.userId,
    u.createdAt.getTime(),
    u.updatedAt.getTime(),
    u.expiresAt?.getTime() ?? null,
    u.deviceDestinations,
    u.forwardQuery,
  ]);

/** `owner`'s URLs as their records say, oldest first. */
async function truth(store: KvStore, owner: string): Promise<UrlRecord[]> {
  const urls: UrlRecord[] = [];
  for await (const url of store.urls.iterate()) if (url.userId === owner) urls.push(url);
  return urls.sort((a, b) =>
    a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1)
  );
}

/** What a chunk's string costs in a KV value (two bytes a character past Latin-1). */
const cost = (s: string) => /[\u0100-\uffff]/.test(s) ? 2 * s.length : s.length;

/**
 * Asserts that `owner`'s chunks hold its URLs and nothing else, in order, each
 * at or after its chunk's start and before the next one's, within the limits;
 * that the list and its pages answer the records; returns the chunks' sizes.
 */
async function assertChunks(store: KvStore, owner: string, what: string): Promise<number[]> {
  const urls = await truth(store, owner);
  const chunks = await Array.fromAsync(kvOf(store).list<string>({ prefix: ["url_chunk", owner] }));
  const positions: [number, string][] = [];
  const sizes: number[] = [];
  for (const [i, chunk] of chunks.entries()) {
    assert.ok(cost(chunk.value) <= CHUNK_BYTES, `${what}: chunk ${i} within the bytes`);
    const tuples = JSON.parse(chunk.value) as unknown[][];
    assert.ok(tuples.length > 0 && tuples.length <= CHUNK_URLS, `${what}: chunk ${i} size`);
    sizes.push(tuples.length);
    for (const t of tuples) {
      const p: [number, string] = [t[7] as number, t[0] as string];
      // Within the chunk: at or after its start (the first ever starts before all).
      if (typeof chunk.key[2] === "number") {
        const start: [number, string] = [chunk.key[2], chunk.key[3] as string];
        assert.ok(p[0] > start[0] || (p[0] === start[0] && p[1] >= start[1]), `${what}: start`);
      }
      const next = chunks[i + 1]?.key;
      if (next) {
        const end: [number, string] = [next[2] as number, next[3] as string];
        assert.ok(p[0] < end[0] || (p[0] === end[0] && p[1] < end[1]), `${what}: before next`);
      }
      positions.push(p);
    }
  }
  assert.deepEqual(positions, urls.map((u) => [u.createdAt.getTime(), u.id]), what);
  assert.deepEqual((await store.urls.listByUser(owner)).map(shown), urls.map(shown), what);
  const page = await store.urls.pageByUser(owner, 95, 20);
  assert.deepEqual(page.urls.map(shown), urls.slice(95, 115).map(shown), `${what}: a page`);
  assert.equal(page.total, urls.length, `${what}: total`);
  assert.equal(await store.urls.recount(owner), 0, `${what}: nothing to repair`);
  return sizes;
}

Deno.test("kv URL chunks hold the list through creates, edits, views, deletes, imports and the user's deletion", async () => {
  const store = await openKvStore(":memory:");
  try {
    const [ann, bob] = [await storedUser(store), await storedUser(store)];
    // 150 created one by one: the last chunk fills, then a new one begins.
    const created = Array.from({ length: 150 }, (_, i) => urlRecord(ann.id, `a${i}`));
    for (const url of created) assert.equal(await store.urls.create(url, null), true);
    assert.deepEqual(await assertChunks(store, ann.id, "created"), [100, 50]);
    // An import older than them all and one among them: chunks split evenly in the middle.
    const older = Array.from({ length: 30 }, (_, i) =>
      urlRecord(ann.id, `o${i}`, {
        createdAt: new Date(created[0].createdAt.getTime() - 100_000 + i),
        views: i,
      }));
    const among = Array.from({ length: 40 }, (_, i) =>
      urlRecord(ann.id, `m${i}`, {
        createdAt: new Date(created[60].createdAt.getTime() + 1 + i),
        vanity: `v${i}`,
        deviceDestinations: { ios: "https://example.com/ios" },
      }));
    await store.urls.createMany([...older, ...among, urlRecord(bob.id, "b0")]);
    const sizes = await assertChunks(store, ann.id, "imported");
    assert.equal(sizes.reduce((a, b) => a + b), 220);
    // Edits, views (counted and batched), deletes.
    const now = new Date(created.at(-1)!.createdAt.getTime() + 1);
    await store.urls.update(created[5].id, { destination: "https://example.org/x" }, now);
    await store.urls.update(among[3].id, { vanity: null, password: "h", enabled: false }, now);
    await store.urls.update(older[0].id, { expiresAt: new Date(now.getTime() + 5000) }, now);
    await store.urls.view(created[7].id);
    await store.urls.addViews(among[9].id, 4);
    for (const url of [...created.slice(0, 20), ...among.slice(10, 40)]) {
      assert.ok(await store.urls.delete(url.id));
    }
    await assertChunks(store, ann.id, "edited, viewed, deleted");
    await assertChunks(store, bob.id, "bob's");
    // The user's deletion, its URLs removed or kept without it: no chunk left.
    await store.urls.orphanByUser(bob.id);
    assert.equal(await store.urls.deleteByUser(ann.id), 170);
    for (const owner of [ann.id, bob.id]) {
      const left = await Array.fromAsync(kvOf(store).list({ prefix: ["url_chunk", owner] }));
      assert.deepEqual(left, [], "no chunk of a user without URLs");
    }
  } finally {
    await store.close();
  }
});

Deno.test("kv URL chunks: concurrent creates of one owner race for a chunk and none is lost", async () => {
  const store = await openKvStore(":memory:");
  try {
    const ann = await storedUser(store);
    // The first chunk ever raced for, then a full one split under concurrent creates.
    const urls = Array.from({ length: 110 }, (_, i) => urlRecord(ann.id, `c${i}`));
    const results = await Promise.all(urls.map((u) => store.urls.create(u, null)));
    assert.ok(results.every(Boolean));
    const sizes = await assertChunks(store, ann.id, "concurrent creates");
    assert.equal(sizes.reduce((a, b) => a + b), 110);
    // Concurrent creates, edits and deletes.
    const more = Array.from({ length: 20 }, (_, i) => urlRecord(ann.id, `d${i}`));
    const at = new Date(more.at(-1)!.createdAt.getTime() + 1);
    await Promise.all([
      ...more.map((u) => store.urls.create(u, null)),
      ...urls.slice(0, 15).map((u) => store.urls.delete(u.id)),
      ...urls.slice(50, 60).map((u, i) =>
        store.urls.update(u.id, { destination: `https://example.net/${i}` }, at)
      ),
    ]);
    await assertChunks(store, ann.id, "concurrent writes");
  } finally {
    await store.close();
  }
});

Deno.test("kv URL chunks stay within a value's bytes: long and wide destinations", async () => {
  const store = await openKvStore(":memory:");
  try {
    const ann = await storedUser(store);
    const long = (i: number) =>
      urlRecord(ann.id, `l${i}`, {
        destination: `https://example.com/${(i % 3 ? "a" : "é€").repeat(4_000)}`,
        deviceDestinations: i % 2 ? { ios: `https://example.com/${"b".repeat(9_000)}` } : null,
      });
    for (let i = 0; i < 12; i++) assert.ok(await store.urls.create(long(i), null));
    await store.urls.createMany(Array.from({ length: 12 }, (_, i) => long(100 + i)));
    const sizes = await assertChunks(store, ann.id, "long");
    assert.ok(sizes.length > 3, "many chunks of few URLs");
  } finally {
    await store.close();
  }
});

Deno.test("kv schema 20 → 21: each owner's list copies packed in chunks, once, also after a stopped upgrade", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ferry-kv-schema-" });
  const path = join(dir, "ferry.kv");
  try {
    const store = await openKvStore(path);
    const [ann, bob] = [await storedUser(store), await storedUser(store)];
    // More URLs than three pages of the upgrade, two owners and some with none.
    const urls = Array.from(
      { length: 230 },
      (_, i) => urlRecord(i % 10 === 9 ? null : i % 3 ? ann.id : bob.id, `c${i}`, { views: i % 4 }),
    );
    await store.urls.createMany(urls);
    const kv = kvOf(store);
    // Schema 20 kept each owned URL's record (views 0) under its place in the owner's order.
    for await (const { key } of kv.list({ prefix: ["url_chunk"] })) await kv.delete(key);
    for (const url of urls) {
      if (url.userId === null) continue;
      await kv.set(["url_by_user_at", url.userId, url.createdAt.getTime(), url.id], {
        ...url,
        views: 0,
      });
    }
    // An upgrade stopped after its first page: that page's chunks written, its copies gone.
    const page = await Array.fromAsync(
      kv.list<UrlRecord>({ prefix: ["url_by_user_at"] }, { limit: 40 }),
    );
    const op = kv.atomic();
    await placeUrls(kv, op, page[0].value.userId!, { put: page.map((e) => e.value) });
    for (const { key } of page) op.delete(key);
    await op.set(["meta", "url_chunk_backfill"], page.at(-1)!.key)
      .set(["meta", "schema_version"], 20).commit();
    await store.close();

    const upgraded = await openKvStore(path);
    assert.equal(await upgraded.schemaVersion(), KV_SCHEMA_VERSION);
    for (const owner of [ann.id, bob.id]) await assertChunks(upgraded, owner, "upgraded");
    const left = await Array.fromAsync(kvOf(upgraded).list({ prefix: ["url_by_user_at"] }));
    assert.deepEqual(left, [], "the copies are gone");
    await upgraded.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
