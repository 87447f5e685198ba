/** `parseSettingsEnv`: every key as SERVICE_<KEY>, typed by the registry, and `NAME_FILE`. */
import assert from "node:assert/strict";
import { parseSettingsEnv, SettingsEnvError } from "../../core/settings/env.ts";
import { envName, SETTING_KEYS } from "../../core/settings/registry.ts";

/** Parses `env`, with `files` as the only readable files. */
function parse(env: Record<string, string>, files: Record<string, string> = {}) {
  return parseSettingsEnv(env, (path) => {
    if (path in files) return files[path];
    throw new Deno.errors.NotFound(`No such file or directory: ${path}`);
  });
}

/** Asserts that `env` is refused with a message that starts with `name:`. */
function rejects(env: Record<string, string>, name: string) {
  assert.throws(() => parse(env), (error) => {
    assert.ok(error instanceof SettingsEnvError, String(error));
    assert.ok(error.message.startsWith(`${name}:`), error.message);
    return true;
  });
}

Deno.test("settings env: names are SERVICE_ and the key in upper snake case", () => {
  assert.equal(envName("coreReturnHttpsUrls"), "SERVICE_CORE_RETURN_HTTPS_URLS");
  assert.equal(envName("ratelimitAllowList"), "SERVICE_RATELIMIT_ALLOW_LIST");
  assert.equal(envName("mfaPasskeysRpID"), "SERVICE_MFA_PASSKEYS_RP_ID");
  assert.equal(envName("featuresVersionAPI"), "SERVICE_FEATURES_VERSION_API");
  assert.equal(new Set(SETTING_KEYS.map(envName)).size, SETTING_KEYS.length);
});

Deno.test("settings env: nothing set overrides nothing; empty counts as unset", () => {
  assert.deepEqual(parse({}), {});
  assert.deepEqual(parse({ SERVICE_RATELIMIT_MAX: "", PATH: "/bin" }), {});
});

Deno.test("settings env: booleans, integers, strings, lists and JSON", () => {
  assert.deepEqual(
    parse({
      SERVICE_CORE_RETURN_HTTPS_URLS: "true",
      SERVICE_RATELIMIT_ENABLED: "false",
      SERVICE_RATELIMIT_MAX: "25",
      SERVICE_RATELIMIT_WINDOW: "1000",
      SERVICE_RATELIMIT_ALLOW_LIST: "10.0.0.1, key-a,,key-b",
      SERVICE_WEBSITE_TITLE: "My files",
      SERVICE_FILES_MAX_FILE_SIZE: "1gb",
      SERVICE_FILES_DISABLED_EXTENSIONS: ".exe,bat",
      SERVICE_WEBSITE_EXTERNAL_LINKS: '[{"name":"Home","url":"https://example.com"}]',
    }),
    {
      coreReturnHttpsUrls: true,
      ratelimitEnabled: false,
      ratelimitMax: 25,
      ratelimitWindow: 1000,
      ratelimitAllowList: ["10.0.0.1", "key-a", "key-b"],
      websiteTitle: "My files",
      filesMaxFileSize: "1gb",
      filesDisabledExtensions: ["exe", "bat"],
      websiteExternalLinks: [{ name: "Home", url: "https://example.com" }],
    },
  );
});

Deno.test("settings env: NAME_FILE is read, the direct variable wins", () => {
  const files = { "/run/secrets/gh": "gh-secret\n" };
  assert.deepEqual(
    parse({ SERVICE_OAUTH_GITHUB_CLIENT_SECRET_FILE: "/run/secrets/gh" }, files),
    { oauthGithubClientSecret: "gh-secret" },
  );
  assert.deepEqual(
    parse({
      SERVICE_OAUTH_GITHUB_CLIENT_SECRET: "direct",
      SERVICE_OAUTH_GITHUB_CLIENT_SECRET_FILE: "/run/secrets/gh",
    }, files),
    { oauthGithubClientSecret: "direct" },
  );
  rejects({ SERVICE_WEBSITE_TITLE_FILE: "/missing" }, "SERVICE_WEBSITE_TITLE_FILE");
});

Deno.test("settings env: a bad value names its variable", () => {
  rejects({ SERVICE_RATELIMIT_ENABLED: "yes" }, "SERVICE_RATELIMIT_ENABLED");
  rejects({ SERVICE_RATELIMIT_MAX: "ten" }, "SERVICE_RATELIMIT_MAX");
  rejects({ SERVICE_RATELIMIT_MAX: "0" }, "SERVICE_RATELIMIT_MAX");
  rejects({ SERVICE_RATELIMIT_WINDOW: "1.5" }, "SERVICE_RATELIMIT_WINDOW");
  rejects({ SERVICE_FILES_ROUTE: "/api/files" }, "SERVICE_FILES_ROUTE");
  rejects({ SERVICE_CHUNKS_MAX: "lots" }, "SERVICE_CHUNKS_MAX");
  rejects({ SERVICE_TASKS_DELETE_INTERVAL: "soon" }, "SERVICE_TASKS_DELETE_INTERVAL");
  rejects({ SERVICE_DOMAINS: "ok.example.com,not a host" }, "SERVICE_DOMAINS");
  rejects({ SERVICE_WEBSITE_EXTERNAL_LINKS: "[not json" }, "SERVICE_WEBSITE_EXTERNAL_LINKS");
  rejects({ SERVICE_PWA_THEME_COLOR: "red" }, "SERVICE_PWA_THEME_COLOR");
});
