/**
 * What the store keeps of a user's URLs beside their records (issue #32):
 * the URL count and views total behind `GET /api/user/stats`, and on Deno KV
 * the copies of each URL in its owner's oldest-first order that
 * `GET /api/user/urls` reads. They stay right through creates, views, edits,
 * deletes and an import, and the recount task sets right spoilt ones.
 */
import assert from "node:assert/strict";
import { recountFileStats } from "../../core/tasks/recount.ts";
import type { Backend } from "../../db/store.ts";
import type { UrlRecord } from "../../db/urls.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { urlRecord } from "../helpers/stores.ts";
import { fixture, importDoc } from "../helpers/transfer.ts";
import { type Actor, actor } from "../helpers/users.ts";

/** `owner`'s URLs as the records say, oldest first (the list's order). */
async function fromRecords(store: Backend, owner: string): Promise<UrlRecord[]> {
  const urls: UrlRecord[] = [];
  for await (const url of store.urls.iterate()) if (url.userId === owner) urls.push(url);
  return urls.sort((a, b) =>
    a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** What the list shows of a URL, for comparisons. */
const shown = (u: { id: string; destination: string; views: number; vanity: string | null }) => ({
  id: u.id,
  destination: u.destination,
  views: u.views,
  vanity: u.vanity,
});

/** Asserts the stats' URL rows and the URL list (whole and a page) of `who` against the records. */
async function assertRight(app: TestApp, who: Actor) {
  const stats = (await app.json("GET", "/api/user/stats", undefined, who.headers)).body;
  await app.services.store.urls.flushViews();
  const records = await fromRecords(app.backend, who.user.id);
  assert.equal(stats.urlsCreated, records.length, "urlsCreated");
  assert.equal(stats.urlViews, records.reduce((n, u) => n + u.views, 0), "urlViews");
  const list = await app.json("GET", "/api/user/urls", undefined, who.headers);
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.map(shown), records.map(shown));
  const page = await app.json("GET", "/api/user/urls?page=2&perpage=2", undefined, who.headers);
  assert.deepEqual(page.body.page.map(shown), records.slice(2, 4).map(shown));
  assert.equal(page.body.total, records.length);
}

/** A GET of a short link, not followed. */
const visit = (app: TestApp, name: string) => app.request(`/go/${name}`, { redirect: "manual" });

apiTest(
  "URL counters and list copies stay right through creates, views, edits, deletes and an import",
  async (app) => {
    const a = await actor(app, "SUPERADMIN", "root");
    const made = [];
    const limits: Record<string, string>[] = [{}, { "x-service-max-views": "5" }, {}, {}];
    for (const [i, headers] of limits.entries()) {
      app.clock.advance(1000);
      const res = await app.json("POST", "/api/user/urls", {
        destination: `https://example.com/${i}`,
      }, { ...a.headers, ...headers });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      made.push(res.body);
    }
    await assertRight(app, a);
    for (const url of [made[0], made[0], made[1], made[2]]) {
      assert.equal((await visit(app, url.code)).status, 302);
    }
    await assertRight(app, a);
    const patched = await app.json("PATCH", `/api/user/urls/${made[0].id}`, {
      destination: "https://example.org/moved",
      vanity: "moved",
    }, a.headers);
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal((await visit(app, "moved")).status, 302);
    await assertRight(app, a);
    assert.equal(
      (await app.json("DELETE", `/api/user/urls/${made[2].id}`, undefined, a.headers))
        .status,
      200,
    );
    await assertRight(app, a);
    const imported = await importDoc(app, "v4", await fixture("v4"), a.headers);
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    await assertRight(app, a);
    for (const user of await app.services.store.users.list()) {
      const records = await fromRecords(app.backend, user.id);
      assert.deepEqual(await app.services.store.urls.statsByUser(user.id), {
        urls: records.length,
        views: records.reduce((n, u) => n + u.views, 0),
      }, user.username);
      assert.deepEqual(
        (await app.services.store.urls.listByUser(user.id)).map(shown),
        records.map(shown),
        user.username,
      );
      assert.equal(await app.services.store.urls.recount(user.id), 0, "nothing to repair");
    }
  },
);

/** Spoils `owner`'s URL counters and list copies in the plain backend, as a change by hand would. */
async function spoil(store: Backend, owner: string, urls: UrlRecord[]): Promise<void> {
  if (store.kind === "kv") {
    const kv = (store as unknown as { kv: Deno.Kv }).kv;
    const second = urls[1];
    const at = (u: UrlRecord) => [owner, u.createdAt.getTime(), u.id];
    // The owner's one chunk (db/kv/url_chunks.ts): records as JSON tuples, [3] the
    // destination, [7] the creation time.
    const [chunk] = await Array.fromAsync(kv.list<string>({ prefix: ["url_chunk", owner] }));
    const tuples = JSON.parse(chunk.value) as unknown[][];
    tuples[0][3] = "https://wrong.example/";
    const stray = [...tuples[0]];
    stray[0] = "no-such-url";
    stray[7] = 1;
    // A copy of the third URL at the wrong place (a time it was not created at).
    const misplaced = [...tuples[2]];
    misplaced[7] = 2;
    await kv.atomic()
      .set(["url_views_total", owner], new Deno.KvU64(99n))
      .set(["url_count", owner], 7)
      .set(chunk.key, JSON.stringify([stray, misplaced, ...tuples]))
      .delete(["url_by_user_at_views", ...at(second)])
      .set(["url_by_user_at_views", owner, 1, "no-such-url"], new Deno.KvU64(3n))
      .commit();
  }
  // PostgreSQL keeps no URL counters (it aggregates): nothing to spoil.
}

apiTest("the recount task sets right spoilt URL counters and list copies", async (app) => {
  const a = await actor(app, "USER");
  for (const i of [0, 1, 2, 3]) {
    app.clock.advance(1000);
    const res = await app.json("POST", "/api/user/urls", {
      destination: `https://example.com/${i}`,
    }, a.headers);
    assert.equal((await visit(app, res.body.code)).status, 302);
  }
  const right = async () => ({
    stats: (await app.json("GET", "/api/user/stats", undefined, a.headers)).body,
    list: (await app.json("GET", "/api/user/urls", undefined, a.headers)).body,
  });
  const before = await right();
  assert.equal(before.stats.urlViews, 4);
  await app.services.store.urls.flushViews();
  await spoil(app.backend, a.user.id, await fromRecords(app.backend, a.user.id));
  if (app.backend.kind === "kv") assert.notDeepEqual(await right(), before, "spoilt");
  let repaired = 0;
  for (let pass = 0; pass < 4; pass++) repaired += await recountFileStats(app.services);
  if (app.backend.kind === "kv") assert.equal(repaired, 7, "total, count, 2 copies, 3 strays");
  else assert.equal(repaired, 0);
  assert.deepEqual(await right(), before);
  await assertRight(app, a);
});

apiTest(
  "URL counters stay right through concurrent views, batched views, edits and deletes",
  async (app) => {
    const a = await actor(app, "USER");
    const store = app.backend.urls;
    const urls = [0, 1, 2, 3, 4].map((i) => {
      app.clock.advance(1000);
      return urlRecord(a.user.id, `race${i}`, { maxViews: i === 1 ? 6 : null });
    });
    for (const url of urls) assert.equal(await store.create(url, null), true);
    const [u0, u1, u2, u3, u4] = urls;
    await Promise.all([
      ...Array.from({ length: 8 }, () => store.view(u0.id)),
      ...Array.from({ length: 8 }, () => store.view(u1.id)), // 6 counted, at its limit
      ...Array.from({ length: 4 }, (_, i) => store.addViews(u2.id, i + 1)),
      ...Array.from({ length: 4 }, () => store.view(u3.id)),
      store.delete(u3.id),
      store.update(u4.id, { destination: "https://example.org/edited" }, new Date(app.clock.now())),
      store.addViews(u4.id, 5),
    ]);
    const records = await fromRecords(app.backend, a.user.id);
    assert.deepEqual(records.map((u) => u.views).slice(0, 3), [8, 6, 10]);
    assert.deepEqual(await store.statsByUser(a.user.id), {
      urls: records.length,
      views: records.reduce((n, u) => n + u.views, 0),
    });
    assert.deepEqual((await store.listByUser(a.user.id)).map(shown), records.map(shown));
    assert.equal(await store.recount(a.user.id), 0, "nothing to repair");
  },
);
