/**
 * Validation of a settings change as a whole: each key by its registry schema,
 * then what one schema cannot see — tampered keys, paths on the server, and
 * rules that span keys. Every failure is an issue whose path starts with the
 * key it is about; all are collected before anything is written.
 */
import { isDeepStrictEqual } from "node:util";
import type { Issue } from "../errors.ts";
import { literalRefusal } from "../net/outbound.ts";
import { parseDuration } from "../units/duration.ts";
import {
  ALIASES,
  envName,
  isSettingKey,
  MASK,
  SETTING_KEYS,
  settingDef,
  type SettingKey,
  type Settings,
} from "./registry.ts";

/** What validation may ask of the server; injected so core stays free of the file system. */
export interface ValidationContext {
  /** `true` when `path` exists and is a file (or a directory, as asked). */
  exists(path: string, kind: "file" | "directory"): Promise<boolean>;
}

const issue = (key: string, message: string, code = "custom"): Issue => ({
  path: [key],
  message,
  code,
});

/** The issues of paths that must exist, for every such key set in `values`. */
export async function checkPaths(
  values: Partial<Settings>,
  ctx: ValidationContext,
): Promise<Issue[]> {
  const issues: Issue[] = [];
  for (const key of SETTING_KEYS) {
    const kind = settingDef(key).path;
    const value = values[key];
    if (!kind || typeof value !== "string") continue;
    if (!(await ctx.exists(value, kind))) {
      issues.push(issue(key, kind === "file" ? "File does not exist" : "Directory does not exist"));
    }
  }
  return issues;
}

/**
 * The OAuth providers: when any of a provider's fields is set (after the
 * change), every one of its `required` fields must be. The redirect URI may
 * stay null: it is then derived from the request.
 */
export const OAUTH_PROVIDERS: { name: string; required: SettingKey[]; optional: SettingKey[] }[] = [
  {
    name: "Discord",
    required: ["oauthDiscordClientId", "oauthDiscordClientSecret"],
    optional: ["oauthDiscordRedirectUri"],
  },
  {
    name: "Google",
    required: ["oauthGoogleClientId", "oauthGoogleClientSecret"],
    optional: ["oauthGoogleRedirectUri"],
  },
  {
    name: "GitHub",
    required: ["oauthGithubClientId", "oauthGithubClientSecret"],
    optional: ["oauthGithubRedirectUri"],
  },
  {
    name: "OIDC",
    required: [
      "oauthOidcClientId",
      "oauthOidcClientSecret",
      "oauthOidcAuthorizeUrl",
      "oauthOidcTokenUrl",
      "oauthOidcUserinfoUrl",
    ],
    optional: ["oauthOidcRedirectUri", "oauthOidcIssuerUrl"],
  },
];

/**
 * A rule across keys: checked when a change touches any of `keys`, on the
 * merged settings (`changed`: the keys the change sets).
 */
interface CrossRule {
  keys: SettingKey[];
  check(s: Settings, changed: Partial<Settings>): Issue[];
}

/** The URLs the server itself sends requests to: refused when they point inside. */
export const OUTBOUND_URL_KEYS = [
  "httpWebhookOnUpload",
  "httpWebhookOnShorten",
  "httpWebhookOnRequestUpload",
  "chatWebhookUrl",
  "chatOnUploadWebhookUrl",
  "chatOnShortenWebhookUrl",
  "chatOnRequestUploadWebhookUrl",
  "featuresVersionAPI",
] as const satisfies SettingKey[];

const CROSS_RULES: CrossRule[] = [
  ...OAUTH_PROVIDERS.map(({ name, required, optional }): CrossRule => ({
    keys: [...required, ...optional],
    check: (s) =>
      [...required, ...optional].some((k) => s[k] !== null)
        ? required.filter((k) => s[k] === null).map((k) =>
          issue(k, `${name} OAuth settings are incomplete: ${k} is required`)
        )
        : [],
  })),
  {
    keys: [...OUTBOUND_URL_KEYS],
    check: (s, changed) =>
      OUTBOUND_URL_KEYS.flatMap((key) => {
        const value = changed[key];
        const why = value ? literalRefusal(new URL(value), s.webhooksAllowedHosts) : null;
        return why ? [issue(key, `must not point inside: ${why}`)] : [];
      }),
  },
  {
    keys: ["filesDefaultExpiration", "filesMaxExpiration"],
    check: (s) => {
      const byDefault = s.filesDefaultExpiration && parseDuration(s.filesDefaultExpiration);
      const max = s.filesMaxExpiration && parseDuration(s.filesMaxExpiration);
      return byDefault && max && byDefault > max
        ? [issue(
          "filesDefaultExpiration",
          "filesDefaultExpiration must be less than or equal to filesMaxExpiration",
        )]
        : [];
    },
  },
  {
    keys: ["filesRoute", "urlsRoute"],
    check: (s) =>
      s.filesRoute === s.urlsRoute ? [issue("urlsRoute", "must differ from filesRoute")] : [],
  },
];

/**
 * The body's entries with every alias (Zipline's name of a key) read as its
 * key. When both names are sent (a client sending back what `GET` showed),
 * the one whose value differs from the current one is the change; when both
 * differ, and from each other, that is an issue on the key.
 */
function resolveAliases(body: object, current: Settings): [string, unknown][] | Issue {
  const sent = new Map<string, unknown>();
  for (const [name, raw] of Object.entries(body)) {
    const key = ALIASES.get(name) ?? name;
    if (!sent.has(key)) {
      sent.set(key, raw);
      continue;
    }
    const unchanged = (v: unknown) =>
      isDeepStrictEqual(v, current[key as SettingKey]) || v === MASK;
    const other = sent.get(key);
    if (isDeepStrictEqual(raw, other) || unchanged(raw)) continue;
    if (!unchanged(other)) return issue(key, `${key} is sent under both its names, differently`);
    sent.set(key, raw);
  }
  return [...sent];
}

/** The outcome of {@link validateChange}. */
export type ValidatedChange =
  | { ok: true; values: Partial<Settings> }
  | { ok: false; issues: Issue[] };

/**
 * Validates `body` as a change of `current` (which includes the environment
 * overrides). Returns the normalised values that differ from `current`, or
 * every issue found. A key in `tampered` is refused unless its value is the
 * one already in force (dashboards send the whole object back), and so is a
 * secret sent back as {@link MASK}: it leaves the secret as it is. A key
 * may be sent by its alias (Zipline's name).
 */
export async function validateChange(
  body: unknown,
  current: Settings,
  tampered: ReadonlySet<SettingKey>,
  ctx: ValidationContext,
): Promise<ValidatedChange> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return {
      ok: false,
      issues: [{ path: [], message: "expected an object", code: "invalid_type" }],
    };
  }
  const entries = resolveAliases(body, current);
  if (!Array.isArray(entries)) return { ok: false, issues: [entries] };
  if (entries.length === 0) {
    return {
      ok: false,
      issues: [{ path: [], message: "No settings provided to update", code: "custom" }],
    };
  }
  const issues: Issue[] = [];
  const values: Partial<Record<SettingKey, unknown>> = {};
  for (const [key, raw] of entries) {
    if (!isSettingKey(key)) {
      issues.push(issue(key, `Unrecognized key: "${key}"`, "unrecognized_keys"));
      continue;
    }
    if (settingDef(key).secret && raw === MASK) continue;
    const parsed = settingDef(key).schema.safeParse(raw);
    if (!parsed.success) {
      for (const i of parsed.error.issues) {
        issues.push({ path: [key, ...i.path.map(String)], message: i.message, code: i.code });
      }
      continue;
    }
    if (isDeepStrictEqual(parsed.data, current[key])) continue;
    if (tampered.has(key)) {
      issues.push(issue(key, `set by ${envName(key)} in the environment; it cannot be changed`));
      continue;
    }
    values[key] = parsed.data;
  }
  const changed = values as Partial<Settings>;
  issues.push(...await checkPaths(changed, ctx));
  if (issues.length) return { ok: false, issues };
  const merged = { ...current, ...changed };
  for (const rule of CROSS_RULES) {
    if (rule.keys.some((k) => k in changed)) issues.push(...rule.check(merged, changed));
  }
  return issues.length ? { ok: false, issues } : { ok: true, values: changed };
}
