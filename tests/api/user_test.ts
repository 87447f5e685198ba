/** The current user: GET /api/user, /api/user/me and PATCH /api/user. */
import assert from "node:assert/strict";
import postgres from "postgres";
import { tokenFor } from "../../core/account.ts";
import { sha256 } from "../../core/secrets.ts";
import {
  clientFromUserAgent,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  startSession,
} from "../../core/sessions.ts";
import { createUser } from "../../core/users.ts";
import type { SignInMethod } from "../../db/sessions.ts";
import type { UserRecord } from "../../db/users.ts";
import { apiTest, sessionCookie, type TestApp } from "../helpers/app.ts";
import { actor } from "../helpers/users.ts";

apiTest("GET /api/user and /api/user/me show the user without secrets", async (app) => {
  const bob = await actor(app, "USER", "bob");
  for (const path of ["/api/user", "/api/user/me"]) {
    const res = await app.json("GET", path, undefined, bob.headers);
    assert.equal(res.status, 200);
    assert.equal(res.body.user.id, bob.user.id);
    assert.equal(res.body.user.totp, false);
    const text = JSON.stringify(res.body);
    assert.ok(!text.includes(bob.user.token));
    assert.ok(!text.includes(bob.user.password!));
  }
});

apiTest("PATCH /api/user changes username, password, avatar and view", async (app) => {
  const bob = await actor(app, "USER", "bob");
  const res = await app.json("PATCH", "/api/user", {
    username: "robert",
    avatar: "https://example.org/a.png",
    view: { enabled: true, embedColor: "#112233" },
    currentPassword: "password",
  }, bob.headers);
  assert.equal(res.status, 200);
  assert.equal(res.body.user.username, "robert");
  assert.equal(res.body.user.avatar, "https://example.org/a.png");
  assert.equal(res.body.user.view.enabled, true);
  assert.equal(res.body.user.view.embedColor, "#112233");
  const again = await app.json("GET", "/api/user", undefined, bob.headers);
  assert.equal(again.body.user.username, "robert");
  const cleared = await app.json("PATCH", "/api/user", { avatar: null }, bob.headers);
  assert.equal(cleared.body.user.avatar, null);

  const password = { password: "new-password", currentPassword: "password" };
  assert.equal((await app.json("PATCH", "/api/user", password, bob.headers)).status, 200);
  const login = await app.json("POST", "/api/auth/login", {
    username: "robert",
    password: "new-password",
  });
  assert.equal(login.status, 200);
  const old = await app.json("POST", "/api/auth/login", { username: "bob", password: "password" });
  assert.equal(old.status, 400);
});

apiTest("PATCH /api/user refuses a taken username and leaves the user as it was", async (app) => {
  await actor(app, "USER", "alice");
  const bob = await actor(app, "USER", "bob");
  const body = { username: "alice", currentPassword: "password" };
  const res = await app.json("PATCH", "/api/user", body, bob.headers);
  assert.equal(res.status, 400);
  assert.deepEqual(res.body, { error: "Username already exists", statusCode: 400 });
  assert.equal((await app.services.store.users.get(bob.user.id))!.username, "bob");
});

const login = async (app: TestApp, username: string, password = "password") => {
  const res = await app.json("POST", "/api/auth/login", { username, password });
  assert.equal(res.status, 200);
  return sessionCookie(res.headers);
};

apiTest(
  "security #4: a new password ends the other sessions and replaces the token",
  async (app) => {
    await actor(app, "USER", "bob");
    const [current, other] = [await login(app, "bob"), await login(app, "bob")];
    const token = async () =>
      (await app.json("GET", "/api/user/token", undefined, { cookie: current })).body.token;
    const oldToken = await token();
    assert.equal(
      (await app.json("GET", "/api/user", undefined, { authorization: oldToken })).status,
      200,
    );

    const res = await app.json("PATCH", "/api/user", {
      password: "new-password",
      currentPassword: "password",
    }, { cookie: current });
    assert.equal(res.status, 200);

    assert.equal((await app.json("GET", "/api/user", undefined, { cookie: current })).status, 200);
    const gone = await app.json("GET", "/api/user", undefined, { cookie: other });
    assert.deepEqual(gone.body, { error: "not logged in", statusCode: 401 });
    const refused = await app.json("GET", "/api/user", undefined, { authorization: oldToken });
    assert.deepEqual(refused.body, { error: "invalid authorization token", statusCode: 401 });
    const newToken = await token();
    assert.equal(
      (await app.json("GET", "/api/user", undefined, { authorization: newToken })).status,
      200,
    );
    const sessions = await app.json("GET", "/api/user/sessions", undefined, { cookie: current });
    assert.deepEqual(sessions.body.other, []);
  },
);

apiTest("security #4: a new password or username needs the current password", async (app) => {
  const bob = await actor(app, "USER", "bob");
  for (const change of [{ password: "new-password" }, { username: "robert" }]) {
    const missing = await app.json("PATCH", "/api/user", change, bob.headers);
    assert.deepEqual(missing.body, { error: "currentPassword is required", statusCode: 400 });
    const wrong = await app.json(
      "PATCH",
      "/api/user",
      { ...change, currentPassword: "wrong" },
      bob.headers,
    );
    assert.deepEqual(wrong.body, { error: "Invalid current password", statusCode: 403 });
  }
  const me = await app.json("GET", "/api/user", undefined, bob.headers);
  assert.equal(me.body.user.username, "bob", "the token still works: nothing changed");
  await login(app, "bob");
  const free = await app.json("PATCH", "/api/user", {
    username: "bob",
    avatar: "https://example.org/a.png",
    view: { enabled: true },
  }, bob.headers);
  assert.equal(free.status, 200, "the same username, an avatar and the view need no proof");
});

apiTest(
  "security #4: right after signing in, the session alone may change the password (Zipline's client sends no currentPassword)",
  async (app) => {
    await actor(app, "USER", "bob");
    const fresh = { cookie: await login(app, "bob") };
    const changed = await app.json("PATCH", "/api/user", { password: "second-password" }, fresh);
    assert.equal(changed.status, 200);
    await login(app, "bob", "second-password");

    app.clock.advance(10 * 60_000);
    const stale = await app.json("PATCH", "/api/user", { username: "robert" }, fresh);
    assert.deepEqual(stale.body, { error: "currentPassword is required", statusCode: 400 });
    const me = await app.json("GET", "/api/user", undefined, fresh);
    assert.equal(me.body.user.username, "bob", "a session 10 minutes old renamed nothing");
  },
);

// The third review (issue #30).

const NO_PASSWORD = {
  error: "This account has no password: sign in again with its passkey or linked account to " +
    "confirm",
  statusCode: 400,
};

/** A session cookie for `user`, signed in by `method` (as a passkey or a provider would). */
async function sessionBy(app: TestApp, user: UserRecord, method: SignInMethod) {
  const { secret } = await startSession(app.services, user, clientFromUserAgent(""), method);
  return `${SESSION_COOKIE}=${secret}`;
}

apiTest(
  "security #30.2: an account without a password proves with a fresh sign-in of its own, never its token",
  async (app) => {
    const user = await createUser(app.services, {
      username: "keyonly",
      password: null,
      role: "USER",
    });
    const token = { authorization: tokenFor(app.services, user) };
    const old = { cookie: await sessionBy(app, user, "passkey") };
    const bornBefore = { cookie: await sessionBy(app, user, "unknown") };
    app.clock.advance(10 * 60_000);
    for (const headers of [token, old, bornBefore]) {
      for (const change of [{ password: "mine-now" }, { username: "mallory" }]) {
        const res = await app.json("PATCH", "/api/user", change, headers);
        assert.deepEqual(res.body, NO_PASSWORD, JSON.stringify(change));
      }
    }
    const guessed = await app.json("PATCH", "/api/user", {
      password: "mine-now",
      currentPassword: "anything",
    }, token);
    assert.deepEqual(guessed.body, NO_PASSWORD, "a password it does not have proves nothing");
    assert.equal((await app.json("GET", "/api/user", undefined, old)).status, 200, "sessions live");
    assert.equal((await app.services.store.users.get(user.id))!.password, null);

    const fresh = { cookie: await sessionBy(app, user, "passkey") };
    const set = await app.json("PATCH", "/api/user", { password: "first-password" }, fresh);
    assert.equal(set.status, 200, "a passkey sign-in moments ago proves the owner");
    await login(app, "keyonly", "first-password");
    assert.equal((await app.json("GET", "/api/user", undefined, token)).status, 401);
    assert.equal((await app.json("GET", "/api/user", undefined, old)).status, 401);
  },
);

apiTest(
  "security #30.1: only a password sign-in is proof for an account with a password",
  async (app) => {
    const bob = await actor(app, "USER", "bob");
    for (const method of ["passkey", "oauth", "unknown"] as const) {
      const cookie = await sessionBy(app, bob.user, method);
      const res = await app.json("PATCH", "/api/user", { password: "taken-over" }, { cookie });
      assert.deepEqual(res.body, { error: "currentPassword is required", statusCode: 400 }, method);
    }
    const cookie = await sessionBy(app, bob.user, "password");
    const res = await app.json("PATCH", "/api/user", { password: "second-pass" }, { cookie });
    assert.equal(res.status, 200);
  },
);

/** Stores a session for `userId` as a Ferry that did not record sign-in methods wrote it. */
async function storeLegacySession(app: TestApp, userId: string, secret: string) {
  const now = app.clock.now();
  const row = {
    id: await sha256(secret),
    userId,
    createdAt: new Date(now),
    expiresAt: new Date(now + SESSION_TTL_MS),
    lastSeenAt: new Date(now),
    client: "Firefox 140",
    device: "Linux",
    ua: "Mozilla/5.0",
  };
  if (app.kind === "kv") {
    const kv = (app.backend as unknown as { kv: Deno.Kv }).kv;
    await kv.atomic()
      .set(["session", row.id], row)
      .set(["session_by_user", userId, row.id], true)
      .commit();
    return;
  }
  const sql = postgres(app.storeUrl!, { max: 1, onnotice: () => {} });
  try {
    await sql`INSERT INTO sessions (id, user_id, created_at, expires_at, last_seen_at, client, device, ua)
      VALUES (${row.id}, ${userId}, ${row.createdAt}, ${row.expiresAt}, ${row.lastSeenAt},
        ${row.client}, ${row.device}, ${row.ua})`;
  } finally {
    await sql.end();
  }
}

apiTest(
  "security #30.1: a session stored before sign-in methods were recorded works but proves nothing",
  async (app) => {
    const bob = await actor(app, "USER", "bob");
    const secret = "a-session-from-an-older-ferry-0123456789";
    await storeLegacySession(app, bob.user.id, secret);
    const cookie = `${SESSION_COOKIE}=${secret}`;
    assert.equal((await app.json("GET", "/api/user", undefined, { cookie })).status, 200);
    const res = await app.json("PATCH", "/api/user", { password: "taken-over" }, { cookie });
    assert.deepEqual(res.body, { error: "currentPassword is required", statusCode: 400 });
    const [session] = await app.services.store.sessions.listByUser(bob.user.id);
    assert.equal(session.method, "unknown");
  },
);

apiTest("GET /api/user/avatar answers the stored avatar as text; 404 without one", async (app) => {
  const a = await actor(app, "USER");
  const none = await app.request("/api/user/avatar", { headers: a.headers });
  assert.equal(none.status, 404);
  assert.deepEqual(await none.json(), { error: "Not Found", statusCode: 404 });

  const avatar = "data:image/png;base64,iVBORw0KGgo=";
  assert.equal((await app.json("PATCH", "/api/user", { avatar }, a.headers)).status, 200);
  const set = await app.request("/api/user/avatar", { headers: a.headers });
  assert.equal(set.status, 200);
  assert.match(set.headers.get("content-type") ?? "", /^text\/plain/);
  assert.equal(await set.text(), avatar);
  assert.equal((await app.request("/api/user/avatar")).status, 401);
});

apiTest("conformance: an avatar of 400 KiB is kept and served back on both stores", async (app) => {
  const bob = await actor(app, "USER", "bob");
  const avatar = "data:image/png;base64," + "A".repeat(400 * 1024);
  const res = await app.json("PATCH", "/api/user", { avatar }, bob.headers);
  assert.equal(res.status, 200);
  assert.equal(res.body.user.avatar, avatar);
  const served = await app.request("/api/user/avatar", { headers: bob.headers });
  assert.equal(served.status, 200);
  assert.equal(await served.text(), avatar);
});
