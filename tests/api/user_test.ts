/** The current user: GET /api/user, /api/user/me and PATCH /api/user. */
import assert from "node:assert/strict";
import { apiTest } from "../helpers/app.ts";
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
    password: "new-password",
    avatar: "https://example.org/a.png",
    view: { enabled: true, embedColor: "#112233" },
  }, bob.headers);
  assert.equal(res.status, 200);
  assert.equal(res.body.user.username, "robert");
  assert.equal(res.body.user.avatar, "https://example.org/a.png");
  assert.equal(res.body.user.view.enabled, true);
  assert.equal(res.body.user.view.embedColor, "#112233");

  const again = await app.json("GET", "/api/user", undefined, bob.headers);
  assert.equal(again.body.user.username, "robert");
  const login = await app.json("POST", "/api/auth/login", {
    username: "robert",
    password: "new-password",
  });
  assert.equal(login.status, 200);
  const old = await app.json("POST", "/api/auth/login", { username: "bob", password: "password" });
  assert.equal(old.status, 400);

  const cleared = await app.json("PATCH", "/api/user", { avatar: null }, bob.headers);
  assert.equal(cleared.body.user.avatar, null);
});

apiTest("PATCH /api/user refuses a taken username and leaves the user as it was", async (app) => {
  await actor(app, "USER", "alice");
  const bob = await actor(app, "USER", "bob");
  const res = await app.json("PATCH", "/api/user", { username: "alice" }, bob.headers);
  assert.equal(res.status, 400);
  assert.deepEqual(res.body, { error: "Username already exists", statusCode: 400 });
  assert.equal((await app.services.store.getUser(bob.user.id))!.username, "bob");
});

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
