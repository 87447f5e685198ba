/** The Store contract: one suite, run against Deno KV and PostgreSQL alike. */
import assert from "node:assert/strict";
import { newId, systemRandom } from "../../core/clock.ts";
import { newStoredToken } from "../../core/tokens.ts";
import { type SessionRecord, SIGN_IN_METHODS, type SignInMethod } from "../../db/sessions.ts";
import { UniqueError } from "../../db/errors.ts";
import { type ContractSteps, contractSuite, userRecord as user } from "../helpers/stores.ts";

function session(userId: string, ttl = 60_000, method: SignInMethod = "password"): SessionRecord {
  const now = Date.now();
  return {
    id: newId(systemRandom, Date.now()),
    userId,
    createdAt: new Date(now),
    expiresAt: new Date(now + ttl),
    lastSeenAt: new Date(now),
    method,
    client: "Firefox 140",
    device: "Linux",
    ua: "Mozilla/5.0",
  };
}

async function rejectsUnique(promise: Promise<unknown>, field: string) {
  await assert.rejects(promise, (e) => e instanceof UniqueError && e.field === field);
}

const steps: ContractSteps = {
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
    await store.users.create(u);
    assert.deepEqual(await store.users.get(u.id), u);
    assert.deepEqual(await store.users.getByUsername("alice"), u);
    assert.equal(await store.users.get("missing"), null);
    assert.equal(await store.users.getByUsername("Alice"), null);
  },

  "an avatar larger than a KV value is kept whole, changed, shrunk and deleted": async (store) => {
    const big = (c: string, kib: number) => "data:image/png;base64," + c.repeat(kib * 1024);
    const u = user("avatar", { avatar: big("A", 500) });
    await store.users.create(u);
    assert.deepEqual(await store.users.get(u.id), u);
    const now = new Date(2026, 0, 2);
    const renamed = await store.users.update(u.id, { username: "avatar2" }, now);
    assert.equal(renamed?.avatar, u.avatar);
    for (const avatar of [big("B", 200), big("C", 1), null, big("D", 300)]) {
      assert.equal((await store.users.update(u.id, { avatar }, now))?.avatar, avatar);
      assert.equal((await store.users.get(u.id))?.avatar, avatar);
      assert.equal((await store.users.list()).find((x) => x.id === u.id)?.avatar, avatar);
    }
    assert.equal((await store.users.delete(u.id))?.avatar, big("D", 300));
    assert.equal(await store.users.get(u.id), null);
  },

  "usernames and tokens are unique": async (store) => {
    const a = user("bob");
    await store.users.create(a);
    await rejectsUnique(store.users.create(user("bob")), "username");
    await rejectsUnique(store.users.create(user("bobby", { token: a.token })), "token");
    assert.equal((await store.users.list()).length, 1);
  },

  "concurrent creation of one username creates one user": async (store) => {
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => store.users.create(user("racer"))),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
    for (const r of results) {
      if (r.status === "rejected") assert.ok(r.reason instanceof UniqueError);
    }
    assert.equal((await store.users.list()).length, 1);
  },

  "createFirstUser wins once, even concurrently": async (store) => {
    assert.equal(await store.users.any(), false);
    const results = await Promise.all(
      ["a", "b", "c", "d"].map((name) => store.users.createFirst(user(name))),
    );
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal(await store.users.any(), true);
    assert.equal((await store.users.list()).length, 1);
    assert.equal(await store.users.createFirst(user("late")), false);
  },

  "createUser closes first setup": async (store) => {
    await store.users.create(user("cli-made"));
    assert.equal(await store.users.any(), true);
    assert.equal(await store.users.createFirst(user("setup")), false);
  },

  "listUsers is oldest first": async (store) => {
    for (const name of ["one", "two", "three"]) await store.users.create(user(name));
    assert.deepEqual((await store.users.list()).map((u) => u.username), ["one", "two", "three"]);
  },

  "updateUser changes fields, moves indexes and refuses clashes": async (store) => {
    const a = user("carol");
    const b = user("dave");
    await store.users.create(a);
    await store.users.create(b);
    const now = new Date(b.createdAt.getTime() + 5000);
    const token = newStoredToken(now.getTime(), systemRandom, a.id);
    const updated = await store.users.update(a.id, {
      username: "caroline",
      token,
      role: "ADMIN",
      totpSecret: "sealed",
      quota: null,
    }, now);
    assert.equal(updated!.username, "caroline");
    assert.deepEqual(updated!.updatedAt, now);
    assert.deepEqual(await store.users.get(a.id), updated);
    assert.equal(await store.users.getByUsername("carol"), null);
    assert.equal((await store.users.get(a.id))!.token, token);
    await store.users.create(user("reuses-old-token", { token: a.token }));
    await rejectsUnique(store.users.update(a.id, { username: "dave" }, now), "username");
    assert.equal((await store.users.get(a.id))!.username, "caroline");
    assert.equal((await store.users.getByUsername("dave"))!.id, b.id);
    assert.equal(await store.users.update("missing", { role: "ADMIN" }, now), null);
  },

  "deleteUser removes the user, its indexes and its sessions": async (store) => {
    const a = user("erin");
    await store.users.create(a);
    await store.sessions.create(session(a.id));
    const removed = await store.users.delete(a.id);
    assert.equal(removed!.id, a.id);
    assert.equal(await store.users.get(a.id), null);
    assert.equal(await store.users.getByUsername("erin"), null);
    await store.users.create(user("reuses-token", { token: a.token }));
    assert.deepEqual(await store.sessions.listByUser(a.id), []);
    assert.equal(await store.users.delete(a.id), null);
    await store.users.create(user("erin"));
  },

  "sessions: create, get, list, delete one, delete all but one": async (store) => {
    const a = user("frank");
    await store.users.create(a);
    const s1 = session(a.id);
    const s2 = session(a.id);
    const s3 = session(a.id);
    for (const s of [s1, s2, s3]) await store.sessions.create(s);
    assert.deepEqual(await store.sessions.get(s1.id), s1);
    assert.equal((await store.sessions.listByUser(a.id)).length, 3);
    await store.sessions.delete(s2.id);
    assert.equal(await store.sessions.get(s2.id), null);
    await store.sessions.deleteByUser(a.id, s1.id);
    assert.deepEqual((await store.sessions.listByUser(a.id)).map((s) => s.id), [s1.id]);
    await store.sessions.deleteByUser(a.id);
    assert.deepEqual(await store.sessions.listByUser(a.id), []);
  },

  "sessions: each keeps how it was signed in": async (store) => {
    const a = user("sigrid");
    await store.users.create(a);
    const made = SIGN_IN_METHODS.map((m) => session(a.id, 60_000, m));
    for (const s of made) await store.sessions.create(s);
    for (const s of made) assert.equal((await store.sessions.get(s.id))?.method, s.method);
    assert.deepEqual(
      (await store.sessions.listByUser(a.id)).map((s) => s.method).sort(),
      [...SIGN_IN_METHODS].sort(),
    );
  },
  "sessions: touchSession moves lastSeenAt and nothing else": async (store) => {
    const a = user("gwen");
    await store.users.create(a);
    const s1 = session(a.id);
    await store.sessions.create(s1);
    const later = new Date(s1.createdAt.getTime() + 600_000);
    await store.sessions.touch(s1.id, later);
    assert.deepEqual(await store.sessions.get(s1.id), { ...s1, lastSeenAt: later });
    assert.deepEqual(await store.sessions.listByUser(a.id), [{ ...s1, lastSeenAt: later }]);
    await store.sessions.delete(s1.id);
    await store.sessions.touch(s1.id, later);
    assert.equal(await store.sessions.get(s1.id), null);
  },

  "settings: partial writes keep other keys": async (store) => {
    assert.deepEqual(await store.settings.read(), {});
    await store.settings.update({ a: 1, b: "two", c: [1, 2], d: { x: true }, e: null });
    await store.settings.update({ a: 3 });
    assert.deepEqual(await store.settings.read(), {
      a: 3,
      b: "two",
      c: [1, 2],
      d: { x: true },
      e: null,
    });
  },

  "settings: each write bumps the version and adds its audit record atomically": async (store) => {
    const by = { userId: "u1", username: "root" };
    const first = await store.settings.update({ a: 1 }, {
      at: new Date(Date.UTC(2026, 0, 1)),
      ...by,
      changes: [{ key: "a", old: null, new: 1 }],
    });
    const second = await store.settings.update({ b: "x" });
    const third = await store.settings.update({ a: 2, c: [true] }, {
      at: new Date(Date.UTC(2026, 0, 2)),
      ...by,
      changes: [{ key: "a", old: 1, new: 2 }, { key: "c", old: null, new: [true] }],
    });
    assert.deepEqual([second - first, third - second], [1, 1]);
    const audit = await store.settings.listAudit({ limit: 10 });
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
      Array.from({ length: 6 }, (_, i) => store.settings.update({ [`k${i}`]: i })),
    );
    assert.equal(new Set(versions).size, 6);
    assert.equal(Object.keys(await store.settings.read()).length, 6);
  },

  "settings audit: newest first, limited, paged by id or by time": async (store) => {
    for (let day = 1; day <= 5; day++) {
      await store.settings.update({ n: day }, {
        at: new Date(Date.UTC(2026, 0, day)),
        userId: "u1",
        username: "root",
        changes: [{ key: "n", old: day - 1, new: day }],
      });
    }
    const all = await store.settings.listAudit({ limit: 10 });
    assert.deepEqual(all.map((r) => r.changes[0].new), [5, 4, 3, 2, 1]);
    const page = await store.settings.listAudit({ limit: 2 });
    assert.deepEqual(page.map((r) => r.changes[0].new), [5, 4]);
    const next = await store.settings.listAudit({ limit: 2, before: page[1].id });
    assert.deepEqual(next.map((r) => r.changes[0].new), [3, 2]);
    const byTime = await store.settings.listAudit({
      limit: 10,
      before: new Date(Date.UTC(2026, 0, 3)),
    });
    assert.deepEqual(byTime.map((r) => r.changes[0].new), [2, 1]);
  },

  "watchSettings reports a change within seconds, and stops": async (store) => {
    let calls = 0;
    const stop = store.settings.watch(() => calls++);
    try {
      await until(() => calls >= 1);
      const before = calls;
      await store.settings.update({ watched: true });
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
