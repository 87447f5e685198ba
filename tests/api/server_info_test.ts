/** `GET /api/server/public` and `GET /api/server/settings/web`: what clients read, no secrets. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SETTING_KEYS, settingDef } from "../../core/settings/registry.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { actor } from "../helpers/users.ts";

async function settings(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.settings.update(values);
  await app.services.settings.reload();
}

/** Every secret setting given a recognisable value, and two providers their client ids. */
const SECRETS: Record<string, string> = Object.fromEntries(
  SETTING_KEYS.filter((key) => settingDef(key).secret).map((key) => [
    key,
    key.includes("Webhook") ? `https://hooks.example/${key}-secret` : `${key}-secret`,
  ]),
);
const CLIENT_IDS = { oauthDiscordClientId: "discord-id", oauthGithubClientId: "github-id" };

/** Fails when `body` holds a secret value, or a key of a secret or server-only setting. */
function assertNoSecrets(body: unknown) {
  const text = JSON.stringify(body);
  for (const value of Object.values(SECRETS)) assert.ok(!text.includes(value), value);
  const keys = new Set<string>();
  const walk = (v: unknown) => {
    if (v && typeof v === "object") {
      for (const [k, child] of Object.entries(v)) {
        keys.add(k);
        walk(child);
      }
    }
  };
  walk(body);
  for (const key of keys) assert.doesNotMatch(key, /secret|webhook|token|password|ratelimit/i);
  assert.ok(!keys.has("tempDirectory") && !keys.has("core"));
}

apiTest("public settings: the login page's subset for anyone, no secrets", async (app) => {
  const first = await app.json("GET", "/api/server/public");
  assert.equal(first.status, 200);
  assert.equal(first.body.firstSetup, true);
  assert.deepEqual(first.body.oauthEnabled, {
    discord: false,
    github: false,
    google: false,
    oidc: false,
  });
  assert.equal(first.body.website.tos, false);
  assert.equal("tos" in first.body, false);
  assert.equal("metrics" in first.body.features, false);

  await actor(app, "SUPERADMIN");
  const dir = await Deno.makeTempDir();
  try {
    const tos = join(dir, "tos.md");
    await Deno.writeTextFile(tos, "# Terms\nBe nice.");
    await settings(app, {
      ...SECRETS,
      ...CLIENT_IDS,
      featuresOauthRegistration: true,
      featuresMetricsAdminOnly: true,
      websiteTos: tos,
      websiteTitle: "Harbour",
      domains: ["a.example"],
    });
    for (const [key, value] of Object.entries(SECRETS)) {
      assert.equal(app.services.settings.all()[key as keyof typeof CLIENT_IDS], value, key);
    }
    const reply = await app.json("GET", "/api/server/public");
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, {
      oauth: { bypassLocalLogin: false, loginOnly: false },
      oauthEnabled: { discord: true, github: true, google: false, oidc: false },
      website: { loginBackground: null, loginBackgroundBlur: true, title: "Harbour", tos: true },
      features: { oauthRegistration: true, userRegistration: false, metrics: { adminOnly: true } },
      mfa: { passkeys: false },
      tos: "# Terms\nBe nice.",
      files: { maxFileSize: "100mb", defaultFormat: "random", maxExpiration: null },
      chunks: { max: "95mb", size: "25mb", enabled: true },
      firstSetup: false,
      domains: ["a.example"],
      returnHttps: false,
    });
    assertNoSecrets(reply.body);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

apiTest("web settings: grouped settings for users, no secrets", async (app) => {
  const user = await actor(app, "USER");
  await settings(app, {
    ...SECRETS,
    ...CLIENT_IDS,
    featuresOauthRegistration: true,
    filesMaxFileSize: "1gb",
  });
  const reply = await app.json("GET", "/api/server/settings/web", undefined, user.headers);
  assert.equal(reply.status, 200);
  const { config, codeMap } = reply.body;
  assert.equal(codeMap.length, 42);
  assert.equal(config.files.maxFileSize, "1gb");
  assert.equal(config.files.route, "/u");
  assert.equal(config.chunks.enabled, true);
  assert.equal(config.features.metricsAdminOnly, false);
  assert.deepEqual(config.oauth, { bypassLocalLogin: false, loginOnly: false });
  assert.equal(config.oauthEnabled.discord, true);
  assert.equal(config.version, app.services.build.version);
  assert.ok(Array.isArray(config.domains));
  assertNoSecrets(reply.body);

  // A change shows at once.
  await settings(app, { websiteTitle: "Quay" });
  const after = await app.json("GET", "/api/server/settings/web", undefined, user.headers);
  assert.equal(after.body.config.website.title, "Quay");
  assert.equal((await app.json("GET", "/api/server/settings/web")).status, 401);
});
