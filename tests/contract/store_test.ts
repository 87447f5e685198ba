/** The Store contract: one suite, run against Deno KV and PostgreSQL alike. */
import assert from "node:assert/strict";
import { newId, systemRandom } from "../../core/clock.ts";
import { newStoredToken } from "../../core/tokens.ts";
import { type SessionRecord, type UserRecord } from "../../db/store.ts";
import { UniqueError } from "../../db/errors.ts";
import { type ContractSteps, contractSuite } from "../helpers/stores.ts";

let tick = Date.UTC(2026, 0, 1);

function user(username: string, extra: Partial<UserRecord> = {}): UserRecord {
  const at = new Date(tick += 1000);
  return {
    id: newId(systemRandom, Date.now()),
    username,
    password: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
    role: "USER",
    avatar: null,
    token: newStoredToken(at.getTime(), systemRandom, "u"),
    totpSecret: null,
    view: { enabled: false },
    quota: null,
    createdAt: at,
    updatedAt: at,
    ...extra,
  };
}

function session(userId: string, ttl = 60_000): SessionRecord {
  const now = Date.now();
  return {
    id: newId(systemRandom, Date.now()),
    userId,
    createdAt: new Date(now),
    expiresAt: new Date(now + ttl),
    lastSeenAt: new Date(now),
    client: "Firefox 140",
    device: "Linux",
    ua: "Mozilla/5.0",
  };
}

async function rejectsUnique(promise: Promise<unknown>, field: string) {
  await assert.rejects(promise, (e) => e instanceof UniqueError && e.field === field);
}

const steps: ContractSteps = {
  "rate limits: counts to max, refuses past it, windows are separate": async (store) => {
    const start = Math.floor(Date.now() / 60_000) * 60_000;
    const hits = [];
    for (let i = 0; i < 4; i++) hits.push(await store.rateLimits.hit("k", start, 60_000, 3));
    assert.deepEqual(hits, [
      { allowed: true, count: 1 },
      { allowed: true, count: 2 },
      { allowed: true, count: 3 },
      { allowed: false, count: 3 },
    ]);
    assert.deepEqual(await store.rateLimits.hit("other", start, 60_000, 3), {
      allowed: true,
      count: 1,
    });
    assert.deepEqual(await store.rateLimits.hit("k", start + 60_000, 60_000, 3), {
      allowed: true,
      count: 1,
    });
    const racers = await Promise.all(
      Array.from({ length: 10 }, () => store.rateLimits.hit("race", start, 60_000, 4)),
    );
    assert.equal(racers.filter((h) => h.allowed).length, 4);
    assert.equal(await store.rateLimits.sweep(start + 60_001), 3);
    assert.deepEqual(await store.rateLimits.hit("k", start, 60_000, 3), {
      allowed: true,
      count: 1,
    });
  },

  "rate limits: a burst over many windows counts each one exactly": async (store) => {
    const start = Math.floor(Date.now() / 60_000) * 60_000;
    const keys = Array.from({ length: 25 }, (_, i) => `burst${i}`);
    const burst = await Promise.all(
      Array.from({ length: 250 }, (_, i) => store.rateLimits.hit(keys[i % 25], start, 60_000, 7)),
    );
    for (const [k, key] of keys.entries()) {
      const mine = burst.filter((_, i) => i % 25 === k);
      assert.deepEqual(
        mine.filter((h) => h.allowed).map((h) => h.count).sort((a, b) => a - b),
        [1, 2, 3, 4, 5, 6, 7],
        key,
      );
    }
    assert.deepEqual(await store.rateLimits.hit("burst0", start, 60_000, 8), {
      allowed: true,
      count: 8,
    });
  },

  "ping and schema version": async (store) => {
    await store.ping();
    assert.ok(await store.schemaVersion() >= 1);
  },

  "users round-trip every field": async (store) => {
    const u = user("alice", {
      role: "ADMIN",
      avatar: "data:image/png;base64,AAAA",
      view: { enabled: true, embedColor: "#ff0000" },
      quota: { id: "q1", filesQuota: "BY_BYTES", maxBytes: "1gb", maxFiles: null, maxUrls: 5 },
    });
    await store.createUser(u);
    assert.deepEqual(await store.getUser(u.id), u);
    assert.deepEqual(await store.getUserByUsername("alice"), u);
    assert.equal(await store.getUser("missing"), null);
    assert.equal(await store.getUserByUsername("Alice"), null);
  },

  "an avatar larger than a KV value is kept whole, changed, shrunk and deleted": async (store) => {
    const big = (c: string, kib: number) => "data:image/png;base64," + c.repeat(kib * 1024);
    const u = user("avatar", { avatar: big("A", 500) });
    await store.createUser(u);
    assert.deepEqual(await store.getUser(u.id), u);
    const now = new Date(2026, 0, 2);
    const renamed = await store.updateUser(u.id, { username: "avatar2" }, now);
    assert.equal(renamed?.avatar, u.avatar);
    for (const avatar of [big("B", 200), big("C", 1), null, big("D", 300)]) {
      assert.equal((await store.updateUser(u.id, { avatar }, now))?.avatar, avatar);
      assert.equal((await store.getUser(u.id))?.avatar, avatar);
      assert.equal((await store.listUsers()).find((x) => x.id === u.id)?.avatar, avatar);
    }
    assert.equal((await store.deleteUser(u.id))?.avatar, big("D", 300));
    assert.equal(await store.getUser(u.id), null);
  },

  "cached user reads show every user write through the store at once": async (store) => {
    const u = user("cached");
    assert.equal(await store.getUserCached(u.id), null);
    await store.createUser(u);
    assert.deepEqual(await store.getUserCached(u.id), u);
    const copy = (await store.getUserCached(u.id))!;
    copy.role = "SUPERADMIN";
    assert.equal((await store.getUserCached(u.id))?.role, "USER");
    const token = newStoredToken(Date.now(), systemRandom, "u");
    await store.updateUser(u.id, { role: "ADMIN", token }, new Date(2026, 0, 2));
    assert.deepEqual(
      [(await store.getUserCached(u.id))?.role, (await store.getUserCached(u.id))?.token],
      ["ADMIN", token],
    );
    assert.equal((await store.listUsersCached()).find((x) => x.id === u.id)?.role, "ADMIN");
    await store.deleteUser(u.id);
    assert.equal(await store.getUserCached(u.id), null);
    assert.equal((await store.listUsersCached()).some((x) => x.id === u.id), false);
  },

  "a transaction's user writes reach the cached reads at once": async (store) => {
    const u = user("cached-tx");
    await store.createUser(u);
    assert.equal((await store.getUserCached(u.id))?.role, "USER");
    await store.transaction((tx) => tx.updateUser(u.id, { role: "ADMIN" }, new Date(2026, 0, 2)));
    assert.equal((await store.getUserCached(u.id))?.role, "ADMIN");
  },

  "usernames and tokens are unique": async (store) => {
    const a = user("bob");
    await store.createUser(a);
    await rejectsUnique(store.createUser(user("bob")), "username");
    await rejectsUnique(store.createUser(user("bobby", { token: a.token })), "token");
    assert.equal((await store.listUsers()).length, 1);
  },

  "concurrent creation of one username creates one user": async (store) => {
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => store.createUser(user("racer"))),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
    for (const r of results) {
      if (r.status === "rejected") assert.ok(r.reason instanceof UniqueError);
    }
    assert.equal((await store.listUsers()).length, 1);
  },

  "createFirstUser wins once, even concurrently": async (store) => {
    assert.equal(await store.hasUsers(), false);
    const results = await Promise.all(
      ["a", "b", "c", "d"].map((name) => store.createFirstUser(user(name))),
    );
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal(await store.hasUsers(), true);
    assert.equal((await store.listUsers()).length, 1);
    assert.equal(await store.createFirstUser(user("late")), false);
  },

  "createUser closes first setup": async (store) => {
    await store.createUser(user("cli-made"));
    assert.equal(await store.hasUsers(), true);
    assert.equal(await store.createFirstUser(user("setup")), false);
  },

  "listUsers is oldest first": async (store) => {
    for (const name of ["one", "two", "three"]) await store.createUser(user(name));
    assert.deepEqual((await store.listUsers()).map((u) => u.username), ["one", "two", "three"]);
  },

  "updateUser changes fields, moves indexes and refuses clashes": async (store) => {
    const a = user("carol");
    const b = user("dave");
    await store.createUser(a);
    await store.createUser(b);
    const now = new Date(tick += 5000);
    const token = newStoredToken(now.getTime(), systemRandom, a.id);
    const updated = await store.updateUser(a.id, {
      username: "caroline",
      token,
      role: "ADMIN",
      totpSecret: "sealed",
      quota: null,
    }, now);
    assert.equal(updated!.username, "caroline");
    assert.deepEqual(updated!.updatedAt, now);
    assert.deepEqual(await store.getUser(a.id), updated);
    assert.equal(await store.getUserByUsername("carol"), null);
    assert.equal((await store.getUser(a.id))!.token, token);
    await store.createUser(user("reuses-old-token", { token: a.token }));
    await rejectsUnique(store.updateUser(a.id, { username: "dave" }, now), "username");
    assert.equal((await store.getUser(a.id))!.username, "caroline");
    assert.equal((await store.getUserByUsername("dave"))!.id, b.id);
    assert.equal(await store.updateUser("missing", { role: "ADMIN" }, now), null);
  },

  "deleteUser removes the user, its indexes and its sessions": async (store) => {
    const a = user("erin");
    await store.createUser(a);
    await store.createSession(session(a.id));
    const removed = await store.deleteUser(a.id);
    assert.equal(removed!.id, a.id);
    assert.equal(await store.getUser(a.id), null);
    assert.equal(await store.getUserByUsername("erin"), null);
    await store.createUser(user("reuses-token", { token: a.token }));
    assert.deepEqual(await store.listSessions(a.id), []);
    assert.equal(await store.deleteUser(a.id), null);
    await store.createUser(user("erin"));
  },

  "sessions: create, get, list, delete one, delete all but one": async (store) => {
    const a = user("frank");
    await store.createUser(a);
    const s1 = session(a.id);
    const s2 = session(a.id);
    const s3 = session(a.id);
    for (const s of [s1, s2, s3]) await store.createSession(s);
    assert.deepEqual(await store.getSession(s1.id), s1);
    assert.equal((await store.listSessions(a.id)).length, 3);
    await store.deleteSession(s2.id);
    assert.equal(await store.getSession(s2.id), null);
    await store.deleteUserSessions(a.id, s1.id);
    assert.deepEqual((await store.listSessions(a.id)).map((s) => s.id), [s1.id]);
    await store.deleteUserSessions(a.id);
    assert.deepEqual(await store.listSessions(a.id), []);
  },

  "sessions: touchSession moves lastSeenAt and nothing else": async (store) => {
    const a = user("gwen");
    await store.createUser(a);
    const s1 = session(a.id);
    await store.createSession(s1);
    const later = new Date(s1.createdAt.getTime() + 600_000);
    await store.touchSession(s1.id, later);
    assert.deepEqual(await store.getSession(s1.id), { ...s1, lastSeenAt: later });
    assert.deepEqual(await store.listSessions(a.id), [{ ...s1, lastSeenAt: later }]);
    await store.deleteSession(s1.id);
    await store.touchSession(s1.id, later);
    assert.equal(await store.getSession(s1.id), null);
  },

  "settings: partial writes keep other keys": async (store) => {
    assert.deepEqual(await store.getSettings(), {});
    await store.updateSettings({ a: 1, b: "two", c: [1, 2], d: { x: true }, e: null });
    await store.updateSettings({ a: 3 });
    assert.deepEqual(await store.getSettings(), {
      a: 3,
      b: "two",
      c: [1, 2],
      d: { x: true },
      e: null,
    });
  },

  "settings: each write bumps the version and adds its audit record atomically": async (store) => {
    const by = { userId: "u1", username: "root" };
    const first = await store.updateSettings({ a: 1 }, {
      at: new Date(Date.UTC(2026, 0, 1)),
      ...by,
      changes: [{ key: "a", old: null, new: 1 }],
    });
    const second = await store.updateSettings({ b: "x" });
    const third = await store.updateSettings({ a: 2, c: [true] }, {
      at: new Date(Date.UTC(2026, 0, 2)),
      ...by,
      changes: [{ key: "a", old: 1, new: 2 }, { key: "c", old: null, new: [true] }],
    });
    assert.deepEqual([second - first, third - second], [1, 1]);
    const audit = await store.listSettingsAudit({ limit: 10 });
    assert.deepEqual(audit, [
      {
        id: third,
        at: new Date(Date.UTC(2026, 0, 2)),
        ...by,
        changes: [{ key: "a", old: 1, new: 2 }, { key: "c", old: null, new: [true] }],
      },
      {
        id: first,
        at: new Date(Date.UTC(2026, 0, 1)),
        ...by,
        changes: [{ key: "a", old: null, new: 1 }],
      },
    ]);
  },

  "settings: concurrent writes get distinct versions": async (store) => {
    const versions = await Promise.all(
      Array.from({ length: 6 }, (_, i) => store.updateSettings({ [`k${i}`]: i })),
    );
    assert.equal(new Set(versions).size, 6);
    assert.equal(Object.keys(await store.getSettings()).length, 6);
  },

  "settings audit: newest first, limited, paged by id or by time": async (store) => {
    for (let day = 1; day <= 5; day++) {
      await store.updateSettings({ n: day }, {
        at: new Date(Date.UTC(2026, 0, day)),
        userId: "u1",
        username: "root",
        changes: [{ key: "n", old: day - 1, new: day }],
      });
    }
    const all = await store.listSettingsAudit({ limit: 10 });
    assert.deepEqual(all.map((r) => r.changes[0].new), [5, 4, 3, 2, 1]);
    const page = await store.listSettingsAudit({ limit: 2 });
    assert.deepEqual(page.map((r) => r.changes[0].new), [5, 4]);
    const next = await store.listSettingsAudit({ limit: 2, before: page[1].id });
    assert.deepEqual(next.map((r) => r.changes[0].new), [3, 2]);
    const byTime = await store.listSettingsAudit({
      limit: 10,
      before: new Date(Date.UTC(2026, 0, 3)),
    });
    assert.deepEqual(byTime.map((r) => r.changes[0].new), [2, 1]);
  },

  "watchSettings reports a change within seconds, and stops": async (store) => {
    let calls = 0;
    const stop = store.watchSettings(() => calls++);
    try {
      await until(() => calls >= 1);
      const before = calls;
      await store.updateSettings({ watched: true });
      await until(() => calls > before);
    } finally {
      stop();
    }
  },
};

/** Waits until `done()` holds, checking every 20 ms; fails after 5 seconds. */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

contractSuite("store contract", steps);
