/** Registration (Zipline §4.1): open or by invite, as USER, logged in; max uses under races. */
import assert from "node:assert/strict";
import { apiTest, sessionCookie, type TestApp } from "../helpers/app.ts";
import { actor } from "../helpers/users.ts";

async function register(app: TestApp, body: Record<string, unknown>) {
  return await app.json("POST", "/api/auth/register", body);
}

async function settings(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.settings.update(values);
  await app.services.settings.reload();
}

async function newInvite(app: TestApp, maxUses?: number) {
  const admin = await actor(app, "ADMIN");
  const res = await app.json(
    "POST",
    "/api/auth/invites",
    { expiresAt: "1d", maxUses },
    admin.headers,
  );
  return res.body as { id: string; code: string };
}

apiTest("open registration: off by default, on with featuresUserRegistration", async (app) => {
  const off = await register(app, { username: "alice", password: "password1" });
  assert.deepEqual(off.body, { error: "User registration is disabled", statusCode: 400 });

  await settings(app, { featuresUserRegistration: true });
  const on = await register(app, { username: "alice", password: "password1" });
  assert.equal(on.status, 200);
  assert.equal(on.body.user.username, "alice");
  assert.equal(on.body.user.role, "USER");
  const cookie = sessionCookie(on.headers);
  const me = await app.json("GET", "/api/user", undefined, { cookie });
  assert.equal(me.body.user.id, on.body.user.id);

  const taken = await register(app, { username: "alice", password: "other-password" });
  assert.deepEqual(taken.body, { error: "Username is taken", statusCode: 400 });
  const login = await app.json("POST", "/api/auth/login", {
    username: "alice",
    password: "password1",
  });
  assert.equal(login.status, 200);
});

apiTest("by invite: code or id, counted; unknown, expired, used up or invites off", async (app) => {
  const made = await newInvite(app, 2);
  const first = await register(app, { username: "a1", password: "password1", code: made.code });
  assert.equal(first.status, 200);
  assert.equal(first.body.user.role, "USER");
  const second = await register(app, { username: "a2", password: "password1", code: made.id });
  assert.equal(second.status, 200);
  const third = await register(app, { username: "a3", password: "password1", code: made.code });
  assert.deepEqual(third.body, { error: "Invalid invite code", statusCode: 400 });
  assert.equal((await app.services.store.invites.get(made.id))!.uses, 2);

  const unknown = await register(app, { username: "a4", password: "password1", code: "nope" });
  assert.deepEqual(unknown.body, { error: "Invalid invite code", statusCode: 400 });

  const expiring = await newInvite(app);
  app.clock.advance(86_400_000);
  const expired = await register(app, {
    username: "a5",
    password: "password1",
    code: expiring.code,
  });
  assert.deepEqual(expired.body, { error: "Invalid invite code", statusCode: 400 });

  const open = await newInvite(app);
  await settings(app, { invitesEnabled: false });
  const off = await register(app, { username: "a6", password: "password1", code: open.code });
  assert.deepEqual(off.body, { error: "Invites aren't enabled", statusCode: 400 });
  assert.equal(await app.services.store.users.getByUsername("a6"), null);
});

apiTest("a taken username does not spend the invite", async (app) => {
  const made = await newInvite(app, 1);
  await actor(app, "USER", "bob");
  const taken = await register(app, { username: "bob", password: "password1", code: made.code });
  assert.deepEqual(taken.body, { error: "Username is taken", statusCode: 400 });
  assert.equal((await app.services.store.invites.get(made.id))!.uses, 0);
  assert.equal(
    (await register(app, { username: "carol", password: "password1", code: made.code })).status,
    200,
  );
});

apiTest("concurrent registrations never exceed the invite's max uses", async (app) => {
  const made = await newInvite(app, 3);
  const replies = await Promise.all(
    Array.from(
      { length: 8 },
      (_, i) => register(app, { username: `r${i}`, password: "password1", code: made.code }),
    ),
  );
  assert.equal(replies.filter((r) => r.status === 200).length, 3);
  assert.equal((await app.services.store.invites.get(made.id))!.uses, 3);
  const users = await app.services.store.users.list();
  assert.equal(users.filter((u) => u.username.startsWith("r")).length, 3);
});

apiTest("register allows 1 request per 5 seconds", async (app) => {
  await settings(app, { featuresUserRegistration: true });
  assert.equal((await register(app, { username: "x1", password: "password1" })).status, 200);
  assert.equal((await register(app, { username: "x2", password: "password1" })).status, 429);
}, { rateLimits: true });
