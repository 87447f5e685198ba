/**
 * Passkeys (spec §4.4) with a software authenticator: registration,
 * passwordless sign-in, and the responses that must be refused (a bad
 * signature, a replayed challenge, a wrong origin or RP ID, a stale counter)
 * with a 4xx and no session.
 */
import assert from "node:assert/strict";
import { rpIdAllowed } from "../../core/passkeys.ts";
import { apiTest, sessionCookie, type TestApp } from "../helpers/app.ts";
import { type CeremonyOptions, SoftAuthenticator } from "../helpers/authenticator.ts";
import { type Actor, actor } from "../helpers/users.ts";

const ORIGIN = "http://ferry.test";
const RP_ID = "ferry.test";

async function enablePasskeys(app: TestApp, settings: Record<string, unknown> = {}) {
  await app.services.store.settings.update({
    mfaPasskeysEnabled: true,
    mfaPasskeysRpID: RP_ID,
    mfaPasskeysOrigin: ORIGIN,
    ...settings,
  });
  await app.services.settings.reload();
}

/** Registers a passkey for `who` on a new authenticator; returns it and the reply. */
async function register(app: TestApp, who: Actor, name = "laptop", ceremony?: CeremonyOptions) {
  const authenticator = await SoftAuthenticator.create(ORIGIN, RP_ID);
  const options = await app.json("GET", "/api/user/mfa/passkey/options", undefined, who.headers);
  assert.equal(options.status, 200);
  const response = await authenticator.register(options.body, ceremony);
  const reply = await app.json("POST", "/api/user/mfa/passkey", {
    response,
    name,
    currentPassword: "password",
  }, who.headers);
  return { authenticator, reply };
}

/** Fetches sign-in options; returns them with the challenge cookie pair. */
async function loginOptions(app: TestApp) {
  const res = await app.json("GET", "/api/auth/webauthn/options");
  assert.equal(res.status, 200);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("webauthn-challenge-id="));
  assert.ok(cookie, "no challenge cookie");
  return { body: res.body, cookie: cookie.split(";")[0], setCookie: cookie };
}

/** Signs in with `authenticator`'s passkey. */
async function signIn(app: TestApp, authenticator: SoftAuthenticator, ceremony?: CeremonyOptions) {
  const { body, cookie } = await loginOptions(app);
  const response = await authenticator.authenticate(body.options, ceremony);
  return await app.json("POST", "/api/auth/webauthn", { response }, { cookie });
}

function assertRefused(res: { status: number; headers: Headers }, message: RegExp) {
  assert.equal(res.status, 400, JSON.stringify(res));
  assert.match((res as unknown as { body: { error: string } }).body.error, message);
  assert.equal(
    res.headers.getSetCookie().some((c) => c.startsWith("service_session=")),
    false,
    "a session cookie was set",
  );
}

apiTest(
  "passkey routes answer 404 while passkeys are off",
  async (app) => {
    const alice = await actor(app, "USER", "alice");
    const routes: [string, string, unknown?][] = [
      ["GET", "/api/auth/webauthn/options"],
      ["GET", "/api/user/mfa/passkey"],
      ["GET", "/api/user/mfa/passkey/options"],
      ["DELETE", "/api/user/mfa/passkey", { id: "x" }],
    ];
    for (const settings of [{}, { mfaPasskeysRpID: RP_ID, mfaPasskeysOrigin: ORIGIN }]) {
      await app.services.store.settings.update(settings);
      await app.services.settings.reload();
      for (const [method, path, body] of routes) {
        const res = await app.json(method, path, body, alice.headers);
        assert.deepEqual(res.body, { error: "Not Found", statusCode: 404 }, `${method} ${path}`);
      }
    }
  },
);

apiTest(
  "registration options name the RP ID, prefer verification and exclude known passkeys",
  async (app) => {
    await enablePasskeys(app);
    const alice = await actor(app, "USER", "alice");
    const first = await app.json("GET", "/api/user/mfa/passkey/options", undefined, alice.headers);
    assert.equal(first.status, 200);
    assert.equal(first.body.rp.id, RP_ID);
    assert.equal(first.body.user.name, "alice");
    assert.deepEqual(first.body.authenticatorSelection, {
      userVerification: "preferred",
      residentKey: "preferred",
      requireResidentKey: false,
    });
    assert.deepEqual(first.body.excludeCredentials, []);
    const { authenticator, reply } = await register(app, alice);
    assert.equal(reply.status, 200);
    const again = await app.json("GET", "/api/user/mfa/passkey/options", undefined, alice.headers);
    assert.deepEqual(again.body.excludeCredentials.map((c: { id: string }) => c.id), [
      authenticator.id,
    ]);
  },
);

apiTest("a registered passkey is listed without its key, and signs in", async (app) => {
  await enablePasskeys(app);
  const alice = await actor(app, "USER", "alice");
  const { authenticator, reply } = await register(app, alice, "  work laptop  ");
  assert.equal(reply.status, 200);
  assert.deepEqual(Object.keys(reply.body).sort(), ["createdAt", "id", "lastUsed", "name"]);
  assert.equal(reply.body.name, "work laptop");
  assert.equal(reply.body.lastUsed, null);

  app.clock.advance(5000);
  const options = await loginOptions(app);
  assert.match(
    options.setCookie,
    /Max-Age=120; Path=\/api\/auth\/webauthn; HttpOnly; SameSite=Lax/,
  );
  assert.equal(options.body.options.rpId, RP_ID);
  assert.equal(options.body.options.allowCredentials, undefined);
  const response = await authenticator.authenticate(options.body.options);
  const login = await app.json("POST", "/api/auth/webauthn", { response }, {
    cookie: options.cookie,
  });
  assert.equal(login.status, 200);
  assert.equal(login.body.user.username, "alice");
  const me = await app.json("GET", "/api/user", undefined, {
    cookie: sessionCookie(login.headers),
  });
  assert.equal(me.body.user.username, "alice");

  const list = await app.json("GET", "/api/user/mfa/passkey", undefined, alice.headers);
  assert.deepEqual(list.body, [{
    ...reply.body,
    lastUsed: new Date(app.clock.now()).toISOString(),
  }]);
});

apiTest(
  "a registration is refused for a wrong origin, a wrong RP ID or a used challenge",
  async (app) => {
    await enablePasskeys(app);
    const alice = await actor(app, "USER", "alice");
    const wrongOrigin = await register(app, alice, "a", { origin: "http://evil.test" });
    assertRefused(wrongOrigin.reply, /^Error verifying passkey registration: .*origin/);
    const wrongRp = await register(app, alice, "b", { rpId: "evil.test" });
    assertRefused(wrongRp.reply, /^Error verifying passkey registration: .*RP ID/);

    const authenticator = await SoftAuthenticator.create(ORIGIN, RP_ID);
    const options = await app.json(
      "GET",
      "/api/user/mfa/passkey/options",
      undefined,
      alice.headers,
    );
    const response = await authenticator.register(options.body);
    const ok = await app.json(
      "POST",
      "/api/user/mfa/passkey",
      { response, name: "c", currentPassword: "password" },
      alice.headers,
    );
    assert.equal(ok.status, 200);
    const replay = await app.json(
      "POST",
      "/api/user/mfa/passkey",
      { response, name: "d", currentPassword: "password" },
      alice.headers,
    );
    assertRefused(replay, /^Passkey registration timed out/);

    const list = await app.json("GET", "/api/user/mfa/passkey", undefined, alice.headers);
    assert.deepEqual(list.body.map((p: { name: string }) => p.name), ["c"]);
  },
);

apiTest(
  "a registration challenge expires after two minutes and is not another user's",
  async (app) => {
    await enablePasskeys(app);
    const alice = await actor(app, "USER", "alice");
    const bob = await actor(app, "USER", "bob");
    const authenticator = await SoftAuthenticator.create(ORIGIN, RP_ID);
    const options = await app.json(
      "GET",
      "/api/user/mfa/passkey/options",
      undefined,
      alice.headers,
    );
    const response = await authenticator.register(options.body);
    const asBob = await app.json(
      "POST",
      "/api/user/mfa/passkey",
      { response, name: "x", currentPassword: "password" },
      bob.headers,
    );
    assertRefused(asBob, /^Passkey registration timed out/);
    app.clock.advance(2 * 60 * 1000 + 1);
    const late = await app.json(
      "POST",
      "/api/user/mfa/passkey",
      { response, name: "x", currentPassword: "password" },
      alice.headers,
    );
    assertRefused(late, /^Passkey registration timed out/);
  },
);

apiTest("a credential registers once", async (app) => {
  await enablePasskeys(app);
  const alice = await actor(app, "USER", "alice");
  const { authenticator } = await register(app, alice);
  const options = await app.json("GET", "/api/user/mfa/passkey/options", undefined, alice.headers);
  const response = await authenticator.register(options.body);
  const again = await app.json(
    "POST",
    "/api/user/mfa/passkey",
    { response, name: "y", currentPassword: "password" },
    alice.headers,
  );
  assertRefused(again, /^This passkey is already registered$/);
});

apiTest(
  "sign-in is refused for a bad signature, a wrong origin, a wrong RP ID or an old counter",
  async (app) => {
    await enablePasskeys(app);
    const alice = await actor(app, "USER", "alice");
    const { authenticator } = await register(app, alice);

    const { body, cookie } = await loginOptions(app);
    const forged = await authenticator.authenticate(body.options);
    const response = forged.response as Record<string, string>;
    const signature = atob(response.signature.replaceAll("-", "+").replaceAll("_", "/"));
    const flipped = signature.slice(0, -1) +
      String.fromCharCode(signature.charCodeAt(-1 + signature.length) ^ 1);
    response.signature = btoa(flipped).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
    assertRefused(
      await app.json("POST", "/api/auth/webauthn", { response: forged }, { cookie }),
      /verify/,
    );

    assertRefused(await signIn(app, authenticator, { origin: "http://evil.test" }), /origin/);
    assertRefused(await signIn(app, authenticator, { rpId: "evil.test" }), /RP ID/);

    assert.equal((await signIn(app, authenticator)).status, 200);
    const stale = await signIn(app, authenticator, { counter: authenticator.counter });
    assertRefused(stale, /counter/);
    assert.equal((await signIn(app, authenticator)).status, 200);
  },
);

apiTest(
  "a sign-in challenge answers once, within two minutes, and needs its cookie",
  async (app) => {
    await enablePasskeys(app);
    const alice = await actor(app, "USER", "alice");
    const { authenticator } = await register(app, alice);

    const { body, cookie } = await loginOptions(app);
    const response = await authenticator.authenticate(body.options);
    assertRefused(
      await app.json("POST", "/api/auth/webauthn", { response }),
      /^Missing WebAuthn challenge ID$/,
    );
    assert.equal(
      (await app.json("POST", "/api/auth/webauthn", { response }, { cookie })).status,
      200,
    );
    const replay = await app.json("POST", "/api/auth/webauthn", { response }, { cookie });
    assertRefused(replay, /^Passkey sign-in timed out/);
    const fresh = await authenticator.authenticate(body.options);
    assertRefused(
      await app.json("POST", "/api/auth/webauthn", { response: fresh }, { cookie }),
      /timed out/,
    );

    const late = await loginOptions(app);
    app.clock.advance(2 * 60 * 1000 + 1);
    const lateResponse = await authenticator.authenticate(late.body.options);
    assertRefused(
      await app.json("POST", "/api/auth/webauthn", { response: lateResponse }, {
        cookie: late.cookie,
      }),
      /timed out/,
    );
  },
);

apiTest("an unknown credential is refused", async (app) => {
  await enablePasskeys(app);
  const stranger = await SoftAuthenticator.create(ORIGIN, RP_ID);
  assertRefused(await signIn(app, stranger), /^Could not verify passkey authentication$/);
});

apiTest("a removed passkey no longer signs in; another user's cannot be removed", async (app) => {
  await enablePasskeys(app);
  const alice = await actor(app, "USER", "alice");
  const bob = await actor(app, "USER", "bob");
  const { authenticator, reply } = await register(app, alice);
  const byBob = await app.json(
    "DELETE",
    "/api/user/mfa/passkey",
    { id: reply.body.id, currentPassword: "password" },
    bob.headers,
  );
  assert.deepEqual(byBob.body, { error: "Passkey not found", statusCode: 404 });
  const removed = await app.json(
    "DELETE",
    "/api/user/mfa/passkey",
    { id: reply.body.id, currentPassword: "password" },
    alice.headers,
  );
  assert.equal(removed.status, 200);
  assert.equal(removed.body.username, "alice");
  const list = await app.json("GET", "/api/user/mfa/passkey", undefined, alice.headers);
  assert.deepEqual(list.body, []);
  assertRefused(await signIn(app, authenticator), /^Could not verify passkey authentication$/);
});

apiTest("a deleted user's passkeys go with it", async (app) => {
  await enablePasskeys(app);
  const admin = await actor(app, "ADMIN", "root");
  const alice = await actor(app, "USER", "alice");
  const { authenticator } = await register(app, alice);
  const deleted = await app.json("DELETE", `/api/users/${alice.user.id}`, {}, admin.headers);
  assert.equal(deleted.status, 200);
  assertRefused(await signIn(app, authenticator), /^Could not verify passkey authentication$/);
});

apiTest("the RP ID must be the service's domain or a parent of it", async (app) => {
  const alice = await actor(app, "USER", "alice");
  await enablePasskeys(app, { mfaPasskeysRpID: "example.com" });
  for (const path of ["/api/auth/webauthn/options", "/api/user/mfa/passkey/options"]) {
    const res = await app.json("GET", path, undefined, alice.headers);
    assert.equal(res.status, 400);
    assert.match(
      res.body.error,
      /RP ID example\.com is neither this service's domain \(ferry\.test\)/,
    );
    assert.deepEqual(res.headers.getSetCookie(), []);
  }
  await enablePasskeys(app);
  const sub = await app.json("GET", "http://files.ferry.test/api/auth/webauthn/options");
  assert.equal(sub.status, 200, "a parent domain is allowed");
  const other = await app.json("GET", "http://other.test/api/auth/webauthn/options");
  assert.equal(other.status, 400);
  await enablePasskeys(app, { coreDefaultDomain: "files.ferry.test:3000" });
  const configured = await app.json("GET", "http://other.test/api/auth/webauthn/options");
  assert.equal(configured.status, 200, "coreDefaultDomain is the service's domain when set");
});

Deno.test("rpIdAllowed: the host itself or a registrable parent", () => {
  assert.ok(rpIdAllowed("localhost", "localhost"));
  assert.ok(rpIdAllowed("example.com", "files.example.com"));
  assert.ok(rpIdAllowed("Example.COM", "a.b.example.com"));
  assert.ok(!rpIdAllowed("com", "example.com"));
  assert.ok(!rpIdAllowed("ample.com", "example.com"));
  assert.ok(!rpIdAllowed("files.example.com", "example.com"));
  assert.ok(!rpIdAllowed("0.0.1", "127.0.0.1"));
  assert.ok(rpIdAllowed("127.0.0.1", "127.0.0.1"));
});

apiTest(
  "security #4: registering or removing a passkey needs the current password",
  async (app) => {
    await enablePasskeys(app);
    const alice = await actor(app, "USER", "alice");
    const authenticator = await SoftAuthenticator.create(ORIGIN, RP_ID);
    const options = await app.json(
      "GET",
      "/api/user/mfa/passkey/options",
      undefined,
      alice.headers,
    );
    const response = await authenticator.register(options.body);
    const list = async () =>
      (await app.json("GET", "/api/user/mfa/passkey", undefined, alice.headers)).body;
    const add = (extra: Record<string, string>) =>
      app.json("POST", "/api/user/mfa/passkey", { response, name: "key", ...extra }, alice.headers);
    const missing = await add({});
    assert.deepEqual(missing.body, { error: "currentPassword is required", statusCode: 400 });
    const wrong = await add({ currentPassword: "wrong" });
    assert.deepEqual(wrong.body, { error: "Invalid current password", statusCode: 403 });
    assert.deepEqual(await list(), []);
    const added = await add({ currentPassword: "password" });
    assert.equal(added.status, 200);

    const remove = (extra: Record<string, string>) =>
      app.json("DELETE", "/api/user/mfa/passkey", { id: added.body.id, ...extra }, alice.headers);
    assert.deepEqual((await remove({})).body, {
      error: "currentPassword is required",
      statusCode: 400,
    });
    const refused = await remove({ currentPassword: "wrong" });
    assert.deepEqual(refused.body, { error: "Invalid current password", statusCode: 403 });
    assert.equal((await list()).length, 1);
    assert.equal((await remove({ currentPassword: "password" })).status, 200);
    assert.deepEqual(await list(), []);
  },
);

apiTest(
  "conformance #30: passkeys turned on without an RP ID or origin (as Zipline's client does) " +
    "derive both from the request or coreDefaultDomain",
  async (app) => {
    const root = await actor(app, "SUPERADMIN", "root");
    const saved = await app.json(
      "PATCH",
      "/api/server/settings",
      { mfaPasskeys: true },
      root.headers,
    );
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.deepEqual(
      [saved.body.settings.mfaPasskeysRpID, saved.body.settings.mfaPasskeysOrigin],
      [null, null],
    );
    const web = await app.json("GET", "/api/server/settings/web", undefined, root.headers);
    assert.equal(web.body.config.mfa.passkeys, true, "Zipline's pages offer passkeys");

    // The request's own host: ferry.test (app.request sends to http://ferry.test).
    const alice = await actor(app, "USER", "alice");
    const options = await app.json(
      "GET",
      "/api/user/mfa/passkey/options",
      undefined,
      alice.headers,
    );
    assert.equal(options.status, 200);
    assert.equal(options.body.rp.id, "ferry.test");
    const { authenticator, reply } = await register(app, alice);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const { body } = await loginOptions(app);
    assert.equal(body.options.rpId, "ferry.test");
    assert.equal((await signIn(app, authenticator)).status, 200);
    // The origin derived is this host's: a page on another origin is refused.
    assertRefused(
      await signIn(app, authenticator, { origin: "https://evil.test" }),
      /Unexpected authentication response origin/,
    );

    // With coreDefaultDomain set, it is the service's host, whatever the request's; an https page
    // on that host and port is accepted (a proxy in front may end TLS).
    await app.services.store.settings.update({ coreDefaultDomain: "files.example.com:8443" });
    await app.services.settings.reload();
    const other = await app.json("GET", "http://10.1.2.3:3000/api/auth/webauthn/options");
    assert.equal(other.body.options.rpId, "files.example.com");
    const bob = await actor(app, "USER", "bob");
    const key = await SoftAuthenticator.create(
      "https://files.example.com:8443",
      "files.example.com",
    );
    const bobOptions = await app.json(
      "GET",
      "/api/user/mfa/passkey/options",
      undefined,
      bob.headers,
    );
    assert.equal(bobOptions.body.rp.id, "files.example.com");
    const bobReply = await app.json("POST", "/api/user/mfa/passkey", {
      response: await key.register(bobOptions.body),
      name: "phone",
      currentPassword: "password",
    }, bob.headers);
    assert.equal(bobReply.status, 200, JSON.stringify(bobReply.body));
    assert.equal((await signIn(app, key)).status, 200);
    assertRefused(
      await signIn(app, key, { origin: "https://files.example.com" }),
      /Unexpected authentication response origin/,
    );
  },
);

// The third review (issue #30).

apiTest(
  "security #30.2: an account without a password proves with a passkey sign-in moments ago, never its token",
  async (app) => {
    await enablePasskeys(app);
    const alice = await actor(app, "USER", "alice");
    const { authenticator, reply } = await register(app, alice);
    assert.equal(reply.status, 200);
    // As an account made by a provider that later added this passkey: no password.
    await app.services.store.users.update(alice.user.id, { password: null }, new Date());
    const noPassword = {
      error: "This account has no password: sign in again with its passkey or linked account " +
        "to confirm",
      statusCode: 400,
    };
    const list = async () =>
      (await app.json("GET", "/api/user/mfa/passkey", undefined, alice.headers)).body;

    const removed = await app.json("DELETE", "/api/user/mfa/passkey", {
      id: reply.body.id,
    }, alice.headers);
    assert.deepEqual(removed.body, noPassword);
    const other = await SoftAuthenticator.create(ORIGIN, RP_ID);
    const options = await app.json(
      "GET",
      "/api/user/mfa/passkey/options",
      undefined,
      alice.headers,
    );
    const added = await app.json("POST", "/api/user/mfa/passkey", {
      response: await other.register(options.body),
      name: "mallory's key",
    }, alice.headers);
    assert.deepEqual(added.body, noPassword);
    const set = await app.json("PATCH", "/api/user", { password: "mine-now" }, alice.headers);
    assert.deepEqual(set.body, noPassword);
    assert.equal((await list()).length, 1, "the token changed nothing");

    const login = await signIn(app, authenticator);
    assert.equal(login.status, 200);
    const fresh = { cookie: sessionCookie(login.headers) };
    app.clock.advance(10 * 60_000);
    const stale = await app.json("PATCH", "/api/user", { password: "mine-now" }, fresh);
    assert.deepEqual(stale.body, noPassword, "ten minutes later, the sign-in proves nothing");

    const again = { cookie: sessionCookie((await signIn(app, authenticator)).headers) };
    const chosen = await app.json("PATCH", "/api/user", { password: "chosen-one" }, again);
    assert.equal(chosen.status, 200);
    const byPassword = await app.json("POST", "/api/auth/login", {
      username: "alice",
      password: "chosen-one",
    });
    assert.equal(byPassword.status, 200);
  },
);

apiTest(
  "security #30.1: a passkey sign-in is not proof for an account with a password",
  async (app) => {
    await enablePasskeys(app);
    const bob = await actor(app, "USER", "bob");
    const { authenticator, reply } = await register(app, bob);
    const login = await signIn(app, authenticator);
    const cookie = sessionCookie(login.headers);
    const required = { error: "currentPassword is required", statusCode: 400 };
    const set = await app.json("PATCH", "/api/user", { password: "taken-over" }, { cookie });
    assert.deepEqual(set.body, required);
    const removed = await app.json("DELETE", "/api/user/mfa/passkey", { id: reply.body.id }, {
      cookie,
    });
    assert.deepEqual(removed.body, required);
    const proven = await app.json("DELETE", "/api/user/mfa/passkey", {
      id: reply.body.id,
      currentPassword: "password",
    }, { cookie });
    assert.equal(proven.status, 200);
  },
);
