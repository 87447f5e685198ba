/**
 * The OAuth providers Ferry signs in with, as presets of one flow
 * (`flow.ts`): where each one's endpoints are, what it is asked for, and how
 * its profile maps to a Ferry account. Discord and GitHub are plain OAuth 2
 * (the profile comes from their user endpoint); Google and the generic
 * provider are OpenID Connect (the profile is the verified ID token's claims).
 */
import type { OauthProvider } from "../../db/oauth.ts";
import { oauthEnabled } from "../server_info.ts";
import type { Settings } from "../settings/registry.ts";

/** The account a provider vouches for. */
export interface OauthProfile {
  /** The account's id at the provider. */
  oauthId: string;
  /** The name a new Ferry account is given, and the link shows. */
  username: string;
  /** `false` when the provider says the address the name came from is not verified. */
  verified: boolean;
}

/** Where the provider's endpoints are: found by OIDC discovery, or fixed. */
export type Endpoints =
  | { discover: string; authorization?: string }
  | { issuer: string; authorization: string; token: string; userinfo: string };

/** One provider's part of the flow. */
export interface Preset {
  provider: OauthProvider;
  /** Its path segment: `/api/auth/oauth/<slug>`. */
  slug: "discord" | "google" | "github" | "oidc";
  /** Its name as people know it. */
  name: string;
  scope: string;
  /** Extra parameters of the authorization request. */
  params: Record<string, string>;
  /** Whether the profile is the ID token's claims (OpenID Connect) or the user endpoint's answer. */
  openid: boolean;
  /** The configured client id and secret. */
  client(settings: Settings): { id: string | null; secret: string | null };
  endpoints(settings: Settings): Endpoints;
  /** The configured redirect URI, or `null` to derive it from the request. */
  redirectUri(settings: Settings): string | null;
  /** The profile in the provider's answer, or `null` when it lacks an id. */
  profile(claims: Record<string, unknown>): OauthProfile | null;
  /** Whether the account may sign in at all (Discord's allow and deny lists). */
  admits(settings: Settings, oauthId: string): boolean;
}

const text = (v: unknown): string | null =>
  typeof v === "string" && v.trim() !== "" ? v.trim() : typeof v === "number" ? String(v) : null;

/** The first of `keys` that the claims hold as text. */
const first = (claims: Record<string, unknown>, keys: string[]): string | null =>
  keys.map((k) => text(claims[k])).find((v) => v !== null) ?? null;

const admitAll = () => true;

/** Discord: `identify`, the account from `/users/@me`, its id on the allow and deny lists. */
export const DISCORD: Preset = {
  provider: "DISCORD",
  slug: "discord",
  name: "Discord",
  scope: "identify",
  params: { prompt: "none" },
  openid: false,
  client: (s) => ({ id: s.oauthDiscordClientId, secret: s.oauthDiscordClientSecret }),
  endpoints: () => ({
    issuer: "https://discord.com",
    authorization: "https://discord.com/oauth2/authorize",
    token: "https://discord.com/api/oauth2/token",
    userinfo: "https://discord.com/api/users/@me",
  }),
  redirectUri: (s) => s.oauthDiscordRedirectUri,
  profile: (c) => profileOf(text(c.id), first(c, ["username", "global_name"])),
  admits: (s, id) =>
    !s.oauthDiscordDeniedIds.includes(id) &&
    (s.oauthDiscordAllowedIds.length === 0 || s.oauthDiscordAllowedIds.includes(id)),
};

/** GitHub: `read:user`, the account from `api.github.com/user` (`login`, else `name`). */
export const GITHUB: Preset = {
  provider: "GITHUB",
  slug: "github",
  name: "GitHub",
  scope: "read:user",
  params: {},
  openid: false,
  client: (s) => ({ id: s.oauthGithubClientId, secret: s.oauthGithubClientSecret }),
  endpoints: () => ({
    issuer: "https://github.com",
    authorization: "https://github.com/login/oauth/authorize",
    token: "https://github.com/login/oauth/access_token",
    userinfo: "https://api.github.com/user",
  }),
  redirectUri: (s) => s.oauthGithubRedirectUri,
  profile: (c) => profileOf(text(c.id), first(c, ["login", "name"])),
  admits: admitAll,
};

/** Google: OpenID Connect at `accounts.google.com`, offline access, the name from `given_name`. */
export const GOOGLE: Preset = {
  provider: "GOOGLE",
  slug: "google",
  name: "Google",
  scope: "openid profile",
  params: { access_type: "offline" },
  openid: true,
  client: (s) => ({ id: s.oauthGoogleClientId, secret: s.oauthGoogleClientSecret }),
  endpoints: () => ({ discover: "https://accounts.google.com" }),
  redirectUri: (s) => s.oauthGoogleRedirectUri,
  profile: (c) => profileOf(text(c.sub), first(c, ["given_name", "name", "sub"])),
  admits: admitAll,
};

/**
 * Any OpenID Connect provider, found by discovery: at `oauthOidcIssuerUrl`
 * when it is set; otherwise (Zipline's settings name the endpoints, not the
 * issuer) the issuer is the one above the configured authorization URL whose
 * discovery document names that URL (`flow.ts` looks for it).
 */
export const OIDC: Preset = {
  provider: "OIDC",
  slug: "oidc",
  name: "OpenID Connect",
  scope: "openid email profile offline_access",
  params: {},
  openid: true,
  client: (s) => ({ id: s.oauthOidcClientId, secret: s.oauthOidcClientSecret }),
  endpoints: (s) =>
    s.oauthOidcIssuerUrl
      ? { discover: s.oauthOidcIssuerUrl }
      : { discover: s.oauthOidcAuthorizeUrl!, authorization: s.oauthOidcAuthorizeUrl! },
  redirectUri: (s) => s.oauthOidcRedirectUri,
  profile: (c) => {
    const name = first(c, ["preferred_username", "name", "given_name"]);
    const email = text(c.email);
    const profile = profileOf(text(c.sub), name ?? email ?? text(c.sub));
    return profile && { ...profile, verified: name !== null || c.email_verified !== false };
  },
  admits: admitAll,
};

/** Every preset, in the order the login page shows them. */
export const PRESETS: readonly Preset[] = [DISCORD, GITHUB, GOOGLE, OIDC];

/** The presets a person may sign in with now: configured, and OAuth turned on. */
export function enabledPresets(settings: Settings): Preset[] {
  const on = oauthEnabled(settings);
  return PRESETS.filter((p) => on[p.slug]);
}

/**
 * What the login page offers: the provider buttons, whether the password
 * form shows (not under `oauthLoginOnly` with a provider to use, unless
 * `local` asks for it), and the provider to go straight to
 * (`oauthBypassLocalLogin` with exactly one provider, unless `local`).
 */
export function loginChoices(settings: Settings, local: boolean) {
  const providers = enabledPresets(settings);
  const only = providers.length === 1 ? providers[0] : null;
  return {
    providers: providers.map((p) => ({ slug: p.slug, name: p.name })),
    passwordForm: local || providers.length === 0 || !settings.oauthLoginOnly,
    bypassTo: !local && settings.oauthBypassLocalLogin && only ? only.slug : null,
  };
}

/** The preset for a path segment, or `undefined`. */
export function presetOf(slug: string): Preset | undefined {
  return PRESETS.find((p) => p.slug === slug);
}

function profileOf(oauthId: string | null, username: string | null): OauthProfile | null {
  return oauthId && username ? { oauthId, username, verified: true } : null;
}
