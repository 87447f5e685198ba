/**
 * What the server tells clients about itself (reference §4.8): the public
 * subset a login page needs before anyone signs in, and the wider settings a
 * signed-in dashboard reads. Neither carries a secret: keys marked `secret`
 * in the registry, and the core, rate-limit and webhook categories, never
 * appear, and OAuth shows only whether each provider is usable.
 */
import {
  type Category,
  SETTING_KEYS,
  settingDef,
  type SettingKey,
  type Settings,
} from "./settings/registry.ts";
import { OAUTH_PROVIDERS } from "./settings/validate.ts";
import type { Role } from "../db/users.ts";
import { CODE_LANGUAGES } from "./code_languages.ts";
import { showsPerUser } from "./metrics.ts";
import { relyingPartyOf } from "./passkeys.ts";
import type { Services } from "./services.ts";
import { isFirstSetup } from "./setup.ts";

/** Whether each OAuth provider is configured and OAuth sign-in is allowed. */
export function oauthEnabled(settings: Settings) {
  const on = (name: string) =>
    settings.featuresOauthRegistration &&
    OAUTH_PROVIDERS.find((p) => p.name === name)!.required.every((key) => !!settings[key]);
  return { discord: on("Discord"), github: on("GitHub"), google: on("Google"), oidc: on("OIDC") };
}

/** The terms of service's markdown, or `null` when none is configured or it cannot be read. */
export async function termsOfService(s: Services): Promise<string | null> {
  const path = s.settings.get("websiteTos");
  if (path === null) return null;
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    s.logger.error("could not read the terms of service", { path, error });
    return null;
  }
}

/** `GET /api/server/public`: what the login and upload pages need, for anyone. */
export async function publicSettings(s: Services) {
  const v = s.settings.all();
  const tos = await termsOfService(s);
  return {
    oauth: { bypassLocalLogin: v.oauthBypassLocalLogin, loginOnly: v.oauthLoginOnly },
    oauthEnabled: oauthEnabled(v),
    website: {
      loginBackground: v.websiteLoginBackground,
      loginBackgroundBlur: v.websiteLoginBackgroundBlur,
      title: v.websiteTitle,
      tos: tos !== null,
    },
    features: {
      oauthRegistration: v.featuresOauthRegistration,
      userRegistration: v.featuresUserRegistration,
      ...(v.featuresMetricsAdminOnly ? { metrics: { adminOnly: true as const } } : {}),
    },
    mfa: { passkeys: relyingPartyOf(s) !== null },
    ...(tos !== null ? { tos } : {}),
    files: {
      maxFileSize: v.filesMaxFileSize,
      defaultFormat: v.filesDefaultFormat,
      maxExpiration: v.filesMaxExpiration,
    },
    chunks: { max: v.chunksMax, size: v.chunksSize, enabled: v.chunksEnabled },
    firstSetup: await isFirstSetup(s),
    domains: v.domains,
    returnHttps: v.coreReturnHttpsUrls,
  };
}

/** Categories whose settings only the server uses, some of them secret. */
const SERVER_ONLY: Category[] = [
  "Core",
  "Rate limiting",
  "HTTP webhooks",
  "Discord webhooks",
  "OAuth",
];

/** The keys {@link webSettings} shows. */
export const WEB_KEYS: SettingKey[] = SETTING_KEYS.filter((key) => {
  const def = settingDef(key);
  return !def.secret && !SERVER_ONLY.includes(def.category);
});

/**
 * Sub-groups Zipline's config nests inside a first-word group, keyed by that
 * group: `featuresMetricsEnabled` is also `features.metrics.enabled` there.
 */
const ZIPLINE_SUBGROUPS: Record<string, string[]> = {
  features: ["thumbnails", "metrics"],
  website: ["theme"],
  mfa: ["totp"],
};

/** Zipline's name of a field where it is not the key's remainder, lower-camel-cased. */
const ZIPLINE_FIELD: Record<string, string> = { numberThreads: "num_threads" };

const lowerFirst = (text: string) => text[0].toLowerCase() + text.slice(1);

/**
 * `GET /api/server/settings/web`: the settings a dashboard reads, grouped
 * by the key's first word (`filesMaxFileSize` → `files.maxFileSize`,
 * `domains` → `domains`), plus the OAuth summary, the version and the
 * languages a text upload may be written in (`codeMap`). Beside
 * that flat form, the groups also carry Zipline v4's nested one, which its
 * web client reads (`features.metrics.enabled`, `website.theme.default`,
 * `mfa.totp.enabled`, and `mfa.passkeys`: whether passkeys are usable, as
 * Zipline v4.4's boolean setting of that name). `features.metrics.showUserSpecific`
 * says whether the caller, of `role`, gets the metrics' per-user parts
 * (`showsPerUser`), so that Zipline's statistics page shows them to
 * administrators whatever the setting.
 */
export function webSettings(s: Services, role: Role) {
  const v = s.settings.all();
  const config: Record<string, unknown> = {};
  for (const key of WEB_KEYS) {
    const [, section, rest] = key.match(/^([a-z]+)(.*)$/)!;
    if (rest === "") {
      config[section] = v[key];
      continue;
    }
    const group = (config[section] ??= {}) as Record<string, unknown>;
    group[lowerFirst(rest)] = v[key];
    const sub = ZIPLINE_SUBGROUPS[section]?.find((name) => lowerFirst(rest).startsWith(name));
    if (sub === undefined) continue;
    const field = lowerFirst(rest.slice(sub.length));
    const nested = (group[sub] ??= {}) as Record<string, unknown>;
    nested[ZIPLINE_FIELD[field] ?? field] = v[key];
  }
  (config.mfa as Record<string, unknown>).passkeys = relyingPartyOf(s) !== null;
  const metrics = (config.features as Record<string, Record<string, unknown>>).metrics;
  metrics.showUserSpecific = showsPerUser(v, role);
  return {
    config: {
      ...config,
      oauth: { bypassLocalLogin: v.oauthBypassLocalLogin, loginOnly: v.oauthLoginOnly },
      oauthEnabled: oauthEnabled(v),
      version: s.build.version,
    },
    codeMap: CODE_LANGUAGES,
  };
}

/**
 * `GET /api/server/status`: which datasource holds the files and what it
 * takes up (Zipline's shape: a disk's use and room, a bucket's sum of sizes).
 */
export async function serverStatus(s: Services) {
  return { datasource: s.datasource.kind, storage: await s.datasource.usage() };
}
