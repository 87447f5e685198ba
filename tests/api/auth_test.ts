/** Login, logout, sessions and the §5 authentication failures. */
import assert from "node:assert/strict";
import { hashParamsOf, verifyPassword } from "../../core/passwords.ts";
import { clientToken } from "../../core/tokens.ts";
import { buildUser } from "../../core/users.ts";
import { systemRandom } from "../../core/clock.ts";
import { apiTest, sessionCookie } from "../helpers/app.ts";
import { actor } from "../helpers/users.ts";

apiTest("login sets a 14-day session cookie that authenticates", async (app) => {
  await actor(app, "USER", "alice");
  const res = await app.json("POST", "/api/auth/login", {
    username: "alice",
    password: "password",
  });
  assert.equal(res.status, 200);
  assert.equal(res.body.user.username, "alice");
  for (const secret of ["password", "token"]) {
    assert.equal(res.body.user[secret], undefined);
  }
  assert.equal(res.body.user.totpSecret, null, "only ever a marker (docs/zipline.md)");
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("service_session="))!;
  assert.match(cookie, /Max-Age=1209600; Path=\/; HttpOnly; SameSite=Lax/);
  assert.doesNotMatch(cookie, /Secure/);
  const me = await app.json("GET", "/api/user", undefined, { cookie: sessionCookie(res.headers) });
  assert.equal(me.status, 200);
  assert.equal(me.body.user.username, "alice");
});

apiTest("the cookie is Secure when coreReturnHttpsUrls is on", async (app) => {
  await actor(app, "USER", "alice");
  await app.services.store.settings.update({ coreReturnHttpsUrls: true });
  await app.services.settings.reload();
  const res = await app.json("POST", "/api/auth/login", {
    username: "alice",
    password: "password",
  });
  assert.match(res.headers.getSetCookie()[0], /Secure/);
});

apiTest("wrong password and unknown user get the same answer", async (app) => {
  await actor(app, "USER", "alice");
  const wrong = await app.json("POST", "/api/auth/login", { username: "alice", password: "nope" });
  const unknown = await app.json("POST", "/api/auth/login", { username: "zed", password: "nope" });
  for (const res of [wrong, unknown]) {
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { error: "Invalid username or password", statusCode: 400 });
    assert.deepEqual(res.headers.getSetCookie(), []);
  }
});

apiTest("an expired session is not logged in", async (app) => {
  await actor(app, "USER", "alice");
  const res = await app.json("POST", "/api/auth/login", {
    username: "alice",
    password: "password",
  });
  const cookie = sessionCookie(res.headers);
  app.clock.advance(14 * 24 * 3600 * 1000 + 1);
  const me = await app.json("GET", "/api/user", undefined, { cookie });
  assert.equal(me.status, 401);
  assert.deepEqual(me.body, { error: "not logged in", statusCode: 401 });
});

apiTest("security #9: POST /api/auth/logout ends the current session only", async (app) => {
  await actor(app, "USER", "alice");
  const login = () =>
    app.json("POST", "/api/auth/login", { username: "alice", password: "password" });
  const one = sessionCookie((await login()).headers);
  const two = sessionCookie((await login()).headers);
  const out = await app.json("POST", "/api/auth/logout", undefined, { cookie: one });
  assert.equal(out.status, 200);
  assert.deepEqual(out.body, { loggedOut: true });
  assert.equal((await app.json("GET", "/api/user", undefined, { cookie: one })).status, 401);
  assert.equal((await app.json("GET", "/api/user", undefined, { cookie: two })).status, 200);
});

apiTest(
  "security #9: GET /api/auth/logout ends a session only from the same origin",
  async (app) => {
    const alice = await actor(app, "USER", "alice");
    const login = async () =>
      sessionCookie(
        (await app.json("POST", "/api/auth/login", { username: "alice", password: "password" }))
          .headers,
      );
    const cookie = await login();
    const crossSite: Record<string, string>[] = [
      {},
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { "sec-fetch-site": "cross-site", origin: "http://ferry.test" },
      { origin: "http://evil.example" },
      { origin: "null" },
      { referer: "http://evil.example/page" },
      { referer: "http://ferry.test.evil.example/" },
    ];
    for (const headers of crossSite) {
      const res = await app.json("GET", "/api/auth/logout", undefined, { cookie, ...headers });
      assert.deepEqual(
        res.body,
        { error: "Cross-site logout refused", statusCode: 403 },
        JSON.stringify(headers),
      );
      assert.equal((await app.json("GET", "/api/user", undefined, { cookie })).status, 200);
    }
    const sameOrigin: Record<string, string>[] = [
      { "sec-fetch-site": "same-origin" },
      { "sec-fetch-site": "none" },
      { origin: "http://ferry.test" },
      { referer: "http://ferry.test/dashboard" },
    ];
    for (const headers of sameOrigin) {
      const session = await login();
      const res = await app.json("GET", "/api/auth/logout", undefined, {
        cookie: session,
        ...headers,
      });
      assert.deepEqual(res.body, { loggedOut: true }, JSON.stringify(headers));
      const after = await app.json("GET", "/api/user", undefined, { cookie: session });
      assert.equal(after.status, 401, JSON.stringify(headers));
    }
    const byToken = await app.json("GET", "/api/auth/logout", undefined, alice.headers);
    assert.deepEqual(byToken.body, { loggedOut: true }, "a token ends no session: not checked");
    assert.equal((await app.json("GET", "/api/user", undefined, { cookie })).status, 200);
  },
);

apiTest("the four 401s of §5 and the 403 for a low role", async (app) => {
  const bob = await actor(app, "USER", "bob");
  const cases: [Record<string, string>, string][] = [
    [{}, "not logged in"],
    [{ authorization: "" }, "no token"],
    [{ authorization: "garbage" }, "could not decrypt token"],
    [{ authorization: "YQ==.YQ==" }, "could not decrypt token"],
    [{
      authorization: clientToken(
        bob.user.token,
        Date.now(),
        "another-secret-another-secret-12",
        systemRandom,
      ),
    }, "could not decrypt token"],
    [{
      authorization: clientToken("MTc=.bm9ib2R5", Date.now(), app.services.secret, systemRandom),
    }, "invalid authorization token"],
    [{ cookie: "service_session=forged-session-secret-value" }, "not logged in"],
  ];
  for (const [headers, message] of cases) {
    const res = await app.json("GET", "/api/user", undefined, headers);
    assert.equal(res.status, 401, message);
    assert.deepEqual(res.body, { error: message, statusCode: 401 });
  }
  const admin = await app.json("GET", "/api/users", undefined, bob.headers);
  assert.equal(admin.status, 403);
  assert.deepEqual(admin.body, { error: "forbidden", statusCode: 403 });
});

apiTest("the token: read, regenerate, and the old one stops at once", async (app) => {
  const bob = await actor(app, "USER", "bob");
  const got = await app.json("GET", "/api/user/token", undefined, bob.headers);
  assert.equal(got.status, 200);
  assert.equal(
    (await app.json("GET", "/api/user", undefined, { authorization: got.body.token }))
      .status,
    200,
  );
  const reset = await app.json("PATCH", "/api/user/token", undefined, bob.headers);
  assert.equal(reset.status, 200);
  assert.equal(reset.body.user.username, "bob");
  for (const old of [bob.headers.authorization, got.body.token]) {
    const res = await app.json("GET", "/api/user", undefined, { authorization: old });
    assert.equal(res.status, 401);
    assert.equal(res.body.error, "invalid authorization token");
  }
  const fresh = await app.json("GET", "/api/user", undefined, { authorization: reset.body.token });
  assert.equal(fresh.status, 200);
});

apiTest("sessions: list, revoke one, revoke all others", async (app) => {
  await actor(app, "USER", "alice");
  const login = async () =>
    sessionCookie(
      (await app.json("POST", "/api/auth/login", { username: "alice", password: "password" }, {
        "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0",
      })).headers,
    );
  const [a, b, c] = [await login(), await login(), await login()];
  const list = await app.json("GET", "/api/user/sessions", undefined, { cookie: a });
  assert.equal(list.status, 200);
  assert.equal(list.body.other.length, 2);
  assert.equal(list.body.current.client, "Firefox 140.0");
  assert.equal(list.body.current.device, "Linux");

  const self = await app.json("DELETE", "/api/user/sessions", { sessionId: list.body.current.id }, {
    cookie: a,
  });
  assert.equal(self.status, 400);
  assert.equal(self.body.error, "Cannot delete current session, use log out instead.");

  const one = await app.json("DELETE", "/api/user/sessions", {
    sessionId: list.body.other[0].id,
  }, { cookie: a });
  assert.equal(one.status, 200);
  assert.equal(one.body.other.length, 1);

  const all = await app.json("DELETE", "/api/user/sessions", { all: true }, { cookie: a });
  assert.deepEqual(all.body.other, []);
  assert.equal((await app.json("GET", "/api/user", undefined, { cookie: a })).status, 200);
  for (const gone of [b, c]) {
    assert.equal((await app.json("GET", "/api/user", undefined, { cookie: gone })).status, 401);
  }
});

apiTest(
  "security #12: a Zipline hash is rehashed with Ferry's parameters at login",
  async (app) => {
    const fixture = new URL("../fixtures/zipline-v4-export.sample.json", import.meta.url);
    const doc = JSON.parse(await Deno.readTextFile(fixture));
    const imported =
      doc.data.users.find((u: { username: string }) => u.username === "maria").password;
    const user = await buildUser(app.services, { username: "maria", password: null, role: "USER" });
    await app.services.store.users.create({ ...user, password: imported });
    const stored = async () => (await app.services.store.users.get(user.id))!.password!;
    const login = (password: string) =>
      app.json("POST", "/api/auth/login", { username: "maria", password });

    assert.equal((await login("wrong")).status, 400);
    assert.equal(await stored(), imported, "a failed login changes nothing");
    assert.equal((await login("maria-pass-2024")).status, 200);
    const rehashed = await stored();
    assert.notEqual(rehashed, imported);
    assert.deepEqual(hashParamsOf(rehashed), {
      algorithm: "argon2id",
      memorySize: 19456,
      iterations: 2,
      parallelism: 1,
    });
    assert.equal(await verifyPassword("maria-pass-2024", rehashed), true);
    assert.equal((await login("maria-pass-2024")).status, 200);
    assert.equal(await stored(), rehashed, "a Ferry hash stays");
  },
);

apiTest(
  "sessions: each shows when it was last seen, written at most every five minutes",
  async (app) => {
    await actor(app, "USER", "alice");
    const login = async () =>
      sessionCookie(
        (await app.json("POST", "/api/auth/login", { username: "alice", password: "password" }))
          .headers,
      );
    const [a, b] = [await login(), await login()];
    const seen = async (cookie: string) => {
      const list = await app.json("GET", "/api/user/sessions", undefined, { cookie });
      return {
        current: list.body.current.lastSeenAt as string,
        other: list.body.other[0].lastSeenAt as string,
      };
    };
    const start = await seen(a);
    assert.equal(start.current, start.other);

    app.clock.advance(60_000);
    assert.deepEqual(await seen(a), start, "a minute later nothing is written");

    app.clock.advance(5 * 60_000);
    const moved = await seen(a);
    assert.equal(moved.current, new Date(app.clock.now()).toISOString());
    assert.equal(moved.other, start.other, "the other session was not used");
    assert.equal((await seen(b)).other, moved.current, "the other session sees it too");
  },
);
