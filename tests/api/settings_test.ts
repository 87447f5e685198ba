/** Server settings (spec §4.2) and their audit trail, on both stores. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileSystemContext } from "../../cli/services.ts";
import { MemoryLogger } from "../../core/log.ts";
import {
  defaultSettings,
  envName,
  MASK,
  RESERVED_ROUTES,
  SETTING_KEYS,
  settingDef,
  type SettingKey,
  withAliases,
} from "../../core/settings/registry.ts";
import { SettingsService } from "../../core/settings/service.ts";
import { openPostgresStore } from "../../db/postgres/mod.ts";
import { apiTest, sessionCookie, type TestApp } from "../helpers/app.ts";
import { actor } from "../helpers/users.ts";

const files = Deno.makeTempDirSync({ prefix: "ferry-settings-" });
const TOS = join(files, "tos.md");
const AVATAR = join(files, "avatar.png");
const MMDB = join(files, "countries.mmdb");
Deno.writeTextFileSync(TOS, "# Terms\n");
Deno.writeFileSync(AVATAR, new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
Deno.writeFileSync(MMDB, new Uint8Array([0]));

/** Sets up the instance; returns the SUPERADMIN's session cookie header. */
async function superadmin(app: TestApp): Promise<{ cookie: string }> {
  const res = await app.json("POST", "/api/setup", { username: "root", password: "hunter22" });
  assert.equal(res.status, 200);
  return { cookie: sessionCookie(res.headers) };
}

/** Waits until `done()` holds, checking every 20 ms; fails after 5 seconds. */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The value a boolean case flips to: the opposite of the key's default. */
const FLIP = Symbol("the opposite of the default");

/**
 * One case per registry key: a value that must round-trip (to `expect` when
 * the key normalises it), one that must be refused with an issue naming the
 * key, and other keys a valid change needs alongside (cross-key rules).
 */
interface Case {
  valid: unknown;
  expect?: unknown;
  invalid: unknown;
  with?: Record<string, unknown>;
}

const B: Case = { valid: FLIP, invalid: "yes" };
const size: Case = { valid: "1.5 GB", invalid: "0mb" };
const interval: Case = { valid: "1 day", invalid: "30d" };
const nullableText: Case = { valid: "Ferry bot", invalid: 42 };
const webhookUrl: Case = { valid: "https://chat.example.com/hooks/1/token", invalid: "not a url" };
const avatarUrl: Case = { valid: "https://example.com/a.png", invalid: "ftp://example.com/a.png" };
const embed: Case = {
  valid: '{"title":"{file.name}","color":"#ff0000","timestamp":true}',
  expect: {
    title: "{file.name}",
    description: null,
    footer: null,
    color: "#ff0000",
    thumbnail: false,
    imageOrVideo: false,
    timestamp: true,
    url: false,
  },
  invalid: { color: "red" },
};

const CASES: Record<SettingKey, Case> = {
  coreReturnHttpsUrls: B,
  coreDefaultDomain: {
    valid: "Files.Example.com:8443",
    expect: "files.example.com:8443",
    invalid: "bad domain",
  },
  coreTempDirectory: { valid: files, invalid: join(files, "missing") },
  coreTrustProxy: B,
  coreTrustProxyHops: { valid: 2, invalid: 0 },
  chunksEnabled: B,
  chunksMax: size,
  chunksSize: { valid: "10mb", invalid: "ten megabytes" },
  tasksDeleteInterval: interval,
  tasksClearInvitesInterval: { valid: "1h", invalid: "-1h" },
  tasksMaxViewsInterval: { valid: null, invalid: "whenever" },
  tasksThumbnailsInterval: interval,
  tasksMetricsInterval: interval,
  tasksCleanThumbnailsInterval: interval,
  filesRoute: { valid: "/", invalid: "/api/foo" },
  filesLength: { valid: 64, invalid: 65 },
  filesDefaultFormat: { valid: "gfycat", invalid: "sequential" },
  filesDisabledExtensions: {
    valid: [".exe", "tar.gz"],
    expect: ["exe", "tar.gz"],
    invalid: ["a/b"],
  },
  filesMaxFileSize: size,
  filesDefaultExpiration: { valid: "1d", invalid: "0ms" },
  filesMaxExpiration: { valid: "30d", invalid: "forever" },
  filesAssumeMimetypes: B,
  filesDefaultDateFormat: { valid: "YYYY-MM-DD", invalid: "" },
  filesRemoveGpsMetadata: B,
  filesRandomWordsNumAdjectives: { valid: 3, invalid: 0 },
  filesRandomWordsSeparator: { valid: "_", invalid: "-----------" },
  filesDefaultCompressionFormat: { valid: "webp", invalid: "gif" },
  filesDisabledTypes: { valid: ["application/x-msdownload"], invalid: ["exe"] },
  filesDisabledTypesDefault: { valid: "application/octet-stream", invalid: "binary" },
  filesMaxFilesPerUpload: { valid: 10, invalid: 1.5 },
  filesExtensionlessUrls: B,
  urlsRoute: { valid: "/x/", expect: "/x", invalid: "go" },
  urlsLength: { valid: 8, invalid: "8" },
  urlsExpiredRetention: { valid: "30d", invalid: "soon" },
  analyticsEnabled: B,
  analyticsRetentionDays: { valid: 30, invalid: 0 },
  analyticsCountBots: B,
  analyticsHonorDoNotTrack: B,
  analyticsGeoLite2Path: { valid: MMDB, invalid: TOS },
  featuresImageCompression: B,
  featuresRobotsTxt: B,
  featuresHealthcheck: B,
  featuresUserRegistration: B,
  featuresOauthRegistration: B,
  featuresDeleteOnMaxViews: B,
  featuresThumbnailsEnabled: B,
  featuresThumbnailsNumberThreads: { valid: 2, invalid: 0 },
  featuresThumbnailsFormat: { valid: "png", invalid: "jxl" },
  featuresThumbnailsInstantaneous: B,
  featuresMetricsEnabled: B,
  featuresMetricsAdminOnly: B,
  featuresMetricsShowUserSpecific: B,
  featuresVersionChecking: B,
  featuresVersionAPI: { valid: "https://version.example.com", invalid: "version api" },
  invitesEnabled: B,
  invitesLength: { valid: 12, invalid: 100 },
  websiteTitle: { valid: "My Ferry", invalid: "" },
  websiteTitleLogo: avatarUrl,
  websiteExternalLinks: {
    valid: [{ name: "Home", url: "https://example.com" }],
    invalid: [{ name: "Home", url: "nope" }],
  },
  websiteLoginBackground: avatarUrl,
  websiteLoginBackgroundBlur: B,
  websiteDefaultAvatar: { valid: AVATAR, invalid: join(files, "missing.png") },
  websiteTos: { valid: TOS, invalid: AVATAR },
  websiteThemeDefault: { valid: "builtin:dark_blue", invalid: "a theme" },
  websiteThemeDark: { valid: "builtin:dark_blue", invalid: 7 },
  websiteThemeLight: { valid: "builtin:light_blue", invalid: "" },
  oauthBypassLocalLogin: B,
  oauthLoginOnly: B,
  oauthDiscordClientId: {
    valid: "1234",
    invalid: 1234,
    with: { oauthDiscordClientSecret: "discord-secret" },
  },
  oauthDiscordClientSecret: { valid: "discord-secret-2", invalid: ["x"] },
  oauthDiscordRedirectUri: {
    valid: "https://files.example.com/api/auth/oauth/discord",
    invalid: "https://files.example.com/callback",
  },
  oauthDiscordAllowedIds: { valid: "123, 456", expect: ["123", "456"], invalid: ["abc"] },
  oauthDiscordDeniedIds: { valid: ["789"], invalid: "1,x" },
  oauthGoogleClientId: {
    valid: "google-id",
    invalid: null,
    with: { oauthGoogleClientSecret: "google-secret" },
  },
  oauthGoogleClientSecret: { valid: "google-secret-2", invalid: 5 },
  oauthGoogleRedirectUri: {
    valid: "https://files.example.com/api/auth/oauth/google/",
    invalid: "https://files.example.com/api/auth/oauth/github",
  },
  oauthGithubClientId: {
    valid: "gh-id",
    invalid: false,
    with: { oauthGithubClientSecret: "gh-secret" },
  },
  oauthGithubClientSecret: { valid: "gh-secret-2", invalid: null },
  oauthGithubRedirectUri: {
    valid: "https://files.example.com/api/auth/oauth/github",
    invalid: "github",
  },
  oauthOidcClientId: {
    valid: "oidc-id",
    invalid: {},
    with: {
      oauthOidcClientSecret: "oidc-secret",
      oauthOidcAuthorizeUrl: "https://id.example.com/authorize",
      oauthOidcTokenUrl: "https://id.example.com/token",
      oauthOidcUserinfoUrl: "https://id.example.com/userinfo",
    },
  },
  oauthOidcClientSecret: { valid: "oidc-secret-2", invalid: 0 },
  oauthOidcAuthorizeUrl: { valid: "https://id.example.com/auth", invalid: "id.example.com/auth" },
  oauthOidcTokenUrl: { valid: "https://id.example.com/tok", invalid: "token" },
  oauthOidcUserinfoUrl: { valid: "https://id.example.com/me", invalid: null },
  oauthOidcRedirectUri: {
    valid: "https://files.example.com/api/auth/oauth/oidc",
    invalid: "https://files.example.com/api/auth/oauth/discord",
  },
  oauthOidcIssuerUrl: { valid: "https://id.example.com/realms/x", invalid: "id.example.com" },
  mfaTotpEnabled: B,
  mfaTotpIssuer: { valid: "Ferry at Home", invalid: "" },
  mfaPasskeysEnabled: { valid: true, invalid: "true" },
  mfaPasskeysRpID: { valid: "example.com", invalid: "https://example.com" },
  mfaPasskeysOrigin: { valid: "https://example.com", invalid: "example.com" },
  ratelimitEnabled: B,
  ratelimitMax: { valid: 20, invalid: 0 },
  ratelimitWindow: { valid: 1000, invalid: "60s" },
  ratelimitAdminBypass: B,
  ratelimitAllowList: { valid: ["10.0.0.1", "key"], invalid: [""] },
  httpWebhookOnUpload: webhookUrl,
  httpWebhookOnShorten: webhookUrl,
  httpWebhookOnRequestUpload: webhookUrl,
  httpWebhookSigningSecret: { valid: "whsec_" + "ab".repeat(32), invalid: "too short" },
  webhooksAllowedHosts: {
    valid: "127.0.0.1, 10.0.0.0/8",
    expect: ["127.0.0.1", "10.0.0.0/8"],
    invalid: ["10.0.0.0/33"],
  },
  chatWebhookUrl: webhookUrl,
  chatUsername: nullableText,
  chatAvatarUrl: avatarUrl,
  chatOnUploadWebhookUrl: webhookUrl,
  chatOnUploadUsername: nullableText,
  chatOnUploadAvatarUrl: avatarUrl,
  chatOnUploadContent: { valid: "{user.username} uploaded {file.name}", invalid: ["x"] },
  chatOnUploadEmbed: embed,
  chatOnShortenWebhookUrl: webhookUrl,
  chatOnShortenUsername: nullableText,
  chatOnShortenAvatarUrl: avatarUrl,
  chatOnShortenContent: { valid: "{url.destination}", invalid: 1 },
  chatOnShortenEmbed: embed,
  chatOnRequestUploadWebhookUrl: webhookUrl,
  chatOnRequestUploadUsername: nullableText,
  chatOnRequestUploadAvatarUrl: avatarUrl,
  chatOnRequestUploadContent: { valid: "{request.uploader} sent {file.name}", invalid: 2 },
  chatOnRequestUploadEmbed: embed,
  pwaEnabled: B,
  pwaTitle: { valid: "Ferry PWA", invalid: "" },
  pwaShortName: { valid: "Ferry", invalid: null },
  pwaDescription: { valid: "Files", invalid: 3 },
  pwaThemeColor: { valid: "#abc", invalid: "#abcd" },
  pwaBackgroundColor: { valid: "#FFFFFF", invalid: "white" },
  domains: {
    valid: ["i.example.com", "Files.Example.org"],
    expect: ["i.example.com", "files.example.org"],
    invalid: ["http://x.com"],
  },
};

apiTest("GET /api/server/settings answers every registry key and tampered", async (app) => {
  const admin = await superadmin(app);
  const res = await app.json("GET", "/api/server/settings", undefined, admin);
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body), ["settings", "tampered", "secretsSet"]);
  assert.deepEqual(Object.keys(res.body.settings), Object.keys(withAliases(defaultSettings())));
  assert.deepEqual(res.body.settings, JSON.parse(JSON.stringify(withAliases(defaultSettings()))));
  assert.deepEqual(res.body.tampered, []);
  assert.deepEqual(res.body.secretsSet, []);
  assert.equal(res.body.settings.websiteTitle, "Ferry");
  assert.equal(res.body.settings.mfaTotpIssuer, "Ferry");
  assert.equal(res.body.settings.ratelimitWindow, 60000);
  assert.equal(res.body.settings.ratelimitMax, 10);
}, { rateLimits: true });

apiTest("PATCH changes only the given keys and answers the full settings", async (app) => {
  const admin = await superadmin(app);
  const res = await app.json("PATCH", "/api/server/settings", {
    websiteTitle: "Shared",
    filesMaxFileSize: "1gb",
    ratelimitAllowList: ["10.0.0.1"],
  }, admin);
  assert.equal(res.status, 200);
  const expected = {
    ...JSON.parse(JSON.stringify(withAliases(defaultSettings()))),
    websiteTitle: "Shared",
    filesMaxFileSize: "1gb",
    ratelimitAllowList: ["10.0.0.1"],
  };
  assert.deepEqual(res.body, { settings: expected, tampered: [], secretsSet: [] });
  const again = await app.json("GET", "/api/server/settings", undefined, admin);
  assert.deepEqual(again.body.settings, expected);
  assert.equal(app.services.settings.get("websiteTitle"), "Shared");
}, { rateLimits: true });

const SECRETS = {
  oauthGithubClientId: "github-id",
  oauthGithubClientSecret: "github-secret",
  chatWebhookUrl: "https://chat.example/hooks/123/token",
  httpWebhookOnUpload: "https://hooks.example/upload?key=k",
};

apiTest("security #11: an ADMIN reads secrets masked, a SUPERADMIN reads them", async (app) => {
  const root = await superadmin(app);
  const admin = await actor(app, "ADMIN");
  assert.equal((await app.json("PATCH", "/api/server/settings", SECRETS, root)).status, 200);
  const secretKeys = SETTING_KEYS.filter((k) => settingDef(k).secret);
  assert.ok(
    secretKeys.includes("oauthDiscordClientSecret") && secretKeys.includes("chatWebhookUrl"),
  );
  const set = ["oauthGithubClientSecret", "httpWebhookOnUpload", "chatWebhookUrl"];

  const seen = await app.json("GET", "/api/server/settings", undefined, admin.headers);
  assert.equal(seen.status, 200);
  for (const key of secretKeys) {
    assert.equal(seen.body.settings[key], set.includes(key) ? MASK : null, key);
  }
  assert.equal(seen.body.settings.oauthGithubClientId, "github-id", "not a secret");
  assert.deepEqual([...seen.body.secretsSet].sort(), [...set].sort());
  assert.ok(!JSON.stringify(seen.body).includes("github-secret"));
  assert.ok(!JSON.stringify(seen.body).includes("/token"));

  const full = await app.json("GET", "/api/server/settings", undefined, root);
  assert.equal(full.body.settings.oauthGithubClientSecret, "github-secret");
  assert.equal(full.body.settings.chatWebhookUrl, SECRETS.chatWebhookUrl);
  assert.deepEqual([...full.body.secretsSet].sort(), [...set].sort());
});

apiTest("security #11: an ADMIN's PATCH of the masked values leaves the secrets", async (app) => {
  const root = await superadmin(app);
  const admin = await actor(app, "ADMIN");
  await app.json("PATCH", "/api/server/settings", SECRETS, root);
  const seen = await app.json("GET", "/api/server/settings", undefined, admin.headers);
  const back = { ...seen.body.settings, websiteTitle: "Renamed" };
  const res = await app.json("PATCH", "/api/server/settings", back, admin.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.settings.websiteTitle, "Renamed");
  assert.equal(res.body.settings.chatWebhookUrl, MASK, "the reply is masked too");
  const alone = await app.json("PATCH", "/api/server/settings", {
    oauthGithubClientSecret: MASK,
  }, admin.headers);
  assert.equal(alone.status, 200);

  const full = await app.json("GET", "/api/server/settings", undefined, root);
  for (const [key, value] of Object.entries(SECRETS)) {
    assert.equal(full.body.settings[key], value, key);
  }
  assert.equal(app.services.settings.get("oauthGithubClientSecret"), "github-secret");
  const audit = await app.json("GET", "/api/server/audit", undefined, root);
  assert.deepEqual(
    audit.body[0].changes.map((c: { key: string }) => c.key),
    ["websiteTitle"],
    "only the title changed",
  );

  const replaced = await app.json("PATCH", "/api/server/settings", {
    chatWebhookUrl: "https://chat.example/hooks/456/new",
  }, admin.headers);
  assert.equal(replaced.body.settings.chatWebhookUrl, MASK, "write-only");
  const after = await app.json("GET", "/api/server/settings", undefined, root);
  assert.equal(after.body.settings.chatWebhookUrl, "https://chat.example/hooks/456/new");
});

apiTest("every registry key: a valid value round-trips, an invalid one is refused", async (app) => {
  assert.deepEqual(Object.keys(CASES).sort(), [...SETTING_KEYS].sort());
  const admin = await superadmin(app);
  const defaults = defaultSettings();
  for (const key of SETTING_KEYS) {
    const c = CASES[key];
    const valid = c.valid === FLIP ? !defaults[key] : c.valid;
    const ok = await app.json("PATCH", "/api/server/settings", { ...c.with, [key]: valid }, admin);
    assert.equal(ok.status, 200, `${key}=${JSON.stringify(valid)}: ${JSON.stringify(ok.body)}`);
    assert.deepEqual(ok.body.settings[key], c.expect ?? valid, key);

    const bad = await app.json("PATCH", "/api/server/settings", { [key]: c.invalid }, admin);
    assert.equal(bad.status, 400, `${key}=${JSON.stringify(c.invalid)} was accepted`);
    assert.equal(bad.body.issues[0].path[0], key, JSON.stringify(bad.body));
  }
  const after = await app.json("GET", "/api/server/settings", undefined, admin);
  for (const key of SETTING_KEYS) {
    const c = CASES[key];
    if (c.with && Object.keys(c.with).some((k) => k !== key && CASES[k as SettingKey])) continue;
    const valid = c.valid === FLIP ? !defaults[key] : c.valid;
    assert.deepEqual(after.body.settings[key], c.expect ?? valid, key);
  }
});

apiTest("no value of a wrong type makes any key fail with a 500", async (app) => {
  const admin = await superadmin(app);
  for (const key of SETTING_KEYS) {
    for (const value of [12345, { a: 1 }, [1], true, "x".repeat(3000)]) {
      const res = await app.json("PATCH", "/api/server/settings", { [key]: value }, admin);
      assert.ok([200, 400].includes(res.status), `${key}=${JSON.stringify(value)}: ${res.status}`);
    }
  }
});

apiTest("one bad key among good ones writes nothing", async (app) => {
  const admin = await superadmin(app);
  const before = await app.json("GET", "/api/server/settings", undefined, admin);
  const res = await app.json("PATCH", "/api/server/settings", {
    websiteTitle: "Changed",
    filesLength: 12,
    urlsRoute: "/api/short",
    chunksMax: "-5mb",
  }, admin);
  assert.equal(res.status, 400);
  assert.deepEqual(res.body.issues.map((i: { path: string[] }) => i.path[0]).sort(), [
    "chunksMax",
    "urlsRoute",
  ]);
  const after = await app.json("GET", "/api/server/settings", undefined, admin);
  assert.deepEqual(after.body, before.body);
  assert.deepEqual(await app.services.store.settings.read(), {});
}, { rateLimits: true });

apiTest("unknown keys, an empty body and a non-object are 400 with issues", async (app) => {
  const admin = await superadmin(app);
  const unknown = await app.json("PATCH", "/api/server/settings", {
    websiteTitle: "x",
    slackWebhookUrl: "https://example.com",
  }, admin);
  assert.equal(unknown.status, 400);
  assert.deepEqual(unknown.body.issues, [{
    path: ["slackWebhookUrl"],
    message: 'Unrecognized key: "slackWebhookUrl"',
    code: "unrecognized_keys",
  }]);
  const empty = await app.json("PATCH", "/api/server/settings", {}, admin);
  assert.equal(empty.status, 400);
  assert.equal(empty.body.issues[0].message, "No settings provided to update");
  const list = await app.json("PATCH", "/api/server/settings", [], admin);
  assert.equal(list.status, 400);
  assert.ok(list.body.issues.length > 0);
  assert.equal(
    (await app.json("GET", "/api/server/settings", undefined, admin)).body.settings
      .websiteTitle,
    "Ferry",
  );
});

apiTest(
  "reserved routes and their sub-paths are refused; / and others are allowed",
  async (app) => {
    const admin = await superadmin(app);
    for (const route of [...RESERVED_ROUTES, "/api/foo", "/raw/x", "/Dashboard", "/r/", "u"]) {
      for (const key of ["filesRoute", "urlsRoute"]) {
        const res = await app.json("PATCH", "/api/server/settings", { [key]: route }, admin);
        assert.equal(res.status, 400, `${key}=${route}`);
        assert.deepEqual(res.body.issues[0].path, [key]);
      }
    }
    const ok = await app.json("PATCH", "/api/server/settings", {
      filesRoute: "/",
      urlsRoute: "/apiary",
    }, admin);
    assert.equal(ok.status, 200);
    const same = await app.json("PATCH", "/api/server/settings", { urlsRoute: "/" }, admin);
    assert.equal(same.status, 400);
    assert.deepEqual(same.body.issues[0].path, ["urlsRoute"]);
  },
);

apiTest(
  "OAuth providers are complete after the change; passkeys need no RP ID or origin",
  async (app) => {
    const admin = await superadmin(app);
    const patch = (body: unknown) => app.json("PATCH", "/api/server/settings", body, admin);
    const half = await patch({ oauthGithubClientId: "id" });
    assert.equal(half.status, 400);
    assert.deepEqual(half.body.issues.map((i: { path: string[] }) => i.path), [
      ["oauthGithubClientSecret"],
    ]);
    const redirectOnly = await patch({
      oauthOidcRedirectUri: "https://f.example.com/api/auth/oauth/oidc",
    });
    assert.equal(redirectOnly.status, 400);
    assert.equal(redirectOnly.body.issues.length, 5);
    assert.equal(
      (await patch({ oauthGithubClientId: "id", oauthGithubClientSecret: "s" })).status,
      200,
    );
    // Rotating the secret alone is complete once merged with the stored id.
    assert.equal((await patch({ oauthGithubClientSecret: "s2" })).status, 200);
    // Clearing one field leaves the provider half-configured: refused; clearing both is fine.
    assert.equal((await patch({ oauthGithubClientId: null })).status, 400);
    assert.equal(
      (await patch({ oauthGithubClientId: "", oauthGithubClientSecret: null })).status,
      200,
    );

    // Passkeys need no RP ID or origin: unset, they are derived (conformance #30).
    assert.equal((await patch({ mfaPasskeysEnabled: true })).status, 200);
    assert.equal(
      (await patch({ mfaPasskeysRpID: "example.com", mfaPasskeysOrigin: "https://example.com" }))
        .status,
      200,
    );
    assert.equal((await patch({ mfaPasskeysOrigin: null })).status, 200);

    const expiry = await patch({ filesDefaultExpiration: "30d", filesMaxExpiration: "7d" });
    assert.equal(expiry.status, 400);
    assert.deepEqual(expiry.body.issues[0].path, ["filesDefaultExpiration"]);
  },
);

apiTest("a USER is refused with 403, an anonymous caller with 401", async (app) => {
  await superadmin(app);
  const user = await actor(app, "USER");
  for (const [method, body] of [["GET", undefined], ["PATCH", { websiteTitle: "x" }]] as const) {
    const asUser = await app.json(method, "/api/server/settings", body, user.headers);
    assert.equal(asUser.status, 403);
    assert.deepEqual(asUser.body, { error: "forbidden", statusCode: 403 });
    const anonymous = await app.json(method, "/api/server/settings", body);
    assert.equal(anonymous.status, 401);
    assert.deepEqual(anonymous.body, { error: "not logged in", statusCode: 401 });
  }
  const admin = await actor(app, "ADMIN");
  const asAdmin = await app.json(
    "PATCH",
    "/api/server/settings",
    { websiteTitle: "x" },
    admin.headers,
  );
  assert.equal(asAdmin.status, 200);
  assert.equal(app.services.settings.get("websiteTitle"), "x");
});

apiTest(
  "environment overrides are tampered, win over stored values and cannot be changed",
  async (app) => {
    const admin = await superadmin(app);
    const res = await app.json("GET", "/api/server/settings", undefined, admin);
    assert.deepEqual(res.body.tampered, ["websiteTitle", "ratelimitMax", "ratelimitAllowList"]);
    assert.equal(res.body.settings.ratelimitMax, 25);
    assert.deepEqual(res.body.settings.ratelimitAllowList, ["10.0.0.1", "key"]);

    const change = await app.json("PATCH", "/api/server/settings", { ratelimitMax: 30 }, admin);
    assert.equal(change.status, 400);
    assert.deepEqual(change.body.issues[0].path, ["ratelimitMax"]);
    assert.match(change.body.issues[0].message, /SERVICE_RATELIMIT_MAX/);

    // Sending back the value in force (as dashboards do with the whole object) is no change.
    const echo = await app.json("PATCH", "/api/server/settings", {
      ...res.body.settings,
      filesLength: 9,
    }, admin);
    assert.equal(echo.status, 200);
    assert.equal(echo.body.settings.filesLength, 9);
    assert.equal(echo.body.settings.ratelimitMax, 25);

    await app.services.store.settings.update({ ratelimitMax: 99, websiteTitle: "stored" });
    await app.services.settings.reload();
    assert.equal(app.services.settings.get("ratelimitMax"), 25);
    assert.equal(app.services.settings.get("websiteTitle"), "From the environment");
    assert.equal(envName("ratelimitMax"), "SERVICE_RATELIMIT_MAX");
  },
  {
    env: {
      SERVICE_RATELIMIT_MAX: "25",
      SERVICE_WEBSITE_TITLE: "From the environment",
      SERVICE_RATELIMIT_ALLOW_LIST: "10.0.0.1,key",
    },
  },
);

apiTest("the audit trail: SUPERADMIN only, newest first, paged, secrets masked", async (app) => {
  const root = await superadmin(app);
  const patch = (body: unknown) => app.json("PATCH", "/api/server/settings", body, root);
  assert.equal((await patch({ websiteTitle: "One" })).status, 200);
  assert.equal(
    (await patch({
      oauthGithubClientId: "gh-id",
      oauthGithubClientSecret: "gh-very-secret",
      chatWebhookUrl: "https://chat.example.com/hooks/1/tok3n",
    })).status,
    200,
  );
  assert.equal(
    (await patch({ websiteTitle: "Two", oauthGithubClientSecret: "gh-newer" })).status,
    200,
  );
  assert.equal((await patch({ websiteTitle: "Two" })).status, 200); // no change: no record

  const res = await app.json("GET", "/api/server/audit", undefined, root);
  assert.equal(res.status, 200);
  assert.equal(res.body.length, 3);
  const [third, second, first] = res.body;
  assert.ok(third.id > second.id && second.id > first.id);
  assert.deepEqual(first.user.username, "root");
  assert.ok(!Number.isNaN(Date.parse(first.createdAt)));
  assert.deepEqual(first.changes, [{ key: "websiteTitle", old: "Ferry", new: "One" }]);
  assert.deepEqual(second.changes, [
    { key: "oauthGithubClientId", old: null, new: "gh-id" },
    { key: "oauthGithubClientSecret", old: null, new: MASK },
    { key: "chatWebhookUrl", old: null, new: MASK },
  ]);
  assert.deepEqual(third.changes, [
    { key: "websiteTitle", old: "One", new: "Two" },
    { key: "oauthGithubClientSecret", old: MASK, new: MASK },
  ]);
  const stored = JSON.stringify(await app.services.store.settings.listAudit({ limit: 10 }));
  assert.ok(!stored.includes("gh-very-secret") && !stored.includes("tok3n"));

  const page = await app.json("GET", "/api/server/audit?limit=2", undefined, root);
  assert.deepEqual(page.body.map((r: { id: number }) => r.id), [third.id, second.id]);
  const next = await app.json("GET", `/api/server/audit?before=${second.id}`, undefined, root);
  assert.deepEqual(next.body.map((r: { id: number }) => r.id), [first.id]);
  const byDate = await app.json(
    "GET",
    `/api/server/audit?before=${new Date(app.clock.now() + 1000).toISOString()}`,
    undefined,
    root,
  );
  assert.equal(byDate.body.length, 3);
  for (const query of ["limit=0", "limit=501", "before=yesterday"]) {
    assert.equal(
      (await app.json("GET", `/api/server/audit?${query}`, undefined, root)).status,
      400,
    );
  }

  const admin = await actor(app, "ADMIN");
  const asAdmin = await app.json("GET", "/api/server/audit", undefined, admin.headers);
  assert.equal(asAdmin.status, 403);
  assert.equal((await app.json("GET", "/api/server/audit")).status, 401);
});

apiTest("a change through one server process reaches another within seconds", async (app) => {
  const admin = await superadmin(app);
  // The other process: its own SettingsService, and on Postgres its own connections.
  const otherStore = app.storeUrl ? await openPostgresStore(app.storeUrl, { max: 2 }) : null;
  const other = new SettingsService(otherStore ?? app.services.store, {
    context: fileSystemContext,
    clock: app.clock,
    logger: new MemoryLogger(),
  });
  await other.reload();
  other.start();
  try {
    const res = await app.json("PATCH", "/api/server/settings", {
      websiteTitle: "Everywhere",
      featuresHealthcheck: false,
    }, admin);
    assert.equal(res.status, 200);
    await until(() => other.get("websiteTitle") === "Everywhere", "the other process");
    assert.equal(other.get("featuresHealthcheck"), false);
  } finally {
    other.stop();
    await otherStore?.close();
  }
});

apiTest(
  "registry: every key with its category, control, default and environment variable",
  async (app) => {
    const admin = await actor(app, "ADMIN");
    const res = await app.json("GET", "/api/server/settings/registry", undefined, admin.headers);
    assert.equal(res.status, 200);
    const byKey = new Map(
      (res.body.settings as { key: string }[]).map((m) => [m.key, m as Record<string, unknown>]),
    );
    const view = await app.json("GET", "/api/server/settings", undefined, admin.headers);
    const aliases = [...byKey.values()].map((m) => m.alias).filter((a) => a !== null);
    assert.deepEqual(
      [...byKey.keys(), ...aliases].sort(),
      Object.keys(view.body.settings).sort(),
    );
    assert.equal(byKey.get("chatUsername")!.alias, "discordUsername");
    assert.equal(res.body.categories[0], "Core");
    // Zipline's pages: the webhooks in two, HTTP and Discord.
    assert.ok(res.body.categories.includes("HTTP webhooks"));
    assert.equal(byKey.get("chatOnUploadEmbed")!.category, "Discord webhooks");
    assert.equal(byKey.get("httpWebhookOnUpload")!.category, "HTTP webhooks");
    // Every key has a label of its own within its category, for people.
    const labels = [...byKey.values()].map((m) => `${m.category}: ${m.label}`);
    assert.ok([...byKey.values()].every((m) => typeof m.label === "string" && m.label !== ""));
    assert.equal(new Set(labels).size, labels.length, "labels are distinct in a category");
    assert.equal(byKey.get("coreReturnHttpsUrls")!.label, "Return HTTPS URLs");
    assert.deepEqual(byKey.get("filesMaxFileSize"), {
      key: "filesMaxFileSize",
      category: "Files",
      label: "Largest file",
      type: "string",
      control: "size",
      unit: "size",
      options: null,
      nullable: false,
      default: "100mb",
      description: "Largest file one upload may carry.",
      restart: false,
      secret: false,
      superadminOnly: false,
      path: null,
      env: "SERVICE_FILES_MAX_FILE_SIZE",
      alias: null,
    });
    assert.equal(byKey.get("coreReturnHttpsUrls")!.control, "switch");
    assert.equal(byKey.get("tasksDeleteInterval")!.control, "duration");
    assert.equal(byKey.get("coreTempDirectory")!.restart, true);
    assert.equal(byKey.get("chatOnUploadEmbed")!.control, "json");
    assert.deepEqual(byKey.get("filesDefaultFormat")!.options, [
      "random",
      "date",
      "uuid",
      "name",
      "gfycat",
    ]);
    const user = await actor(app, "USER");
    const refused = await app.json("GET", "/api/server/settings/registry", undefined, user.headers);
    assert.equal(refused.status, 403);
  },
);
