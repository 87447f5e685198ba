/** Invites (Zipline §4.1): admin management, the public invite view and the invite link. */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { type Actor, actor } from "../helpers/users.ts";

/** Creates an invite a millisecond after the last, so that the list order is known. */
async function invite(app: TestApp, who: Actor, body: Record<string, unknown>) {
  app.clock.advance(1);
  return await app.json("POST", "/api/auth/invites", body, who.headers);
}

apiTest("create, list, get by id or code, delete", async (app) => {
  const admin = await actor(app, "ADMIN");
  const made = await invite(app, admin, { expiresAt: "1d", maxUses: 2 });
  assert.equal(made.status, 200);
  assert.deepEqual(Object.keys(made.body).sort(), [
    "code",
    "createdAt",
    "expiresAt",
    "id",
    "inviter",
    "inviterId",
    "maxUses",
    "updatedAt",
    "uses",
  ]);
  assert.match(made.body.code, /^[A-Za-z0-9]{6}$/);
  assert.equal(made.body.expiresAt, new Date(app.clock.now() + 86_400_000).toISOString());
  assert.deepEqual([made.body.uses, made.body.maxUses, made.body.inviterId], [0, 2, admin.user.id]);

  const forever = await invite(app, admin, { expiresAt: "never" });
  assert.deepEqual([forever.body.expiresAt, forever.body.maxUses], [null, null]);
  const dated = await invite(app, admin, { expiresAt: "date=2099-01-01T00:00:00Z" });
  assert.equal(dated.body.expiresAt, "2099-01-01T00:00:00.000Z");
  for (const expiresAt of ["soon", "date=2000-01-01", "-1d"]) {
    assert.equal((await invite(app, admin, { expiresAt })).status, 400, expiresAt);
  }

  const list = await app.json("GET", "/api/auth/invites", undefined, admin.headers);
  assert.deepEqual(list.body.map((i: { id: string }) => i.id), [
    made.body.id,
    forever.body.id,
    dated.body.id,
  ]);
  assert.deepEqual(list.body[0].inviter, {
    id: admin.user.id,
    username: admin.user.username,
    role: "ADMIN",
  });
  const byCode = await app.json(
    "GET",
    `/api/auth/invites/${made.body.code}`,
    undefined,
    admin.headers,
  );
  assert.equal(byCode.body.id, made.body.id);
  const byId = await app.json("GET", `/api/auth/invites/${made.body.id}`, undefined, admin.headers);
  assert.equal(byId.body.code, made.body.code);

  const gone = await app.json(
    "DELETE",
    `/api/auth/invites/${made.body.id}`,
    undefined,
    admin.headers,
  );
  assert.equal(gone.body.id, made.body.id);
  const again = await app.json(
    "DELETE",
    `/api/auth/invites/${made.body.id}`,
    undefined,
    admin.headers,
  );
  assert.deepEqual(again.body, { error: "Invite not found", statusCode: 404 });
  assert.equal(
    (await app.json("GET", `/api/auth/invites/${made.body.code}`, undefined, admin.headers)).status,
    404,
  );
});

apiTest("invitesLength sets the code length; users may not manage invites", async (app) => {
  const admin = await actor(app, "SUPERADMIN");
  const user = await actor(app, "USER");
  await app.services.store.settings.update({ invitesLength: 12 });
  await app.services.settings.reload();
  const made = await invite(app, admin, { expiresAt: "never" });
  assert.match(made.body.code, /^[A-Za-z0-9]{12}$/);
  assert.equal((await invite(app, user, { expiresAt: "never" })).status, 403);
  assert.equal((await app.json("GET", "/api/auth/invites", undefined, user.headers)).status, 403);
  assert.equal((await app.json("GET", "/api/auth/invites")).status, 401);
});

apiTest(
  "the public view: null without a code, 404 when unusable or invites are off",
  async (app) => {
    const admin = await actor(app, "ADMIN");
    assert.deepEqual((await app.json("GET", "/api/auth/invites/web")).body, { invite: null });
    const made = (await invite(app, admin, { expiresAt: "1h", maxUses: 1 })).body;
    const web = await app.json("GET", `/api/auth/invites/web?code=${made.code}`);
    assert.deepEqual(web.body, {
      invite: { code: made.code, maxUses: 1, uses: 0, inviter: { username: admin.user.username } },
    });
    assert.equal((await app.json("GET", "/api/auth/invites/web?code=unknown")).status, 404);

    await app.services.store.settings.update({ invitesEnabled: false });
    await app.services.settings.reload();
    assert.equal((await app.json("GET", `/api/auth/invites/web?code=${made.code}`)).status, 404);
    await app.services.store.settings.update({ invitesEnabled: true });
    await app.services.settings.reload();

    app.clock.advance(3_600_000);
    assert.equal((await app.json("GET", `/api/auth/invites/web?code=${made.code}`)).status, 404);
  },
);

apiTest("GET /invite/<code> redirects to the registration page", async (app) => {
  const res = await app.request("/invite/a%20b", { redirect: "manual" });
  assert.equal(res.status, 302);
  assert.equal(res.headers.get("location"), "/auth/register?code=a%20b");
});

apiTest("deleting the inviter deletes its invites", async (app) => {
  const root = await actor(app, "SUPERADMIN");
  const admin = await actor(app, "ADMIN");
  const made = (await invite(app, admin, { expiresAt: "never" })).body;
  await app.json("DELETE", `/api/users/${admin.user.id}`, {}, root.headers);
  assert.equal(await app.services.store.invites.get(made.id), null);
});
