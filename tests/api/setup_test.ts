/** First-run setup, once and only once, on both stores. */
import assert from "node:assert/strict";
import { apiTest, sessionCookie } from "../helpers/app.ts";

apiTest("setup creates the first user as SUPERADMIN and logs it in, once", async (app) => {
  assert.deepEqual((await app.json("GET", "/api/setup")).body, { firstSetup: true });

  const res = await app.json("POST", "/api/setup", { username: "admin", password: "hunter22" });
  assert.equal(res.status, 200);
  assert.equal(res.body.firstSetup, true);
  assert.equal(res.body.user.username, "admin");
  assert.equal(res.body.user.role, "SUPERADMIN");
  assert.equal(res.body.user.password, undefined);
  assert.equal(res.body.user.token, undefined);
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith("service_session="))!;
  assert.match(setCookie, /HttpOnly/);
  assert.match(setCookie, /SameSite=Lax/);
  assert.match(setCookie, /Path=\//);
  assert.match(setCookie, /Max-Age=1209600/);

  // The cookie logs in: a route that needs a user answers.
  const version = await app.json("GET", "/api/version", undefined, {
    cookie: sessionCookie(res.headers),
  });
  assert.equal(version.status, 200);
  assert.equal(version.body.version, "0.0.0-test");

  assert.deepEqual((await app.json("GET", "/api/setup")).body, { firstSetup: false });
  const again = await app.json("POST", "/api/setup", { username: "other", password: "password1" });
  assert.equal(again.status, 403);
  assert.deepEqual(again.body, { error: "forbidden", statusCode: 403 });
  assert.equal(await app.services.store.users.getByUsername("other"), null);
});

apiTest("two concurrent setups create exactly one user", async (app) => {
  const replies = await Promise.all(
    ["first", "second", "third", "fourth"].map((username) =>
      app.json("POST", "/api/setup", { username, password: "password1" })
    ),
  );
  assert.deepEqual(replies.map((r) => r.status).sort(), [200, 403, 403, 403]);
  const users = await app.services.store.users.list();
  assert.equal(users.length, 1);
  assert.equal(users[0].role, "SUPERADMIN");
});

apiTest("the setup password is stored as an argon2id hash", async (app) => {
  await app.json("POST", "/api/setup", { username: "admin", password: "  padded  " });
  const user = await app.services.store.users.getByUsername("admin");
  assert.match(user!.password!, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
});
