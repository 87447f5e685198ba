/**
 * Signing in with OpenID Connect against a real provider (`oidc-provider` on
 * loopback, tests/helpers/oidc_provider.ts), over HTTP with manual redirects:
 * registration on and off, `oauthLoginOnly`, a linked account signing in, a
 * tampered state, a wrong nonce, an expired ID token, an ID token for
 * another audience, from another issuer or with a forged signature (rewritten
 * by a relay in front of the provider's token endpoint), refused consent,
 * linking and unlinking, and the TOTP step.
 */
import assert from "node:assert/strict";
import { Secret, TOTP } from "otpauth";
import { decrypt, encrypt } from "../../core/tokens.ts";
import { systemRandom } from "../../core/clock.ts";
import { finishTotpStep, issueTotpTicket } from "../../core/oauth/totp.ts";
import { clientFromUserAgent } from "../../core/sessions.ts";
import { openKvStore } from "../../db/kv/mod.ts";
import { openPostgresStore } from "../../db/postgres/mod.ts";
import { servingStore } from "../../db/serving.ts";
import { apiTest, sessionCookie, TEST_SECRET, type TestApp } from "../helpers/app.ts";
import {
  type IdTokenRewrite,
  type ProviderOptions,
  startOidcProvider,
  type TestProvider,
} from "../helpers/oidc_provider.ts";
import { fixtureV4, importDoc } from "../helpers/transfer.ts";
import { actor } from "../helpers/users.ts";

const CALLBACK = "http://ferry.test/api/auth/oauth/oidc";

/** Runs `fn` with a provider the app's generic OIDC settings point at (plus `settings`). */
function oauthTest(
  name: string,
  fn: (app: TestApp, idp: TestProvider) => Promise<void>,
  settings: Record<string, unknown> = {},
  provider: Omit<ProviderOptions, "redirectUri"> = {},
) {
  apiTest(name, async (app) => {
    const idp = await startOidcProvider({ redirectUri: CALLBACK, ...provider });
    try {
      await app.services.store.settings.update({ ...idp.settings, ...settings });
      await app.services.settings.reload();
      await fn(app, idp);
    } finally {
      await idp.close();
    }
  });
}

const cookiePair = (res: Response | { headers: Headers }, name: string) =>
  res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))?.split(";")[0];

/** Starts a flow (with the browser's `cookie`); returns the provider URL and the flow cookie. */
async function start(app: TestApp, query = "", cookie = "", headers: HeadersInit = {}) {
  const res = await app.request(`/api/auth/oauth/oidc${query}`, {
    headers: { cookie, ...headers },
  });
  assert.equal(res.status, 302, await res.clone().text());
  return { location: res.headers.get("location")!, flow: cookiePair(res, "service_oauth")! };
}

/**
 * Starts linking with `POST /api/auth/oauth/oidc/link` from the session
 * `cookie` (with `body`'s proof); returns the provider URL and the flow cookie.
 */
async function startLinking(app: TestApp, cookie: string, body: Record<string, string> = {}) {
  const res = await app.json("POST", "/api/auth/oauth/oidc/link", body, { cookie });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { location: res.body.url as string, flow: cookiePair(res, "service_oauth")! };
}

/** Comes back from the provider to Ferry's callback with the cookies given. */
async function callback(app: TestApp, url: URL, cookie: string) {
  return await app.request(url.pathname + url.search, { headers: { cookie } });
}

/**
 * A whole sign-in as `login`: start, the provider's pages, the callback;
 * with a `session`, a link of that account to the session's user instead.
 */
async function signIn(app: TestApp, idp: TestProvider, login: string, session = "") {
  const { location, flow } = session ? await startLinking(app, session) : await start(app);
  const back = await idp.authorize(location, login);
  return await callback(app, back, [flow, session].filter(Boolean).join("; "));
}

const me = async (app: TestApp, cookie: string) =>
  (await app.json("GET", "/api/user", undefined, { cookie })).body.user;

const body = async (res: Response) => await res.json();

/** The cause logged for the rejected answer from the provider. */
const rejection = (app: TestApp) =>
  String(app.logger.lines.find((l) => l.message === "oauth answer rejected")?.fields?.cause);

oauthTest(
  "conformance: an unknown OIDC account registers and signs in; again, the same user",
  async (app, idp) => {
    const first = await signIn(app, idp, "alice");
    assert.equal(first.status, 302);
    assert.equal(first.headers.get("location"), "/dashboard");
    const cookie = sessionCookie(first.headers);
    const user = await me(app, cookie);
    assert.equal(user.username, "alice");
    const links = await app.json("GET", "/api/auth/oauth", undefined, { cookie });
    assert.deepEqual(
      links.body.map((l: { provider: string; username: string }) => [l.provider, l.username]),
      [["OIDC", "alice"]],
    );
    assert.deepEqual(Object.keys(links.body[0]).sort(), [
      "createdAt",
      "id",
      "provider",
      "username",
    ]);

    const [stored] = await app.services.store.oauth.listByUser(user.id);
    assert.equal(stored.oauthId, "sub-alice");
    assert.notEqual(decrypt(stored.accessToken, TEST_SECRET), null, "the token is sealed");

    const again = await signIn(app, idp, "alice");
    assert.equal(again.status, 302);
    assert.equal((await me(app, sessionCookie(again.headers))).id, user.id);
  },
);

oauthTest("conformance: with featuresOauthRegistration off, OAuth is refused", async (app) => {
  const res = await app.request("/api/auth/oauth/oidc");
  assert.equal(res.status, 403);
  assert.deepEqual(await body(res), { error: "OAuth registration is disabled", statusCode: 403 });
}, { featuresOauthRegistration: false });

oauthTest("conformance: an unconfigured provider is 401", async (app) => {
  const res = await app.request("/api/auth/oauth/github");
  assert.deepEqual(await body(res), { error: "GitHub OAuth is not configured.", statusCode: 401 });
});

oauthTest(
  "conformance: oauthLoginOnly signs in linked accounts but registers no one",
  async (app, idp) => {
    await signIn(app, idp, "alice");
    await app.services.store.settings.update({ oauthLoginOnly: true });
    await app.services.settings.reload();
    const known = await signIn(app, idp, "alice");
    assert.equal(known.status, 302);
    assert.equal((await me(app, sessionCookie(known.headers))).username, "alice");
    const unknown = await signIn(app, idp, "bob");
    assert.equal(unknown.status, 403);
    assert.match((await body(unknown)).error, /No account here is linked/);
    assert.equal(await app.services.store.users.getByUsername("bob"), null);
    const password = await app.json("POST", "/api/auth/login", { username: "x", password: "y" });
    assert.equal(password.status, 400, "password login still answers");
  },
);

oauthTest(
  "security #22: a tampered or missing state is refused and signs no one in",
  async (app, idp) => {
    const { location, flow } = await start(app);
    const back = await idp.authorize(location, "alice");
    const tampered = new URL(back);
    tampered.searchParams.set("state", "forged");
    for (const [url, cookie] of [[tampered, flow], [back, ""]] as const) {
      const res = await callback(app, url, cookie);
      assert.equal(res.status, 400);
      assert.deepEqual(await body(res), {
        error: "Invalid OAuth state parameter",
        statusCode: 400,
      });
      assert.equal(cookiePair(res, "service_session"), undefined);
    }
    assert.equal(await app.services.store.users.getByUsername("alice"), null);
    assert.ok(app.logger.lines.some((l) => l.message.includes("oauth state mismatch")));
  },
);

oauthTest("security #22: an ID token with another nonce is refused", async (app, idp) => {
  const { location, flow } = await start(app);
  const [name, sealed] = flow.split("=");
  const { purpose, value } = JSON.parse(decrypt(decodeURIComponent(sealed), TEST_SECRET)!);
  const forged = encrypt(
    JSON.stringify({ purpose, value: { ...value, nonce: "other" } }),
    TEST_SECRET,
    systemRandom,
  );
  const res = await callback(app, await idp.authorize(location, "alice"), `${name}=${forged}`);
  assert.equal(res.status, 400);
  assert.match((await body(res)).error, /could not be verified/);
  assert.match(rejection(app), /nonce/);
  assert.equal(await app.services.store.users.getByUsername("alice"), null);
});

oauthTest("security #22: an expired ID token is refused", async (app, idp) => {
  const { location, flow } = await start(app);
  const back = await idp.authorize(location, "alice");
  app.clock.advance(5 * 60_000);
  const res = await callback(app, back, flow);
  assert.equal(res.status, 400);
  assert.match((await body(res)).error, /could not be verified/);
  assert.match(rejection(app), /exp/);
});

/** A sign-in whose ID token `rewrite` alters is refused: 400, no session, no user, a log line. */
function refusedIdToken(what: string, rewrite: IdTokenRewrite, cause: RegExp) {
  oauthTest(
    `security #22: an ID token ${what} is refused`,
    async (app, idp) => {
      const res = await signIn(app, idp, "alice");
      assert.equal(res.status, 400);
      assert.deepEqual(await body(res), {
        error: "OpenID Connect sign-in could not be verified, try again",
        statusCode: 400,
      });
      assert.equal(cookiePair(res, "service_session"), undefined);
      assert.equal(await app.services.store.users.getByUsername("alice"), null);
      assert.match(rejection(app), cause);
    },
    {},
    { idToken: rewrite },
  );
}

refusedIdToken("for another client (audience)", {
  claims: (c) => ({ ...c, aud: "another-client", azp: "another-client" }),
}, /aud/);
refusedIdToken("from another issuer", {
  claims: (c) => ({ ...c, iss: "http://127.0.0.1:1" }),
}, /iss/);
refusedIdToken("signed with a key the provider never published", { foreignKey: true }, /signature/);

oauthTest(
  "conformance: an ID token passed on unchanged through the relay signs in",
  async (app, idp) => {
    const res = await signIn(app, idp, "alice");
    assert.equal(res.status, 302);
    assert.equal((await me(app, sessionCookie(res.headers))).username, "alice");
  },
  {},
  { idToken: {} },
);

oauthTest(
  "conformance: consent refused at the provider is 403, with a log line",
  async (app, idp) => {
    const { location, flow } = await start(app);
    const back = await idp.authorize(location, "alice", false);
    assert.equal(back.searchParams.get("error"), "access_denied");
    const res = await callback(app, back, flow);
    assert.equal(res.status, 403);
    assert.match((await body(res)).error, /not allowed at OpenID Connect/);
    assert.ok(app.logger.lines.some((l) => l.message.includes("oauth authorization refused")));
  },
);

/** A session cookie for `username` (password `password`). */
async function passwordSession(app: TestApp, username: string) {
  const res = await app.json("POST", "/api/auth/login", { username, password: "password" });
  return sessionCookie(res.headers);
}

oauthTest(
  "conformance: a signed-in user links an account, which then signs them in",
  async (app, idp) => {
    const carol = await actor(app, "USER", "carol");
    const session = await passwordSession(app, "carol");
    const linked = await signIn(app, idp, "carol-idp", session);
    assert.equal(linked.status, 302);
    assert.equal(linked.headers.get("location"), "/dashboard/settings");
    const list = await app.json("GET", "/api/auth/oauth", undefined, { cookie: session });
    assert.equal(list.body[0].username, "carol-idp");

    const signedIn = await signIn(app, idp, "carol-idp");
    assert.equal((await me(app, sessionCookie(signedIn.headers))).id, carol.user.id);

    const anon = await app.request("/api/auth/oauth/oidc?state=link");
    assert.deepEqual(await body(anon), { error: "Invalid login session", statusCode: 401 });
    const nobody = await app.json("POST", "/api/auth/oauth/oidc/link", {});
    assert.deepEqual(nobody.body, { error: "not logged in", statusCode: 401 });
  },
);

oauthTest(
  "security #22: an account linked to someone else is not linked again",
  async (app, idp) => {
    await signIn(app, idp, "alice");
    await actor(app, "USER", "dave");
    const session = await passwordSession(app, "dave");
    const res = await signIn(app, idp, "alice", session);
    assert.equal(res.status, 400);
    assert.match((await body(res)).error, /linked to another user/);
    const list = await app.json("GET", "/api/auth/oauth", undefined, { cookie: session });
    assert.deepEqual(list.body, []);
  },
);

oauthTest("security #22: the last way to sign in cannot be unlinked", async (app, idp) => {
  const cookie = sessionCookie((await signIn(app, idp, "alice")).headers);
  const last = await app.json("DELETE", "/api/auth/oauth", { provider: "OIDC" }, { cookie });
  assert.deepEqual(last.body, {
    error: "You can't delete your last OAuth provider without a password",
    statusCode: 400,
  });
  assert.equal((await app.json("GET", "/api/auth/oauth", undefined, { cookie })).body.length, 1);

  await actor(app, "USER", "erin");
  const session = await passwordSession(app, "erin");
  await signIn(app, idp, "erin-idp", session);
  const gone = await app.json("DELETE", "/api/auth/oauth", { provider: "OIDC" }, {
    cookie: session,
  });
  assert.equal(gone.status, 200);
  assert.deepEqual(gone.body, []);
  const none = await app.json("DELETE", "/api/auth/oauth", { provider: "OIDC" }, {
    cookie: session,
  });
  assert.deepEqual(none.body, { error: "No providers to delete", statusCode: 400 });
});

oauthTest(
  "security #22: two unlinks at once leave a user without a password one way to sign in",
  async (app, idp) => {
    const cookie = sessionCookie((await signIn(app, idp, "alice")).headers);
    const alice = await me(app, cookie);
    await app.services.store.oauth.create({
      id: "github-link",
      userId: alice.id,
      provider: "GITHUB",
      username: "alice-gh",
      accessToken: "sealed",
      refreshToken: null,
      oauthId: "gh-1",
      createdAt: new Date(app.clock.now()),
    });
    const answers = await Promise.all(
      ["OIDC", "GITHUB"].map((provider) =>
        app.json("DELETE", "/api/auth/oauth", { provider }, { cookie })
      ),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 400]);
    assert.deepEqual(answers.find((a) => a.status === 400)!.body, {
      error: "You can't delete your last OAuth provider without a password",
      statusCode: 400,
    });
    const left = await app.json("GET", "/api/auth/oauth", undefined, { cookie });
    assert.equal(left.body.length, 1);
  },
);

oauthTest(
  "security #22: a user with TOTP signs in through the provider only with a code",
  async (app, idp) => {
    const first = await signIn(app, idp, "alice");
    const user = await me(app, sessionCookie(first.headers));
    const secret = new Secret({ size: 20 });
    await app.services.store.users.update(user.id, {
      totpSecret: encrypt(secret.base32, TEST_SECRET, systemRandom),
    }, new Date(app.clock.now()));

    const res = await signIn(app, idp, "alice");
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), "/auth/login?oauth=totp");
    assert.equal(cookiePair(res, "service_session"), undefined);
    const ticket = cookiePair(res, "service_oauth_totp")!;
    const wrong = await app.json("POST", "/api/auth/oauth/totp", { code: "000000" }, {
      cookie: ticket,
    });
    assert.deepEqual(wrong.body, { error: "Invalid code", statusCode: 400 });
    const again = cookiePair(wrong, "service_oauth_totp")!;
    assert.notEqual(again, ticket, "a wrong code hands back a new ticket");
    const code = new TOTP({ secret, digits: 6, period: 30 }).generate({
      timestamp: app.clock.now(),
    });
    const ok = await app.json("POST", "/api/auth/oauth/totp", { code }, { cookie: again });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.user.id, user.id);
    assert.equal((await me(app, sessionCookie(ok.headers))).id, user.id);
    const none = await app.json("POST", "/api/auth/oauth/totp", { code });
    assert.equal(none.status, 400);
  },
);

apiTest(
  "conformance: the Discord preset sends the browser to Discord with PKCE and the derived redirect URI",
  async (app) => {
    await app.services.store.settings.update({
      featuresOauthRegistration: true,
      oauthDiscordClientId: "1234",
      oauthDiscordClientSecret: "discord-secret",
    });
    await app.services.settings.reload();
    const res = await app.request("/api/auth/oauth/discord");
    assert.equal(res.status, 302);
    const url = new URL(res.headers.get("location")!);
    assert.equal(url.origin + url.pathname, "https://discord.com/oauth2/authorize");
    const q = Object.fromEntries(url.searchParams);
    assert.equal(q.client_id, "1234");
    assert.equal(q.scope, "identify");
    assert.equal(q.redirect_uri, "http://ferry.test/api/auth/oauth/discord");
    assert.equal(q.code_challenge_method, "S256");
    assert.match(q.code_challenge, /^[\w-]{43}$/);
    assert.match(q.state, /^[\w-]{43}$/);
    assert.equal(q.nonce, undefined, "plain OAuth 2 has no ID token");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("service_oauth="))!;
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /Path=\/api\/auth\/oauth/);
    assert.match(cookie, /SameSite=Lax/i);
    assert.ok(!cookie.includes(q.state), "the state travels sealed");
  },
);

oauthTest(
  "conformance: a v4 export's linked OIDC account imports sealed and then signs its user in",
  async (app, idp) => {
    const admin = await actor(app, "SUPERADMIN", "admin");
    const doc = await fixtureV4();
    const lena = doc.data.userOauthProviders.find((l: { provider: string }) =>
      l.provider === "OIDC"
    );
    lena.oauthId = "sub-lena-idp";
    const imported = await importDoc(app, "v4", doc, admin.headers);
    assert.equal(imported.status, 200);
    const user = await app.services.store.users.getByUsername("lena");
    const [link] = await app.services.store.oauth.listByUser(user!.id);
    assert.notEqual(link.accessToken, lena.accessToken, "stored sealed");
    assert.equal(decrypt(link.accessToken, TEST_SECRET), lena.accessToken);

    const res = await signIn(app, idp, "lena-idp");
    assert.equal(res.status, 302);
    assert.equal((await me(app, sessionCookie(res.headers))).id, user!.id);
  },
);

const html = async (app: TestApp, path: string, headers: Record<string, string> = {}) => {
  const res = await app.request(path, { headers: { accept: "text/html", ...headers } });
  return { status: res.status, location: res.headers.get("location"), text: await res.text() };
};

oauthTest(
  "conformance: the login page offers the provider; oauthLoginOnly hides the password form",
  async (app) => {
    await actor(app, "SUPERADMIN"); // past first-run setup
    const open = await html(app, "/auth/login");
    assert.match(open.text, /href="\/api\/auth\/oauth\/oidc"/);
    assert.match(open.text, /id="login-form"/);
    await app.services.store.settings.update({ oauthLoginOnly: true });
    await app.services.settings.reload();
    const only = await html(app, "/auth/login");
    assert.match(only.text, /Sign in with OpenID Connect/);
    assert.doesNotMatch(only.text, /id="login-form"/);
    assert.match((await html(app, "/auth/login?local")).text, /id="login-form"/);
    const totp = await html(app, "/auth/login?oauth=totp");
    assert.match(totp.text, /id="oauth-totp-form"/);
  },
);

oauthTest(
  "conformance: oauthBypassLocalLogin sends the login page to the only provider",
  async (app) => {
    await actor(app, "SUPERADMIN"); // past first-run setup
    const res = await html(app, "/auth/login");
    assert.equal(res.status, 302);
    assert.equal(res.location, "/api/auth/oauth/oidc");
    assert.equal((await html(app, "/auth/login?local")).status, 200);
  },
  { oauthBypassLocalLogin: true },
);

apiTest("conformance: without providers the login page is as before", async (app) => {
  await actor(app, "SUPERADMIN"); // past first-run setup
  const page = await html(app, "/auth/login");
  assert.match(page.text, /id="login-form"/);
  assert.doesNotMatch(page.text, /oauth-providers/);
});

oauthTest(
  "conformance: a failed sign-in in a browser is a page with the reason and the way back",
  async (app, idp) => {
    const { location, flow } = await start(app);
    const back = await idp.authorize(location, "alice");
    back.searchParams.set("state", "forged");
    const page = await html(app, back.pathname + back.search, { cookie: flow });
    assert.equal(page.status, 400);
    assert.match(page.text, /Invalid OAuth state parameter/);
    assert.match(page.text, /href="\/auth\/login\?local"/);
  },
);

oauthTest(
  "security #22: no account is made from an email address the provider has not verified",
  async (app, idp) => {
    const res = await signIn(app, idp, "mallory");
    assert.equal(res.status, 403);
    assert.deepEqual(await body(res), {
      error: "OpenID Connect has not verified this account's email address",
      statusCode: 403,
    });
    assert.equal(await app.services.store.users.getByUsername("victim@example.com"), null);
  },
  {},
  {
    claims: () => ({
      preferred_username: null,
      email: "victim@example.com",
      email_verified: false,
    }),
  },
);

oauthTest(
  "conformance: a provider that cannot be reached is 503 with a log line",
  async (app, idp) => {
    await idp.close();
    const res = await app.request("/api/auth/oauth/oidc");
    assert.equal(res.status, 503);
    assert.deepEqual(await body(res), {
      error: "OpenID Connect could not be reached, try again later",
      statusCode: 503,
    });
    assert.ok(app.logger.lines.some((l) => l.message === "oauth provider failed"));
  },
);

oauthTest(
  "security #22: a sealed value made for something else is not taken as a flow or a ticket",
  async (app, idp) => {
    const { location, flow } = await start(app);
    const back = await idp.authorize(location, "alice");
    const alice = await actor(app, "USER", "someone");
    const apiToken = alice.headers.authorization;
    const swapped = await callback(app, back, `service_oauth=${apiToken}`);
    assert.deepEqual(await body(swapped), {
      error: "Invalid OAuth state parameter",
      statusCode: 400,
    });
    for (const ticket of [flow.split("=")[1], apiToken]) {
      const res = await app.json("POST", "/api/auth/oauth/totp", { code: "123456" }, {
        cookie: `service_oauth_totp=${ticket}`,
      });
      assert.deepEqual(res.body, {
        error: "The sign-in has expired, start again",
        statusCode: 400,
      });
    }
  },
);

oauthTest("conformance: with oauthOidcIssuerUrl set, discovery starts there", async (app, idp) => {
  await app.services.store.settings.update({
    oauthOidcIssuerUrl: idp.issuer,
    oauthOidcAuthorizeUrl: "http://127.0.0.1:1/elsewhere/authorize",
  });
  await app.services.settings.reload();
  const res = await signIn(app, idp, "alice");
  assert.equal(res.status, 302);
  assert.equal((await me(app, sessionCookie(res.headers))).username, "alice");
});

// The third review (issue #30): linking is a credential change; an account
// without a password proves with its own factors; the TOTP step's ticket is
// used once.

/** The refusal of a credential change on an account without a password and no fresh sign-in. */
const NO_PASSWORD = {
  error: "This account has no password: sign in again with its passkey or linked account to " +
    "confirm",
  statusCode: 400,
};
const TOKEN_LINK = {
  error: "Linking an account needs a signed-in browser session, not an API token",
  statusCode: 403,
};

/** A password session for `username` signed in 11 minutes ago: too old to prove anything. */
async function staleSession(app: TestApp, username: string) {
  const now = app.clock.now();
  app.clock.set(now - 11 * 60_000);
  const cookie = await passwordSession(app, username);
  app.clock.set(now);
  return cookie;
}

/** The links the session `cookie`'s user has, as `[provider, username]`. */
const linksOf = async (app: TestApp, cookie: string) =>
  (await app.json("GET", "/api/auth/oauth", undefined, { cookie })).body.map(
    (l: { provider: string; username: string }) => [l.provider, l.username],
  );

/** Gives `userId` TOTP; returns the code maker. */
async function withTotp(app: TestApp, userId: string) {
  const secret = new Secret({ size: 20 });
  await app.services.store.users.update(userId, {
    totpSecret: encrypt(secret.base32, TEST_SECRET, systemRandom),
  }, new Date(app.clock.now()));
  const totp = new TOTP({ secret, digits: 6, period: 30 });
  return (offset = 0) => totp.generate({ timestamp: app.clock.now() + offset * 30_000 });
}

oauthTest("security #30.1: an API token never links a provider account", async (app, idp) => {
  const carol = await actor(app, "USER", "carol");
  const legacy = await app.request("/api/auth/oauth/oidc?state=link", { headers: carol.headers });
  assert.equal(legacy.status, 403);
  assert.deepEqual(await body(legacy), TOKEN_LINK);
  assert.equal(cookiePair(legacy, "service_oauth"), undefined, "no flow started");
  const posted = await app.json("POST", "/api/auth/oauth/oidc/link", {
    currentPassword: "password",
  }, carol.headers);
  assert.deepEqual(posted.body, TOKEN_LINK, "not even with the password");
  const session = await passwordSession(app, "carol");
  const both = await app.json("POST", "/api/auth/oauth/oidc/link", {}, {
    ...carol.headers,
    cookie: session,
  });
  assert.deepEqual(both.body, TOKEN_LINK, "a token beside a session cookie is still a token");

  const mallory = await signIn(app, idp, "mallory-idp");
  assert.notEqual((await me(app, sessionCookie(mallory.headers))).id, carol.user.id);
  assert.deepEqual(await linksOf(app, session), []);
});

oauthTest(
  "security #30.1: linking starts with a POST that needs the password, or a password sign-in under 10 minutes old",
  async (app, idp) => {
    await actor(app, "USER", "carol");
    const stale = await staleSession(app, "carol");
    const link = (proof: Record<string, string>) =>
      app.json("POST", "/api/auth/oauth/oidc/link", proof, { cookie: stale });
    const missing = await link({});
    assert.deepEqual(missing.body, { error: "currentPassword is required", statusCode: 400 });
    const wrong = await link({ currentPassword: "wrong" });
    assert.deepEqual(wrong.body, { error: "Invalid current password", statusCode: 403 });
    assert.equal(cookiePair(wrong, "service_oauth"), undefined, "no flow started");

    const { location, flow } = await startLinking(app, stale, { currentPassword: "password" });
    assert.ok(location.startsWith(idp.issuer), location);
    const linked = await callback(
      app,
      await idp.authorize(location, "carol-idp"),
      [
        flow,
        stale,
      ].join("; "),
    );
    assert.equal(linked.status, 302);
    assert.equal(linked.headers.get("location"), "/dashboard/settings");
    assert.deepEqual(await linksOf(app, stale), [["OIDC", "carol-idp"]]);

    const fresh = await passwordSession(app, "carol");
    const started = await app.json("POST", "/api/auth/oauth/oidc/link", {}, { cookie: fresh });
    assert.equal(started.status, 200, "a password sign-in moments ago is proof on its own");
  },
);

oauthTest(
  "security #30.1: the old GET ?state=link links only from this site's pages, right after a password sign-in (Zipline's web client)",
  async (app, idp) => {
    await actor(app, "USER", "carol");
    const fresh = await passwordSession(app, "carol");
    const legacy = (cookie: string, headers: Record<string, string>) =>
      app.request("/api/auth/oauth/oidc?state=link", { headers: { cookie, ...headers } });
    const foreign = {
      error: "Linking an account must start from this site's own pages",
      statusCode: 403,
    };
    const refused: Record<string, string>[] = [
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { "sec-fetch-site": "none" },
      { origin: "https://evil.example" },
      {},
    ];
    for (const headers of refused) {
      const res = await legacy(fresh, headers);
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.deepEqual(await body(res), foreign);
      assert.equal(cookiePair(res, "service_oauth"), undefined);
    }
    const old = await legacy(await staleSession(app, "carol"), { "sec-fetch-site": "same-origin" });
    assert.equal(old.status, 400);
    assert.match((await body(old)).error, /needs a sign-in less than 10 minutes old/);

    const referred = await legacy(fresh, { referer: "http://ferry.test/dashboard/settings" });
    assert.equal(referred.status, 302, "a browser without Sec-Fetch-Site, from this host");
    const { location, flow } = await start(app, "?state=link", fresh, {
      "sec-fetch-site": "same-origin",
    });
    const back = await idp.authorize(location, "carol-idp");
    const linked = await callback(app, back, `${flow}; ${fresh}`);
    assert.equal(linked.headers.get("location"), "/dashboard/settings");
    assert.deepEqual(await linksOf(app, fresh), [["OIDC", "carol-idp"]]);
  },
);

oauthTest(
  "security #30.1: the callback links only for the session that started the link, while it lives",
  async (app, idp) => {
    await actor(app, "USER", "carol");
    const [a, b] = [await passwordSession(app, "carol"), await passwordSession(app, "carol")];
    const first = await startLinking(app, a);
    const other = await callback(
      app,
      await idp.authorize(first.location, "carol-idp"),
      [
        first.flow,
        b,
      ].join("; "),
    );
    assert.equal(other.status, 401, "another session of the same user");
    assert.deepEqual(await body(other), { error: "Invalid login session", statusCode: 401 });

    const second = await startLinking(app, a);
    const back = await idp.authorize(second.location, "carol-idp");
    const changed = await app.json("PATCH", "/api/user", {
      password: "new-password",
      currentPassword: "password",
    }, { cookie: b });
    assert.equal(changed.status, 200, "a new password, made from the other session, ends `a`");
    const ended = await callback(app, back, `${second.flow}; ${a}`);
    assert.equal(ended.status, 401);
    assert.deepEqual(await linksOf(app, b), []);
  },
);

oauthTest(
  "security #30.1: a provider sign-in is not proof for changing a password the account has",
  async (app, idp) => {
    const carol = await actor(app, "USER", "carol");
    const own = await passwordSession(app, "carol");
    assert.equal((await signIn(app, idp, "carol-idp", own)).status, 302);
    const viaProvider = sessionCookie((await signIn(app, idp, "carol-idp")).headers);
    assert.equal((await me(app, viaProvider)).id, carol.user.id);

    const required = { error: "currentPassword is required", statusCode: 400 };
    const attempts: [string, string, Record<string, unknown>][] = [
      ["PATCH", "/api/user", { password: "taken-over" }],
      ["PATCH", "/api/user", { username: "mallory" }],
      ["POST", "/api/auth/oauth/oidc/link", {}],
      ["DELETE", "/api/auth/oauth", { provider: "OIDC" }],
    ];
    for (const [method, path, change] of attempts) {
      const res = await app.json(method, path, change, { cookie: viaProvider });
      assert.deepEqual(res.body, required, `${method} ${path}`);
    }
    assert.equal((await app.json("GET", "/api/user", undefined, { cookie: own })).status, 200);
    assert.equal((await me(app, own)).username, "carol");
    assert.deepEqual(await linksOf(app, own), [["OIDC", "carol-idp"]]);
    const withPassword = await app.json("PATCH", "/api/user", {
      password: "changed-it",
      currentPassword: "password",
    }, { cookie: viaProvider });
    assert.equal(withPassword.status, 200, "the password is proof, whatever the session");
  },
);

oauthTest(
  "security #30.1: a new password ends the sessions a provider signed in, and the TOTP steps begun before it",
  async (app, idp) => {
    const carol = await actor(app, "USER", "carol");
    const own = await passwordSession(app, "carol");
    await signIn(app, idp, "carol-idp", own);
    const viaProvider = sessionCookie((await signIn(app, idp, "carol-idp")).headers);
    const code = await withTotp(app, carol.user.id);
    const pending = cookiePair(await signIn(app, idp, "carol-idp"), "service_oauth_totp")!;

    const changed = await app.json("PATCH", "/api/user", {
      password: "new-password",
      currentPassword: "password",
    }, { cookie: own });
    assert.equal(changed.status, 200);
    const gone = await app.json("GET", "/api/user", undefined, { cookie: viaProvider });
    assert.deepEqual(gone.body, { error: "not logged in", statusCode: 401 });
    const late = await app.json("POST", "/api/auth/oauth/totp", { code: code() }, {
      cookie: pending,
    });
    assert.deepEqual(late.body, {
      error: "The sign-in has expired, start again",
      statusCode: 400,
    });
    assert.equal(cookiePair(late, "service_session"), undefined);
    assert.deepEqual(await linksOf(app, own), [["OIDC", "carol-idp"]], "the owner's link stays");
  },
);

oauthTest(
  "security #30.1: an administrator's reset ends the provider's sessions and removes the links",
  async (app, idp) => {
    const admin = await actor(app, "ADMIN");
    const carol = await actor(app, "USER", "carol");
    await signIn(app, idp, "carol-idp", await passwordSession(app, "carol"));
    const viaProvider = sessionCookie((await signIn(app, idp, "carol-idp")).headers);
    const reset = await app.json("PATCH", `/api/users/${carol.user.id}`, {
      password: "reset-password",
    }, admin.headers);
    assert.equal(reset.status, 200);
    const gone = await app.json("GET", "/api/user", undefined, { cookie: viaProvider });
    assert.equal(gone.status, 401);
    const after = sessionCookie(
      (await app.json("POST", "/api/auth/login", { username: "carol", password: "reset-password" }))
        .headers,
    );
    assert.deepEqual(await linksOf(app, after), []);
    await app.services.store.settings.update({ oauthLoginOnly: true });
    await app.services.settings.reload();
    const refused = await signIn(app, idp, "carol-idp");
    assert.equal(refused.status, 403, "the provider account no longer signs carol in");
  },
);

oauthTest(
  "security #30.2: the token of an account made by a provider cannot set its password or unlink it",
  async (app, idp) => {
    const cookie = sessionCookie((await signIn(app, idp, "alice")).headers);
    const token = (await app.json("GET", "/api/user/token", undefined, { cookie })).body.token;
    const byToken = { authorization: token };
    const set = await app.json("PATCH", "/api/user", { password: "mine-now" }, byToken);
    assert.deepEqual(set.body, NO_PASSWORD);
    const renamed = await app.json("PATCH", "/api/user", { username: "mallory" }, byToken);
    assert.deepEqual(renamed.body, NO_PASSWORD);
    const unlinked = await app.json("DELETE", "/api/auth/oauth", { provider: "OIDC" }, byToken);
    assert.deepEqual(unlinked.body, NO_PASSWORD);
    const linked = await app.json("POST", "/api/auth/oauth/oidc/link", {}, byToken);
    assert.deepEqual(linked.body, TOKEN_LINK);
    assert.equal((await me(app, cookie)).username, "alice", "her session lives, nothing changed");
    assert.deepEqual(await linksOf(app, cookie), [["OIDC", "alice"]]);
    const login = await app.json("POST", "/api/auth/login", {
      username: "alice",
      password: "mine-now",
    });
    assert.equal(login.status, 400, "no password was set");

    const chosen = await app.json("PATCH", "/api/user", { password: "chosen-one" }, { cookie });
    assert.equal(chosen.status, 200, "a provider sign-in moments ago proves the owner");
    const signedIn = await app.json("POST", "/api/auth/login", {
      username: "alice",
      password: "chosen-one",
    });
    assert.equal(signedIn.status, 200);
  },
);

oauthTest(
  "security #30.2: a provider session older than 10 minutes proves nothing for an account without a password",
  async (app, idp) => {
    const cookie = sessionCookie((await signIn(app, idp, "alice")).headers);
    app.clock.advance(10 * 60_000);
    const set = await app.json("PATCH", "/api/user", { password: "mine-now" }, { cookie });
    assert.deepEqual(set.body, NO_PASSWORD);
    const unlinked = await app.json("DELETE", "/api/auth/oauth", { provider: "OIDC" }, { cookie });
    assert.deepEqual(unlinked.body, NO_PASSWORD);
  },
);

oauthTest(
  "security #30.9: the OAuth TOTP ticket is used once: a wrong code hands back a new one, a used one opens nothing",
  async (app, idp) => {
    const alice = await me(app, sessionCookie((await signIn(app, idp, "alice")).headers));
    const code = await withTotp(app, alice.id);
    const first = cookiePair(await signIn(app, idp, "alice"), "service_oauth_totp")!;
    const totp = (ticket: string, value: string) =>
      app.json("POST", "/api/auth/oauth/totp", { code: value }, { cookie: ticket });
    const expired = { error: "The sign-in has expired, start again", statusCode: 400 };

    const wrong = await totp(first, "000000");
    assert.deepEqual(wrong.body, { error: "Invalid code", statusCode: 400 });
    const second = cookiePair(wrong, "service_oauth_totp")!;
    assert.deepEqual((await totp(first, code())).body, expired, "the first was used");
    const ok = await totp(second, code());
    assert.equal(ok.status, 200);
    app.clock.advance(30_000);
    const replay = await totp(second, code());
    assert.deepEqual(replay.body, expired, "used, even with a valid code");
    assert.equal(cookiePair(replay, "service_session"), undefined);
  },
);

oauthTest(
  "security #30.9: codes at the OAuth TOTP step count against the account: 5 in 5 minutes, then 429",
  async (app, idp) => {
    const alice = await me(app, sessionCookie((await signIn(app, idp, "alice")).headers));
    const code = await withTotp(app, alice.id);
    let ticket = cookiePair(await signIn(app, idp, "alice"), "service_oauth_totp")!;
    for (let i = 0; i < 5; i++) {
      const res = await app.json("POST", "/api/auth/oauth/totp", { code: "000000" }, {
        cookie: ticket,
        "x-forwarded-for": `203.0.113.${i}`,
      });
      assert.deepEqual(res.body, { error: "Invalid code", statusCode: 400 }, `try ${i}`);
      ticket = cookiePair(res, "service_oauth_totp")!;
    }
    const limited = await app.json("POST", "/api/auth/oauth/totp", { code: code() }, {
      cookie: ticket,
      "x-forwarded-for": "203.0.113.99",
    });
    assert.equal(limited.status, 429);
    assert.match(limited.body.error, /^Too many codes were tried for this account; try again in/);
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
    assert.equal(cookiePair(limited, "service_session"), undefined, "not even a valid code");
  },
  { ratelimitEnabled: true, coreTrustProxy: true },
);

apiTest(
  "security #30.9: an OAuth TOTP ticket used on one instance is refused by another on the same store",
  async (app) => {
    const alice = await actor(app, "USER", "alice");
    const code = await withTotp(app, alice.user.id);
    const user = (await app.services.store.users.get(alice.user.id))!;
    const ticket = issueTotpTicket(app.services, user);
    const client = clientFromUserAgent("");
    const first = await finishTotpStep(app.services, ticket, code(), client);
    assert.equal(first.kind, "session");

    // A second process on the same store: its own handle, its own rate-limit counting.
    const store = servingStore(
      app.kind === "kv"
        ? await openKvStore(`${app.processEnv.SERVICE_DATA_DIR}/ferry.kv`)
        : await openPostgresStore(app.storeUrl!, { max: 2 }),
      app.clock,
    );
    try {
      app.clock.advance(30_000);
      await assert.rejects(
        finishTotpStep({ ...app.services, store }, ticket, code(), client),
        /The sign-in has expired, start again/,
      );
      assert.equal((await store.sessions.listByUser(user.id)).length, 1, "no second session");
    } finally {
      await store.close();
    }
  },
  { reachable: true },
);
