/** The URL and invite stores' contract: one suite, run against Deno KV and PostgreSQL alike. */
import assert from "node:assert/strict";
import { newId, randomString, systemRandom } from "../../core/clock.ts";
import type { InviteRecord } from "../../db/invites.ts";
import { UniqueError } from "../../db/errors.ts";
import {
  type ContractSteps,
  contractSuite,
  storedUser as owner,
  urlRecord as url,
} from "../helpers/stores.ts";

let tick = Date.UTC(2026, 0, 1);

function invite(inviterId: string, extra: Partial<InviteRecord> = {}): InviteRecord {
  const at = new Date(tick += 1000);
  return {
    id: newId(systemRandom, Date.now()),
    code: randomString(systemRandom, 8),
    expiresAt: null,
    uses: 0,
    maxUses: null,
    inviterId,
    createdAt: at,
    updatedAt: at,
    ...extra,
  };
}

async function rejectsUnique(promise: Promise<unknown>, field: string) {
  await assert.rejects(promise, (e) => e instanceof UniqueError && e.field === field);
}

const steps: ContractSteps = {
  "urls round-trip every field; found by id, code and vanity": async (store) => {
    const u = await owner(store);
    const full = url(u.id, "abc", {
      vanity: "Nice",
      maxViews: 4,
      password: "$argon2id$hash",
      enabled: false,
      views: 2,
      expiresAt: new Date(Date.UTC(2030, 0, 1)),
      deviceDestinations: { ios: "https://apps.example/ios", desktop: "https://example.com/d" },
      forwardQuery: true,
    });
    assert.equal(await store.urls.create(full, null), true);
    assert.deepEqual(await store.urls.get(full.id), full);
    assert.deepEqual(await store.urls.getByName("abc"), full);
    assert.deepEqual(await store.urls.getByName("Nice"), full);
    assert.equal(await store.urls.getByName("nice"), null);
    assert.equal(await store.urls.get("missing"), null);
  },

  "expiredBy: URLs by expiry, soonest first, up to a limit; updates and deletes move them": async (
    store,
  ) => {
    const u = await owner(store);
    const at = (day: number) => new Date(Date.UTC(2027, 0, day));
    const soon = url(u.id, "soon", { expiresAt: at(2) });
    const sooner = url(u.id, "sooner", { expiresAt: at(1) });
    const later = url(u.id, "later", { expiresAt: at(5) });
    const never = url(u.id, "never");
    await store.urls.createMany([soon, never]);
    for (const record of [sooner, later]) await store.urls.create(record, null);
    const codes = async (by: Date, limit = 10) =>
      (await store.urls.expiredBy(by, limit)).map((x) => x.code);
    assert.deepEqual(await codes(at(2)), ["sooner", "soon"]);
    assert.deepEqual(await codes(at(2), 1), ["sooner"]);
    assert.deepEqual(await codes(at(9)), ["sooner", "soon", "later"]);
    assert.equal((await store.urls.expiredBy(at(1), 1))[0].expiresAt?.getTime(), at(1).getTime());

    await store.urls.update(later.id, { expiresAt: at(1) }, at(1));
    await store.urls.update(sooner.id, { expiresAt: null }, at(1));
    await store.urls.update(never.id, { expiresAt: at(3) }, at(1));
    assert.deepEqual((await codes(at(9))).sort(), ["later", "never", "soon"]);
    assert.deepEqual(await codes(at(2)), ["later", "soon"]);
    await store.urls.delete(soon.id);
    assert.deepEqual(await codes(at(9)), ["later", "never"]);
  },

  "exhausted: the URLs at their view limit, in id order, up to a limit; updates, views and deletes move them":
    async (store) => {
      const u = await owner(store);
      const spent = url(u.id, "spent", { maxViews: 2, views: 2 });
      const over = url(u.id, "over", { maxViews: 1, views: 3 });
      const fresh = url(u.id, "fresh", { maxViews: 2, views: 0 });
      const open = url(u.id, "open", { views: 9 });
      await store.urls.createMany([spent, open]);
      for (const record of [over, fresh]) await store.urls.create(record, null);
      const codes = async (limit = 10) =>
        (await store.urls.exhausted(limit)).map((x) => x.code).sort();
      assert.deepEqual(await codes(), ["over", "spent"]);
      assert.equal((await store.urls.exhausted(1)).length, 1);

      assert.equal((await store.urls.view(fresh.id))?.counted, true);
      assert.equal((await store.urls.view(fresh.id))?.counted, true);
      assert.deepEqual(await codes(), ["fresh", "over", "spent"]);
      await store.urls.update(spent.id, { maxViews: null }, new Date(tick += 1000));
      await store.urls.update(open.id, { maxViews: 5 }, new Date(tick += 1000));
      assert.deepEqual(await codes(), ["fresh", "open", "over"]);
      await store.urls.delete(over.id);
      assert.deepEqual(await codes(), ["fresh", "open"]);
    },

  "codes and vanities share one namespace": async (store) => {
    const u = await owner(store);
    await store.urls.create(url(u.id, "one", { vanity: "van" }), null);
    await rejectsUnique(store.urls.create(url(u.id, "one"), null), "code");
    await rejectsUnique(store.urls.create(url(u.id, "van"), null), "code");
    await rejectsUnique(store.urls.create(url(u.id, "two", { vanity: "one" }), null), "vanity");
    await rejectsUnique(store.urls.create(url(u.id, "two", { vanity: "van" }), null), "vanity");
    assert.equal(await store.urls.countByUser(u.id), 1);
    const racers = await Promise.allSettled(
      Array.from(
        { length: 6 },
        (_, i) => store.urls.create(url(u.id, `r${i}`, { vanity: "hot" }), null),
      ),
    );
    assert.equal(racers.filter((r) => r.status === "fulfilled").length, 1);
  },

  "maxUrls: creates stop at the limit, also concurrently; deletes free a slot": async (store) => {
    const u = await owner(store);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.urls.create(url(u.id, `c${i}`), 3)),
    );
    assert.equal(results.filter(Boolean).length, 3);
    assert.equal(await store.urls.countByUser(u.id), 3);
    const [first] = await store.urls.listByUser(u.id);
    assert.equal((await store.urls.delete(first.id))?.id, first.id);
    assert.equal(await store.urls.delete(first.id), null);
    assert.equal(await store.urls.countByUser(u.id), 2);
    assert.equal(await store.urls.create(url(u.id, "again"), 3), true);
    assert.equal(await store.urls.create(url(u.id, "over"), 3), false);
    assert.equal(await store.urls.getByName("over"), null);
  },

  "update: fields, vanity moves in the namespace, clashes refused": async (store) => {
    const u = await owner(store);
    const a = url(u.id, "aaa", { vanity: "old" });
    const b = url(u.id, "bbb");
    await store.urls.create(a, null);
    await store.urls.create(b, null);
    const now = new Date(tick += 1000);
    const updated = await store.urls.update(a.id, {
      vanity: "new",
      destination: "https://new.example/",
      maxViews: 9,
      password: null,
      enabled: false,
    }, now);
    assert.deepEqual(updated, {
      ...a,
      vanity: "new",
      destination: "https://new.example/",
      maxViews: 9,
      enabled: false,
      updatedAt: now,
    });
    assert.equal(await store.urls.getByName("old"), null);
    assert.equal((await store.urls.getByName("new"))?.id, a.id);
    await rejectsUnique(store.urls.update(b.id, { vanity: "new" }, now), "vanity");
    await rejectsUnique(store.urls.update(b.id, { vanity: "aaa" }, now), "vanity");
    assert.equal((await store.urls.update(b.id, { vanity: "old" }, now))?.vanity, "old");
    assert.equal(await store.urls.update("missing", { enabled: true }, now), null);
  },

  "view: counts, stops at maxViews exactly, also concurrently": async (store) => {
    const u = await owner(store);
    const free = url(u.id, "free");
    const capped = url(u.id, "capped", { maxViews: 4 });
    await store.urls.create(free, null);
    await store.urls.create(capped, null);
    await Promise.all(Array.from({ length: 10 }, () => store.urls.view(free.id)));
    assert.equal((await store.urls.get(free.id))?.views, 10);
    const views = await Promise.all(Array.from({ length: 10 }, () => store.urls.view(capped.id)));
    assert.equal(views.filter((v) => v?.counted).length, 4);
    assert.equal((await store.urls.get(capped.id))?.views, 4);
    assert.equal(await store.urls.view("missing"), null);
  },

  "addViews: added without a maxViews check; a missing URL is no error": async (store) => {
    const u = await owner(store);
    const capped = url(u.id, "capped", { views: 2, maxViews: 3 });
    await store.urls.create(capped, null);
    await store.urls.addViews(capped.id, 5);
    assert.equal((await store.urls.get(capped.id))?.views, 7);
    await store.urls.addViews("missing", 1);
    assert.equal(await store.urls.get("missing"), null);
  },

  "listByUser, deleteByUser and orphanByUser": async (store) => {
    const a = await owner(store);
    const b = await owner(store);
    const a1 = url(a.id, "a1", { vanity: "av" });
    const a2 = url(a.id, "a2");
    const b1 = url(b.id, "b1");
    for (const x of [a1, a2, b1]) await store.urls.create(x, null);
    assert.deepEqual((await store.urls.listByUser(a.id)).map((x) => x.id), [a1.id, a2.id]);
    assert.equal(await store.urls.deleteByUser(a.id), 2);
    assert.equal(await store.urls.getByName("av"), null);
    assert.equal(await store.urls.countByUser(a.id), 0);
    assert.equal(await store.urls.orphanByUser(b.id), 1);
    assert.equal((await store.urls.get(b1.id))?.userId, null);
    assert.deepEqual(await store.urls.listByUser(b.id), []);
    assert.equal((await store.urls.getByName("b1"))?.id, b1.id);
  },

  "pageByUser: pages oldest first through creates, imports, deletes and orphaning": async (
    store,
  ) => {
    const a = await owner(store);
    const b = await owner(store);
    const base = Date.UTC(2026, 3, 1);
    // Created out of age order, two of the same age, some imported, one of another user.
    const urls = [5, 1, 3, 3, 0, 4, 2].map((age, i) =>
      url(a.id, `p${i}`, { createdAt: new Date(base + age * 1000), views: i })
    );
    for (const x of urls.slice(0, 4)) await store.urls.create(x, null);
    await store.urls.createMany([...urls.slice(4), url(b.id, "pb")]);
    await store.urls.view(urls[0].id);
    const ids = async (offset: number, limit: number) => {
      const page = await store.urls.pageByUser(a.id, offset, limit);
      return { ids: page.urls.map((x) => x.id), total: page.total };
    };
    const all = (await store.urls.listByUser(a.id)).map((x) => x.id);
    assert.deepEqual(all.length, 7);
    assert.deepEqual(await ids(0, 3), { ids: all.slice(0, 3), total: 7 });
    assert.deepEqual(await ids(3, 3), { ids: all.slice(3, 6), total: 7 });
    assert.deepEqual(await ids(6, 3), { ids: all.slice(6), total: 7 });
    assert.deepEqual(await ids(9, 3), { ids: [], total: 7 });
    assert.equal(all[0], urls[4].id, "the oldest first");
    const viewed = (await store.urls.pageByUser(a.id, 6, 1)).urls[0];
    assert.deepEqual([viewed.id, viewed.views], [urls[0].id, 1], "with its views");
    await store.urls.delete(urls[4].id);
    assert.deepEqual(await ids(0, 2), { ids: all.slice(1, 3), total: 6 });
    await store.urls.orphanByUser(a.id);
    assert.deepEqual(await ids(0, 10), { ids: [], total: 0 });
    assert.deepEqual((await store.urls.pageByUser(b.id, 0, 10)).total, 1);
  },

  "statsByUser: counts a user's URLs and sums their views, imported and counted": async (store) => {
    const a = await owner(store);
    const b = await owner(store);
    assert.deepEqual(await store.urls.statsByUser(a.id), { urls: 0, views: 0 });
    const urls = Array.from({ length: 12 }, (_, i) => url(a.id, `s${i}`, { views: i }));
    for (const x of [...urls, url(b.id, "other", { views: 100 })]) await store.urls.create(x, null);
    await store.urls.view(urls[0].id);
    await store.urls.view(urls[11].id);
    assert.deepEqual(await store.urls.statsByUser(a.id), { urls: 12, views: 66 + 2 });
    await store.urls.delete(urls[11].id);
    assert.deepEqual(await store.urls.statsByUser(a.id), { urls: 11, views: 56 });
    assert.deepEqual(await store.urls.statsByUser(b.id), { urls: 1, views: 100 });
  },

  "statsByUser(null): the URLs without an owner, through imports, orphaning, views and deletes":
    async (store) => {
      // Measured as a change: other steps may leave URLs without an owner in the store.
      const before = await store.urls.statsByUser(null);
      const moved = async () => {
        const now = await store.urls.statsByUser(null);
        return { urls: now.urls - before.urls, views: now.views - before.views };
      };
      const a = await owner(store);
      const created = url(null, "n0", { views: 3 });
      await store.urls.create(created, null);
      await store.urls.createMany([url(null, "n1", { views: 4 }), url(a.id, "n2", { views: 5 })]);
      assert.deepEqual(await moved(), { urls: 2, views: 7 });
      const owned = [url(a.id, "n3", { views: 1 }), url(a.id, "n4", { maxViews: 9 })];
      for (const x of owned) await store.urls.create(x, null);
      await store.urls.view(owned[1].id);
      assert.equal(await store.urls.orphanByUser(a.id), 3);
      assert.deepEqual(await moved(), { urls: 5, views: 7 + 5 + 1 + 1 });
      assert.deepEqual(await store.urls.statsByUser(a.id), { urls: 0, views: 0 });
      await store.urls.view(created.id);
      await store.urls.view(owned[1].id);
      await store.urls.addViews(owned[0].id, 2);
      assert.deepEqual(await moved(), { urls: 5, views: 14 + 4 });
      await store.urls.delete(created.id);
      await store.urls.delete(owned[1].id);
      assert.deepEqual(await moved(), { urls: 3, views: 18 - 4 - 2 });
      assert.equal(await store.urls.recount(null), 0, "nothing to repair");
    },

  "invites: round-trip, unique codes, delete, deleteByInviter": async (store) => {
    const u = await owner(store);
    const full = invite(u.id, { expiresAt: new Date(tick + 60_000), maxUses: 3, uses: 1 });
    await store.invites.create(full);
    assert.deepEqual(await store.invites.get(full.id), full);
    assert.deepEqual(await store.invites.getByCode(full.code), full);
    await rejectsUnique(store.invites.create(invite(u.id, { code: full.code })), "code");
    const other = invite(u.id);
    await store.invites.create(other);
    assert.deepEqual((await store.invites.list()).map((i) => i.id), [full.id, other.id]);
    assert.deepEqual(await store.invites.delete(other.id), other);
    assert.equal(await store.invites.delete(other.id), null);
    assert.equal(await store.invites.getByCode(other.code), null);
    assert.equal(await store.invites.deleteByInviter(u.id), 1);
    assert.deepEqual(await store.invites.list(), []);
  },

  "invites: use honours expiry and maxUses exactly, also concurrently; release": async (store) => {
    const u = await owner(store);
    const now = new Date(tick += 1000);
    const capped = invite(u.id, { maxUses: 3 });
    const expiring = invite(u.id, { expiresAt: new Date(now.getTime() + 1000) });
    await store.invites.create(capped);
    await store.invites.create(expiring);
    const uses = await Promise.all(
      Array.from({ length: 8 }, () => store.invites.use(capped.id, now)),
    );
    assert.equal(uses.filter(Boolean).length, 3);
    assert.equal((await store.invites.get(capped.id))?.uses, 3);
    await store.invites.release(capped.id);
    assert.equal((await store.invites.use(capped.id, now))?.uses, 3);
    assert.equal((await store.invites.use(expiring.id, now))?.uses, 1);
    assert.equal(await store.invites.use(expiring.id, new Date(now.getTime() + 1000)), null);
    assert.equal(await store.invites.use("missing", now), null);
  },
};

contractSuite("url and invite store contract", steps);
