/**
 * The OAuth presets' own parts, without a provider: endpoints, scopes, the
 * mapping of each provider's profile to an account, Discord's allow and deny
 * lists, and the issuers the generic provider's discovery tries.
 */
import assert from "node:assert/strict";
import { issuerCandidates } from "../../core/oauth/flow.ts";
import { DISCORD, GITHUB, GOOGLE, OIDC, presetOf } from "../../core/oauth/providers.ts";
import { SETTING_KEYS, settingDef, type Settings } from "../../core/settings/registry.ts";

const defaults = Object.fromEntries(SETTING_KEYS.map((k) => [k, settingDef(k).default])) as
  & Settings
  & Record<string, unknown>;
const settings = (patch: Partial<Settings> = {}): Settings => ({ ...defaults, ...patch });

Deno.test("conformance: each preset is reached by its path segment", () => {
  for (const p of [DISCORD, GITHUB, GOOGLE, OIDC]) assert.equal(presetOf(p.slug), p);
  assert.equal(presetOf("twitter"), undefined);
});

Deno.test("conformance: Discord's endpoints, scope and profile", () => {
  assert.deepEqual(DISCORD.endpoints(settings()), {
    issuer: "https://discord.com",
    authorization: "https://discord.com/oauth2/authorize",
    token: "https://discord.com/api/oauth2/token",
    userinfo: "https://discord.com/api/users/@me",
  });
  assert.equal(DISCORD.scope, "identify");
  assert.equal(DISCORD.openid, false);
  assert.deepEqual(DISCORD.profile({ id: "80351110224678912", username: "nelly" }), {
    oauthId: "80351110224678912",
    username: "nelly",
    verified: true,
  });
  assert.equal(DISCORD.profile({ username: "no id" }), null);
});

Deno.test("security #22: Discord's deny list wins over its allow list; an empty allow list admits all", () => {
  const open = settings();
  assert.equal(DISCORD.admits(open, "1"), true);
  const denied = settings({ oauthDiscordDeniedIds: ["1"] });
  assert.equal(DISCORD.admits(denied, "1"), false);
  assert.equal(DISCORD.admits(denied, "2"), true);
  const allowed = settings({ oauthDiscordAllowedIds: ["1", "2"], oauthDiscordDeniedIds: ["2"] });
  assert.equal(DISCORD.admits(allowed, "1"), true);
  assert.equal(DISCORD.admits(allowed, "2"), false);
  assert.equal(DISCORD.admits(allowed, "3"), false);
  assert.equal(GITHUB.admits(denied, "1"), true, "the lists are Discord's only");
});

Deno.test("conformance: GitHub's endpoints, scope and profile (login, else name; numeric id)", () => {
  const ends = GITHUB.endpoints(settings());
  assert.equal("discover" in ends, false);
  assert.equal(
    (ends as { authorization: string }).authorization,
    "https://github.com/login/oauth/authorize",
  );
  assert.equal((ends as { token: string }).token, "https://github.com/login/oauth/access_token");
  assert.equal((ends as { userinfo: string }).userinfo, "https://api.github.com/user");
  assert.equal(GITHUB.scope, "read:user");
  assert.deepEqual(GITHUB.profile({ id: 583231, login: "octocat", name: "The Octocat" }), {
    oauthId: "583231",
    username: "octocat",
    verified: true,
  });
  assert.equal(GITHUB.profile({ id: 1, login: null, name: "Mona" })?.username, "Mona");
});

Deno.test("conformance: Google is OpenID Connect at accounts.google.com, offline, named by given_name", () => {
  assert.deepEqual(GOOGLE.endpoints(settings()), { discover: "https://accounts.google.com" });
  assert.equal(GOOGLE.openid, true);
  assert.match(GOOGLE.scope, /\bopenid\b/);
  assert.equal(GOOGLE.params.access_type, "offline");
  assert.deepEqual(GOOGLE.profile({ sub: "1089", given_name: "Ada", name: "Ada L" }), {
    oauthId: "1089",
    username: "Ada",
    verified: true,
  });
});

Deno.test("conformance: the generic provider's profile: preferred_username, then name, given_name, email, sub", () => {
  assert.equal(OIDC.scope, "openid email profile offline_access");
  const p = (claims: Record<string, unknown>) => OIDC.profile({ sub: "s1", ...claims });
  assert.equal(p({ preferred_username: "ada", name: "Ada L" })?.username, "ada");
  assert.equal(p({ name: "Ada L", given_name: "Ada" })?.username, "Ada L");
  assert.equal(p({ email: "a@x.test", email_verified: true })?.username, "a@x.test");
  assert.equal(p({})?.username, "s1");
  assert.equal(OIDC.profile({ preferred_username: "no sub" }), null);
});

Deno.test("security #22: a name taken from an email the provider has not verified is marked unverified", () => {
  assert.equal(
    OIDC.profile({ sub: "s", email: "a@x.test", email_verified: false })?.verified,
    false,
  );
  assert.equal(OIDC.profile({ sub: "s", email: "a@x.test" })?.verified, true);
  const named = { sub: "s", preferred_username: "ada", email: "a@x.test", email_verified: false };
  assert.equal(OIDC.profile(named)?.verified, true, "the name did not come from the email");
});

Deno.test("conformance: the generic provider's discovery tries the authorization URL's path prefixes", () => {
  assert.deepEqual(issuerCandidates("https://id.test/auth", "https://id.test/auth"), [
    "https://id.test",
  ]);
  assert.deepEqual(
    issuerCandidates("x", "https://kc.test/realms/r/protocol/openid-connect/auth"),
    [
      "https://kc.test/realms/r/protocol/openid-connect",
      "https://kc.test/realms/r/protocol",
      "https://kc.test/realms/r",
      "https://kc.test/realms",
      "https://kc.test",
    ],
  );
  assert.deepEqual(issuerCandidates("https://accounts.google.com"), [
    "https://accounts.google.com",
  ]);
  assert.deepEqual(
    OIDC.endpoints(settings({ oauthOidcAuthorizeUrl: "https://id.test/auth" })),
    { discover: "https://id.test/auth", authorization: "https://id.test/auth" },
  );
});
