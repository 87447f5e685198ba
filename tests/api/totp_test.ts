/**
 * TOTP (spec §4.3) with the manual clock: setup and its QR code, enabling and
 * disabling with a code, the login step, the ±1-step window, single use of a
 * code, and the server setting.
 */
import assert from "node:assert/strict";
import QRCode from "qrcode";
import { Secret, TOTP } from "otpauth";
import { decrypt } from "../../core/tokens.ts";
import { CODE_WINDOW_MS } from "../../core/totp.ts";
import { apiTest, sessionCookie, TEST_SECRET, type TestApp } from "../helpers/app.ts";
import { type Actor, actor } from "../helpers/users.ts";

const STEP = 30_000;

/** The code for `secret` at `time` (ms), computed independently of the server. */
function code(secret: string, time: number): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 })
    .generate({ timestamp: time });
}

/** A 6-digit code that is not valid for `secret` within a step of `time`. */
function wrongCode(secret: string, time: number): string {
  const valid = [-1, 0, 1].map((d) => code(secret, time + d * STEP));
  let n = 0;
  while (valid.includes(String(n).padStart(6, "0"))) n++;
  return String(n).padStart(6, "0");
}

async function enableSetting(app: TestApp, on = true) {
  await app.services.store.settings.update({ mfaTotpEnabled: on, mfaTotpIssuer: "Ferry Test" });
  await app.services.settings.reload();
}

/** Turns TOTP on for `who`; returns the secret. The clock then moves to the next step. */
async function enableTotp(app: TestApp, who: Actor): Promise<string> {
  const setup = await app.json("GET", "/api/user/mfa/totp", undefined, who.headers);
  const secret = setup.body.secret;
  const res = await app.json("POST", "/api/user/mfa/totp", {
    code: code(secret, app.clock.now()),
    secret,
    currentPassword: "password",
  }, who.headers);
  assert.equal(res.status, 200);
  app.clock.advance(STEP);
  return secret;
}

const login = (app: TestApp, extra: Record<string, string> = {}) =>
  app.json("POST", "/api/auth/login", { username: "alice", password: "password", ...extra });

apiTest("every TOTP route answers 400 `TOTP is disabled` while the setting is off", async (app) => {
  const alice = await actor(app, "USER", "alice");
  for (
    const [method, body] of [["GET"], ["POST", { code: "123456", secret: "A".repeat(32) }], [
      "DELETE",
      { code: "123456" },
    ]] as const
  ) {
    const res = await app.json(method, "/api/user/mfa/totp", body, alice.headers);
    assert.deepEqual(res.body, { error: "TOTP is disabled", statusCode: 400 }, method);
  }
});

apiTest("setup gives a new secret until TOTP is on, with the otpauth:// QR code", async (app) => {
  await enableSetting(app);
  const alice = await actor(app, "USER", "alice");
  const one = await app.json("GET", "/api/user/mfa/totp", undefined, alice.headers);
  const two = await app.json("GET", "/api/user/mfa/totp", undefined, alice.headers);
  assert.equal(one.status, 200);
  assert.match(one.body.secret, /^[A-Z2-7]{32}$/);
  assert.notEqual(one.body.secret, two.body.secret);
  const uri = `otpauth://totp/Ferry%20Test:alice?issuer=Ferry%20Test&secret=${one.body.secret}` +
    "&algorithm=SHA1&digits=6&period=30";
  assert.equal(one.body.qrcode, await QRCode.toDataURL(uri));
  assert.match(one.body.qrcode, /^data:image\/png;base64,/);

  const secret = await enableTotp(app, alice);
  const after = await app.json("GET", "/api/user/mfa/totp", undefined, alice.headers);
  assert.equal(after.body.secret, secret, "the existing secret once enabled");

  const other = one.body.secret;
  const replace = await app.json("POST", "/api/user/mfa/totp", {
    code: code(other, app.clock.now()),
    secret: other,
  }, alice.headers);
  assert.deepEqual(replace.body, { error: "TOTP is already enabled", statusCode: 400 });
});

apiTest("enabling needs a code that verifies; the secret is stored encrypted", async (app) => {
  await enableSetting(app);
  const alice = await actor(app, "USER", "alice");
  const { secret } = (await app.json("GET", "/api/user/mfa/totp", undefined, alice.headers)).body;
  const wrong = wrongCode(secret, app.clock.now());
  for (
    const bad of [{ code: wrong, secret }, { code: code(secret, app.clock.now()), secret: "!" }]
  ) {
    const body = { ...bad, currentPassword: "password" };
    const res = await app.json("POST", "/api/user/mfa/totp", body, alice.headers);
    assert.deepEqual(res.body, { error: "Invalid code", statusCode: 400 });
  }
  const short = await app.json(
    "POST",
    "/api/user/mfa/totp",
    { code: "12345", secret },
    alice.headers,
  );
  assert.equal(short.status, 400);
  assert.equal(short.body.issues[0].path[0], "code");
  assert.equal(
    (await app.json("GET", "/api/user", undefined, alice.headers)).body.user.totp,
    false,
  );

  const ok = await app.json("POST", "/api/user/mfa/totp", {
    code: code(secret, app.clock.now()),
    secret,
    currentPassword: "password",
  }, alice.headers);
  assert.equal(ok.status, 200);
  assert.equal(ok.body.totp, true);
  const stored = (await app.services.store.users.get(alice.user.id))!.totpSecret!;
  assert.ok(!stored.includes(secret));
  assert.equal(decrypt(stored, TEST_SECRET), secret);
});

apiTest("login asks for the code, then takes a valid one and refuses a wrong one", async (app) => {
  await enableSetting(app);
  const alice = await actor(app, "USER", "alice");
  const secret = await enableTotp(app, alice);
  const ask = await login(app);
  assert.deepEqual(ask.body, { totp: true });
  assert.deepEqual(ask.headers.getSetCookie(), []);
  for (const wrong of [wrongCode(secret, app.clock.now()), "12345", "abcdef", "1234567"]) {
    const res = await login(app, { code: wrong });
    assert.deepEqual(res.body, { error: "Invalid code", statusCode: 400 }, wrong);
    assert.deepEqual(res.headers.getSetCookie(), []);
  }
  const ok = await login(app, { code: code(secret, app.clock.now()) });
  assert.equal(ok.status, 200);
  const me = await app.json("GET", "/api/user", undefined, { cookie: sessionCookie(ok.headers) });
  assert.equal(me.body.user.username, "alice");
});

apiTest("a code one step early or late is accepted, two steps off is not", async (app) => {
  await enableSetting(app);
  const alice = await actor(app, "USER", "alice");
  const secret = await enableTotp(app, alice);
  app.clock.advance(10 * STEP);
  const now = app.clock.now();
  for (const offset of [-2, 2]) {
    const res = await login(app, { code: code(secret, now + offset * STEP) });
    assert.deepEqual(res.body, { error: "Invalid code", statusCode: 400 }, `${offset} steps`);
  }
  // Increasing steps: each is later than the one accepted before it.
  for (const offset of [-1, 0, 1]) {
    const res = await login(app, { code: code(secret, now + offset * STEP) });
    assert.equal(res.status, 200, `${offset} steps`);
  }
});

apiTest("a code is accepted once, even by concurrent logins", async (app) => {
  await enableSetting(app);
  const alice = await actor(app, "USER", "alice");
  const secret = await enableTotp(app, alice);
  const current = code(secret, app.clock.now());
  assert.equal((await login(app, { code: current })).status, 200);
  app.clock.advance(STEP / 3);
  const replay = await login(app, { code: current });
  assert.deepEqual(replay.body, { error: "Invalid code", statusCode: 400 });
  const earlier = await login(app, { code: code(secret, app.clock.now() - STEP) });
  assert.equal(earlier.status, 400, "an earlier step than the last accepted one");

  app.clock.advance(STEP);
  const next = code(secret, app.clock.now());
  const race = await Promise.all([1, 2, 3, 4].map(() => login(app, { code: next })));
  assert.deepEqual(race.map((r) => r.status).sort(), [200, 400, 400, 400]);
});

apiTest("wrong codes count against the login rate limit", async (app) => {
  await enableSetting(app);
  const alice = await actor(app, "USER", "alice");
  const secret = await enableTotp(app, alice);
  app.clock.set(Math.ceil(app.clock.now() / 2000) * 2000);
  assert.equal((await login(app, { code: wrongCode(secret, app.clock.now()) })).status, 400);
  const limited = await login(app, { code: code(secret, app.clock.now()) });
  assert.equal(limited.status, 429);
}, { rateLimits: true });

apiTest("disabling needs a valid code; then login asks for none", async (app) => {
  await enableSetting(app);
  const alice = await actor(app, "USER", "alice");
  const secret = await enableTotp(app, alice);
  const wrong = await app.json("DELETE", "/api/user/mfa/totp", {
    code: wrongCode(secret, app.clock.now()),
    currentPassword: "password",
  }, alice.headers);
  assert.deepEqual(wrong.body, { error: "Invalid code", statusCode: 400 });
  const ok = await app.json("DELETE", "/api/user/mfa/totp", {
    code: code(secret, app.clock.now()),
    currentPassword: "password",
  }, alice.headers);
  assert.equal(ok.status, 200);
  assert.equal(ok.body.totp, false);
  assert.equal((await app.services.store.users.get(alice.user.id))!.totpSecret, null);
  assert.equal((await login(app)).status, 200);
  const again = await app.json("DELETE", "/api/user/mfa/totp", { code: "123456" }, alice.headers);
  assert.deepEqual(again.body, { error: "You don't have TOTP enabled", statusCode: 400 });
});

apiTest("a user with TOTP still needs the code after the setting is turned off", async (app) => {
  await enableSetting(app);
  const alice = await actor(app, "USER", "alice");
  const secret = await enableTotp(app, alice);
  await enableSetting(app, false);
  assert.deepEqual((await login(app)).body, { totp: true });
  assert.equal((await login(app, { code: code(secret, app.clock.now()) })).status, 200);
});

apiTest(
  "conformance: the TOTP secret can be loaded twice in a row (default limit)",
  async (app) => {
    await enableSetting(app);
    const alice = await actor(app, "USER", "alice");
    const first = await app.json("GET", "/api/user/mfa/totp", undefined, alice.headers);
    const second = await app.json("GET", "/api/user/mfa/totp", undefined, alice.headers);
    assert.deepEqual([first.status, second.status], [200, 200]);
    assert.equal(second.headers.get("x-ratelimit-limit"), "10");
  },
  { rateLimits: true },
);

apiTest(
  "security #4: turning TOTP on needs the current password; off, a wrong one sent is refused",
  async (app) => {
    await enableSetting(app);
    const alice = await actor(app, "USER", "alice");
    const { secret } = (await app.json("GET", "/api/user/mfa/totp", undefined, alice.headers)).body;
    const totpOn = async () =>
      (await app.json("GET", "/api/user", undefined, alice.headers)).body.user.totp;
    const send = (method: string, extra: Record<string, string>) =>
      app.json(method, "/api/user/mfa/totp", {
        code: code(secret, app.clock.now()),
        ...(method === "POST" ? { secret } : {}),
        ...extra,
      }, alice.headers);
    const missing = await send("POST", {});
    assert.deepEqual(missing.body, { error: "currentPassword is required", statusCode: 400 });
    for (const [method, before] of [["POST", false], ["DELETE", true]] as const) {
      const wrong = await send(method, { currentPassword: "wrong" });
      assert.deepEqual(wrong.body, { error: "Invalid current password", statusCode: 403 });
      assert.equal(await totpOn(), before, `${method} changed nothing`);
      assert.equal((await send(method, { currentPassword: "password" })).status, 200, method);
      assert.equal(await totpOn(), !before);
      app.clock.advance(STEP);
    }
  },
);

apiTest(
  "security #4: a session signed in under 10 minutes ago is proof on its own (Zipline's client turns TOTP on)",
  async (app) => {
    await enableSetting(app);
    const alice = await actor(app, "USER", "alice");
    const signIn = await app.json("POST", "/api/auth/login", {
      username: "alice",
      password: "password",
    });
    const session = { cookie: sessionCookie(signIn.headers) };
    const { secret } = (await app.json("GET", "/api/user/mfa/totp", undefined, session)).body;
    const totpOn = async () =>
      (await app.json("GET", "/api/user", undefined, alice.headers)).body.user.totp;
    const send = (method: string, headers: Record<string, string>, extra = {}) =>
      app.json(method, "/api/user/mfa/totp", {
        code: code(secret, app.clock.now()),
        ...(method === "POST" ? { secret } : {}),
        ...extra,
      }, headers);

    const byToken = await send("POST", alice.headers);
    assert.deepEqual(byToken.body, { error: "currentPassword is required", statusCode: 400 });
    const wrong = await send("POST", session, { currentPassword: "wrong" });
    assert.deepEqual(wrong.body, { error: "Invalid current password", statusCode: 403 });
    assert.equal(await totpOn(), false, "neither a token nor a wrong password turned it on");

    assert.equal((await send("POST", session)).status, 200, "fresh session, no password");
    assert.equal(await totpOn(), true);
    app.clock.advance(STEP);
    assert.equal((await send("DELETE", session)).status, 200, "off: the code is proof");

    app.clock.advance(10 * 60_000);
    const stale = await send("POST", session);
    assert.deepEqual(stale.body, { error: "currentPassword is required", statusCode: 400 });
    assert.equal(await totpOn(), false, "a session 10 minutes old proves nothing alone");
    assert.equal((await send("POST", session, { currentPassword: "password" })).status, 200);
    assert.equal(await totpOn(), true);
  },
);

// The third review (issue #30).

apiTest(
  "conformance: DELETE /api/user/mfa/totp with a valid code is proof on its own, with a token or a session; an invalid code is 400 `Invalid code`",
  async (app) => {
    await enableSetting(app);
    const alice = await actor(app, "USER", "alice");
    const totpOn = async () =>
      (await app.json("GET", "/api/user", undefined, alice.headers)).body.user.totp;
    const off = (secret: string, headers: Record<string, string>, value?: string) =>
      app.json("DELETE", "/api/user/mfa/totp", {
        code: value ?? code(secret, app.clock.now()),
      }, headers);

    const secret = await enableTotp(app, alice);
    const invalid = await off(secret, alice.headers, wrongCode(secret, app.clock.now()));
    assert.deepEqual(invalid.body, { error: "Invalid code", statusCode: 400 });
    assert.equal(await totpOn(), true);
    const byToken = await off(secret, alice.headers);
    assert.equal(byToken.status, 200, JSON.stringify(byToken.body));
    assert.equal(byToken.body.totp, false);
    assert.equal(await totpOn(), false);

    app.clock.advance(STEP);
    const again = await enableTotp(app, alice);
    const signIn = await login(app, { code: code(again, app.clock.now()) });
    const session = { cookie: sessionCookie(signIn.headers) };
    app.clock.advance(60 * 60_000);
    const stale = await off(again, session);
    assert.equal(stale.status, 200, "an hour-old session with a valid code");
    assert.equal(await totpOn(), false);
  },
);

apiTest(
  "security #30.9: codes tried for one account count wherever they come from: 5 in 5 minutes, then 429",
  async (app) => {
    await enableSetting(app);
    await app.services.store.settings.update({ coreTrustProxy: true });
    await app.services.settings.reload();
    app.clock.set(Math.ceil(app.clock.now() / CODE_WINDOW_MS) * CODE_WINDOW_MS);
    const alice = await actor(app, "USER", "alice");
    const bob = await actor(app, "USER", "bob");
    const secret = await enableTotp(app, alice); // 1
    const bobs = await enableTotp(app, bob);
    const from = (n: number) => ({ "x-forwarded-for": `198.51.100.${n}` });
    for (let n = 0; n < 3; n++) { // 2, 3, 4
      const res = await app.json("POST", "/api/auth/login", {
        username: "alice",
        password: "password",
        code: wrongCode(secret, app.clock.now()),
      }, from(n));
      assert.deepEqual(res.body, { error: "Invalid code", statusCode: 400 }, `address ${n}`);
    }
    const off = await app.json("DELETE", "/api/user/mfa/totp", {
      code: wrongCode(secret, app.clock.now()),
    }, { ...alice.headers, ...from(10) }); // 5
    assert.deepEqual(off.body, { error: "Invalid code", statusCode: 400 });

    const limited = await app.json("POST", "/api/auth/login", {
      username: "alice",
      password: "password",
      code: code(secret, app.clock.now()),
    }, from(20));
    assert.equal(limited.status, 429);
    assert.match(limited.body.error, /^Too many codes were tried for this account; try again in/);
    const retry = Number(limited.headers.get("retry-after"));
    assert.ok(retry > 0 && retry <= 300, String(retry));
    assert.deepEqual(limited.headers.getSetCookie(), [], "not even a valid code signs in");
    const disable = await app.json("DELETE", "/api/user/mfa/totp", {
      code: code(secret, app.clock.now()),
    }, { ...alice.headers, ...from(21) });
    assert.equal(disable.status, 429, "nor turns TOTP off");

    const other = await app.json("POST", "/api/auth/login", {
      username: "bob",
      password: "password",
      code: code(bobs, app.clock.now()),
    }, from(22));
    assert.equal(other.status, 200, "another account is not held back");

    app.clock.advance(CODE_WINDOW_MS);
    const later = await app.json("POST", "/api/auth/login", {
      username: "alice",
      password: "password",
      code: code(secret, app.clock.now()),
    }, from(23));
    assert.equal(later.status, 200, "after the wait");
  },
  { rateLimits: true },
);
