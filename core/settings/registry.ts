/**
 * The settings registry: the one place a server setting is described. The
 * settings routes, defaults, validation, environment overrides (and so
 * `tampered`), the audit masking, the API document and docs/settings.md all
 * derive from it. Keys are Zipline v4's, so its dashboards and exports
 * round-trip; Zipline's `discord*` keys are named `chat*` here, as the spec's
 * §6.2 names them, and Zipline v4.4's `mfaPasskeys` is `mfaPasskeysEnabled`:
 * those keys carry Zipline's name as an `alias`, accepted and shown beside.
 *
 * A schema validates one value and normalises it; it must accept its own
 * output unchanged, because stored values are parsed again on every reload.
 * Rules that span keys or need the file system live in `validate.ts`.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { allowEntryProblem } from "../net/outbound.ts";
import { parseDuration } from "../units/duration.ts";
import { parseSize } from "../units/size.ts";

/**
 * The categories of the spec's §2.4 table, in its order, its "Webhooks" in
 * two as Zipline's server settings pages have them (HTTP and Discord).
 */
export const CATEGORIES = [
  "Core",
  "Chunked uploads",
  "Task intervals",
  "Files",
  "URLs",
  "Analytics",
  "Features",
  "Invites",
  "Website",
  "OAuth",
  "MFA",
  "Rate limiting",
  "HTTP webhooks",
  "Discord webhooks",
  "PWA",
  "Domains",
] as const;
/** A settings category. */
export type Category = typeof CATEGORIES[number];

/**
 * How the value is written in an environment variable: `boolean` is `true` or
 * `false`, `integer` a decimal number; `string`, `list` (comma separated) and
 * `json` are handed to the key's schema as they are.
 */
export type SettingType = "boolean" | "integer" | "string" | "list" | "json";

/** What a setting may additionally be marked with. */
export interface SettingFlags {
  /** `true` when a change takes effect only after a restart. */
  restart?: boolean;
  /**
   * `true` for secrets (client secrets, webhook URLs with tokens): shown as
   * {@link MASK} in the audit trail and to every caller below SUPERADMIN.
   */
  secret?: boolean;
  /**
   * `true` when only a SUPERADMIN may change it (the webhook signing secret,
   * which lets whoever knows it sign as this instance): an ADMIN's change is
   * refused.
   */
  superadminOnly?: boolean;
  /** When set, a non-null value must be an existing file or directory on the server. */
  path?: "file" | "directory";
  /**
   * Zipline v4's name for the key where it differs: a `PATCH` may use it, a
   * `GET` shows it beside the key with the same value; `tampered`, issues and
   * the audit trail name the key.
   */
  alias?: string;
  /**
   * What a string or number measures, for forms: a size string (`50gb`), a
   * duration string (`30m`) or milliseconds.
   */
  unit?: "size" | "duration" | "ms";
}

/** What the API and the audit trail show in place of a secret's value. */
export const MASK = "********";

/** The description of one setting. */
export interface SettingDef<T = unknown> extends SettingFlags {
  /** Category, as Zipline's server settings pages group them. */
  category: Category;
  /** What a person reads beside the field ("Return HTTPS URLs"); the key stays the name. */
  label: string;
  /** How its environment variable is read. */
  type: SettingType;
  /** Validates (and normalises) a value. */
  schema: z.ZodType<T>;
  /** The value until one is written. */
  default: T;
  /** What it does, for the API document, docs/settings.md and the form's help text. */
  description: string;
}

/** The routes `filesRoute` and `urlsRoute` may not take, nor any path under them (spec §4.2). */
export const RESERVED_ROUTES = [
  "/dashboard",
  "/auth",
  "/api",
  "/raw",
  "/r",
  "/invite",
  "/view",
  "/s",
  "/robots.txt",
  "/manifest.json",
  "/favicon.ico",
];

/** The longest timer JavaScript can set: the ceiling of task intervals. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Adds a custom issue with the message `check` returns, if any. Piped, so
 * that `check` only ever sees a value `schema` accepted.
 */
function rule<S extends z.ZodType>(schema: S, check: (value: z.output<S>) => string | null) {
  return schema.pipe(
    z.custom<z.output<S>>().superRefine((value, ctx) => {
      const message = check(value);
      if (message) ctx.addIssue({ code: "custom", message });
    }),
  );
}

/** `""` means "not set" (as dashboards send a cleared field): stored as `null`. */
function optional<S extends z.ZodType>(schema: S) {
  return z.preprocess((v) => (v === "" ? null : v), schema.nullable());
}

const int = (min: number, max: number) => z.number().int().min(min).max(max);

const size = () =>
  rule(z.string().trim(), (v) => {
    const bytes = parseSize(v);
    if (bytes === null) return "must be a size such as 100mb, 1.5gb or 1024";
    return bytes > 0 ? null : "Value must be greater than 0";
  });

const duration = (max = Number.MAX_SAFE_INTEGER) =>
  rule(z.string().trim(), (v) => {
    const ms = parseDuration(v);
    if (ms === null) return "must be a duration such as 30m, 1h, 7d or 1 day";
    if (ms <= 0) return "Value must be greater than 0";
    return ms <= max ? null : `Value must be less than or equal to ${max}ms`;
  });

const url = () => z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

/** Where a link may lead: an http(s) URL, or a path on this server (`/api/docs`). */
const linkTarget = () =>
  z.union([
    url(),
    z.string().trim().regex(/^\/(?![/\\])\S*$/, "must be an http(s) URL or a path starting with /"),
  ], { error: "must be an http(s) URL or a path starting with /" });

const route = () =>
  rule(
    z.string().trim().transform((v) => (v.length > 1 ? v.replace(/\/+$/, "") : v)),
    (v) => {
      if (!v.startsWith("/")) return "must start with /";
      if (/[\s?#%\\]/.test(v)) return "must not contain spaces, ?, #, % or \\";
      const lower = v.toLowerCase();
      return RESERVED_ROUTES.some((r) => lower === r || lower.startsWith(`${r}/`))
        ? "Provided route is reserved"
        : null;
    },
  );

const HOST =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const host = (port = false) =>
  rule(z.string().trim().toLowerCase(), (v) => {
    const [name, p, ...rest] = v.split(":");
    const portOk = p === undefined || (port && /^\d{1,5}$/.test(p) && Number(p) <= 65535);
    return HOST.test(name) && portOk && rest.length === 0
      ? null
      : port
      ? "must be a host name, optionally with :port"
      : "must be a host name such as files.example.com";
  });

const colour = () =>
  z.string().trim().regex(/^#?(?:[a-fA-F0-9]{6}|[a-fA-F0-9]{3})$/, "must be a hex colour");

const mime = () =>
  z.string().trim().regex(
    /^[a-zA-Z0-9!#$&^_\-+.]+\/[a-zA-Z0-9!#$&^_\-+.]+$/,
    "must be a MIME type such as image/png",
  );

const extension = () =>
  z.string().trim()
    .regex(/^\.?[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*$/, "must be a file extension such as exe")
    .transform((v) => v.replace(/^\./, ""));

const themeId = () => z.string().trim().regex(/^[\w.:-]{1,100}$/, "must be a theme id");

/** An array, or (as Zipline accepts, and environment variables give) a comma-separated string. */
function list<S extends z.ZodType>(item: S) {
  return z.preprocess(
    (v) => typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v,
    z.array(item).max(1000),
  );
}

/** A JSON value, or (as Zipline accepts, and environment variables give) its JSON text. */
function json<S extends z.ZodType>(schema: S) {
  return z.preprocess((v, ctx) => {
    if (typeof v !== "string") return v;
    try {
      return JSON.parse(v);
    } catch {
      ctx.addIssue({ code: "custom", message: "Invalid JSON", input: v });
      return z.NEVER;
    }
  }, schema);
}

const redirectUri = (provider: string) =>
  optional(
    rule(url(), (v) =>
      new URL(v).pathname.replace(/\/$/, "") === `/api/auth/oauth/${provider}`
        ? null
        : `must end with /api/auth/oauth/${provider}`),
  );

const embed = () =>
  optional(json(
    z.object({
      title: z.string().max(256).nullable().default(null),
      description: z.string().max(4096).nullable().default(null),
      footer: z.string().max(2048).nullable().default(null),
      color: colour().nullable().default(null),
      thumbnail: z.boolean().default(false),
      imageOrVideo: z.boolean().default(false),
      timestamp: z.boolean().default(false),
      url: z.boolean().default(false),
    }),
  ));

/** The key builders of one category. */
function category(name: Category) {
  const make = <S extends z.ZodType>(
    label: string,
    type: SettingType,
    schema: S,
    value: z.output<S>,
    description: string,
    flags: SettingFlags = {},
  ): SettingDef<z.output<S>> => ({
    category: name,
    label,
    type,
    schema: schema as z.ZodType<z.output<S>>,
    default: value,
    description,
    ...flags,
  });
  return {
    boolean: (label: string, value: boolean, description: string, flags?: SettingFlags) =>
      make(label, "boolean", z.boolean(), value, description, flags),
    integer: (
      label: string,
      min: number,
      max: number,
      value: number,
      description: string,
      f?: SettingFlags,
    ) => make(label, "integer", int(min, max), value, description, f),
    string: <S extends z.ZodType>(
      label: string,
      schema: S,
      value: z.output<S>,
      description: string,
      flags?: SettingFlags,
    ) => make(label, "string", schema, value, description, flags),
    list: <S extends z.ZodType>(
      label: string,
      item: S,
      description: string,
      flags?: SettingFlags,
    ) => make(label, "list", list(item), [] as z.output<S>[], description, flags),
    json: <S extends z.ZodType>(
      label: string,
      schema: S,
      value: z.output<S>,
      description: string,
      flags?: SettingFlags,
    ) => make(label, "json", schema, value, description, flags),
  };
}

const core = category("Core");
const chunks = category("Chunked uploads");
const tasks = category("Task intervals");
const files = category("Files");
const urls = category("URLs");
const analytics = category("Analytics");
const features = category("Features");
const invites = category("Invites");
const website = category("Website");
const oauth = category("OAuth");
const mfa = category("MFA");
const ratelimit = category("Rate limiting");
const webhooks = category("HTTP webhooks");
const chat = category("Discord webhooks");
const pwa = category("PWA");
const domains = category("Domains");

const task = (label: string, value: string, what: string) =>
  tasks.string(
    label,
    optional(duration(MAX_TIMER_MS)),
    value,
    `How often to ${what}; null turns it off.`,
    { unit: "duration" },
  );

/** What every outbound URL's description says of where it may point. */
const INSIDE_NOTE = " Refused when it points (or resolves, or redirects) to a loopback, private, " +
  "link-local or metadata address, unless webhooksAllowedHosts names it.";
const secretUrl = (label: string, description: string, alias?: string, inChat = !!alias) =>
  (inChat ? chat : webhooks).string(label, optional(url()), null, description + INSIDE_NOTE, {
    secret: true,
    alias,
  });
const text = (label: string, description: string, alias?: string) =>
  chat.string(label, optional(z.string().max(2000)), null, description, { alias });
const avatarUrl = (label: string, description: string, alias?: string) =>
  chat.string(label, optional(url()), null, description, { alias });
const embedOf = (label: string, what: string, alias?: string) =>
  chat.json(label, embed(), null, `Embed for ${what}; null sends none.`, { alias });

const clientId = (label: string, provider: string) =>
  oauth.string(label, optional(z.string().trim().max(500)), null, `${provider} OAuth client id.`);
const clientSecret = (label: string, provider: string) =>
  oauth.string(
    label,
    optional(z.string().trim().max(500)),
    null,
    `${provider} OAuth client secret.`,
    { secret: true },
  );
const redirect = (label: string, provider: string, name: string) =>
  oauth.string(
    label,
    redirectUri(provider),
    null,
    `${name} OAuth redirect URI; null derives it from the request's host.`,
  );
const oauthUrl = (label: string, what: string) =>
  oauth.string(label, optional(url()), null, `Generic OIDC provider's ${what} URL.`);
const discordIds = (label: string, what: string) =>
  oauth.list(
    label,
    z.string().trim().regex(/^\d+$/, "Discord ID must be a number"),
    `Discord user ids ${what}.`,
  );

/** Every setting, by key. */
export const REGISTRY = {
  coreReturnHttpsUrls: core.boolean(
    "Return HTTPS URLs",
    false,
    "Build returned URLs with https and mark cookies Secure.",
  ),
  coreDefaultDomain: core.string(
    "Default domain",
    optional(host(true)),
    null,
    "Host (and port) of returned URLs; null uses the request's host.",
  ),
  coreTempDirectory: core.string(
    "Temporary directory",
    z.string().trim().min(1),
    join(tmpdir(), "ferry"),
    "Existing directory for chunked uploads and exports in progress.",
    { restart: true, path: "directory" },
  ),
  coreTrustProxy: core.boolean(
    "Trust the proxy",
    false,
    "Take the client IP from X-Forwarded-For (behind a reverse proxy).",
  ),
  coreTrustProxyHops: core.integer(
    "Trusted proxy hops",
    1,
    16,
    1,
    "How many trusted proxies append to X-Forwarded-For when coreTrustProxy is on: the client " +
      "is that many entries from the right (the leftmost when the list is shorter).",
  ),

  chunksEnabled: chunks.boolean("Chunked uploads", true, "Accept chunked (partial) uploads."),
  chunksMax: chunks.string(
    "Largest chunked upload",
    size(),
    "95mb",
    "Largest total size of a chunked upload.",
    {
      unit: "size",
    },
  ),
  chunksSize: chunks.string(
    "Chunk size",
    size(),
    "25mb",
    "Size of each chunk clients should send.",
    {
      unit: "size",
    },
  ),

  tasksDeleteInterval: task("Delete expired files every", "30m", "delete expired files"),
  tasksClearInvitesInterval: task(
    "Clear used-up invites every",
    "30m",
    "remove expired and used-up invites",
  ),
  tasksMaxViewsInterval: task(
    "Remove items past their max views every",
    "30m",
    "delete files and URLs past their max views",
  ),
  tasksThumbnailsInterval: task(
    "Generate thumbnails every",
    "30m",
    "generate missing image and video thumbnails",
  ),
  tasksMetricsInterval: task("Record metrics every", "30m", "record instance metrics"),
  tasksCleanThumbnailsInterval: task(
    "Clean up thumbnails every",
    "1d",
    "remove thumbnails without a file and forget those without bytes",
  ),

  filesRoute: files.string(
    "Files route",
    route(),
    "/u",
    "Route files are served under; `/` is allowed.",
  ),
  filesLength: files.integer("Random name length", 1, 64, 6, "Length of random file names."),
  filesDefaultFormat: files.string(
    "Default name format",
    z.enum(["random", "date", "uuid", "name", "gfycat"]),
    "random",
    "Naming format of uploads when the client asks for none.",
  ),
  filesDisabledExtensions: files.list(
    "Refused extensions",
    extension(),
    "Extensions refused on upload, stored without the leading dot.",
  ),
  filesMaxFileSize: files.string(
    "Largest file",
    size(),
    "100mb",
    "Largest file one upload may carry.",
    {
      unit: "size",
    },
  ),
  filesDefaultExpiration: files.string(
    "Default expiration",
    optional(duration()),
    null,
    "Expiration of uploads that ask for none; null keeps them.",
    { unit: "duration" },
  ),
  filesMaxExpiration: files.string(
    "Longest expiration",
    optional(duration()),
    null,
    "Longest expiration an upload may ask for; null sets no bound.",
    { unit: "duration" },
  ),
  filesAssumeMimetypes: files.boolean(
    "Guess MIME types",
    false,
    "Guess a MIME type from the extension when unknown.",
  ),
  filesDefaultDateFormat: files.string(
    "Date name format",
    z.string().min(1).max(100),
    "YYYY-MM-DD_HH:mm:ss",
    "Date format of the `date` naming format.",
  ),
  filesRemoveGpsMetadata: files.boolean(
    "Remove GPS metadata",
    false,
    "Strip GPS metadata from uploaded images.",
  ),
  filesRandomWordsNumAdjectives: files.integer(
    "Adjectives in word names",
    1,
    20,
    2,
    "Adjectives in names of the `gfycat` format.",
  ),
  filesRandomWordsSeparator: files.string(
    "Word name separator",
    z.string().max(10),
    "-",
    "Separator of words in `gfycat` names.",
  ),
  filesDefaultCompressionFormat: files.string(
    "Compressed image format",
    optional(z.enum(["jpg", "jpeg", "png", "webp", "jxl"])),
    "jpg",
    "Format compressed images are written in.",
  ),
  filesDisabledTypes: files.list("Refused MIME types", mime(), "MIME types refused on upload."),
  filesDisabledTypesDefault: files.string(
    "MIME type of untyped uploads",
    optional(mime()),
    null,
    "MIME type assumed for uploads without one, checked against filesDisabledTypes.",
  ),
  filesMaxFilesPerUpload: files.integer(
    "Most files per upload",
    1,
    MAX_TIMER_MS,
    1000,
    "Most files one upload request may carry.",
  ),
  filesExtensionlessUrls: files.boolean(
    "URLs without the extension",
    false,
    "Return file URLs without the extension.",
  ),

  urlsRoute: urls.string(
    "Short URLs route",
    route(),
    "/go",
    "Route short URLs are served under; `/` is allowed.",
  ),
  urlsLength: urls.integer("Short code length", 1, 64, 6, "Length of random short URL codes."),
  urlsExpiredRetention: urls.string(
    "Expired links kept",
    optional(duration()),
    "7d",
    "How long an expired short URL still answers 410 (its page says it expired) before the " +
      "delete task removes it; null keeps it.",
    { unit: "duration" },
  ),

  analyticsEnabled: analytics.boolean(
    "Record visits",
    false,
    "Record each visit of a short URL or a file (time, referrer host, browser, OS, device " +
      "class, country with a GeoLite2 database, a daily-salted visitor hash; never the " +
      "address) for the owners' visit reports. Off, nothing is recorded; what was stays. " +
      "On, redirects cost more: with many distinct visitors, measured at 71–87 % of their " +
      "throughput on Deno KV and 76–93 % on PostgreSQL (bench/results/visits.md).",
  ),
  analyticsRetentionDays: analytics.integer(
    "Visits kept (days)",
    1,
    3650,
    90,
    "How many days recorded visits and their hourly totals are kept; the retention task " +
      "removes older ones.",
  ),
  analyticsCountBots: analytics.boolean(
    "Count bots",
    false,
    "Record visits of crawlers and other bots (recognised by their user agent), flagged as " +
      "bots; off, they are not recorded.",
  ),
  analyticsHonorDoNotTrack: analytics.boolean(
    "Honour Do Not Track",
    true,
    "Record no visit from a browser that sends DNT: 1 or Sec-GPC: 1.",
  ),
  analyticsGeoLite2Path: analytics.string(
    "GeoLite2-Country database file",
    optional(z.string().trim().min(1).regex(/\.mmdb$/i, "must be an .mmdb file")),
    null,
    "Path of a GeoLite2-Country (or GeoIP2-Country) .mmdb file on the server: visits then " +
      "record their country. Empty: no country. A file that cannot be read is logged once " +
      "and ignored. Only a SUPERADMIN may change it.",
    { path: "file", superadminOnly: true },
  ),

  featuresImageCompression: features.boolean(
    "Image compression",
    true,
    "Offer image compression on upload.",
  ),
  featuresRobotsTxt: features.boolean(
    "robots.txt",
    true,
    "Serve a robots.txt that disallows crawling.",
  ),
  featuresHealthcheck: features.boolean("Health check", true, "Serve GET /api/healthcheck."),
  featuresUserRegistration: features.boolean(
    "User registration",
    false,
    "Let anyone create an account.",
  ),
  featuresOauthRegistration: features.boolean(
    "OAuth registration",
    false,
    "Allow logging in and signing up with OAuth.",
  ),
  featuresDeleteOnMaxViews: features.boolean(
    "Delete at max views",
    true,
    "Delete files and URLs at their max views.",
  ),
  featuresThumbnailsEnabled: features.boolean(
    "Thumbnails",
    true,
    "Generate thumbnails of PNG, JPEG and GIF images, and of videos where ffmpeg is installed.",
  ),
  featuresThumbnailsNumberThreads: features.integer(
    "Thumbnails made at once",
    1,
    64,
    4,
    "Thumbnails made at once (each video one ffmpeg process); read at every pass.",
  ),
  featuresThumbnailsFormat: features.string(
    "Thumbnail format",
    z.enum(["jpg", "png", "webp"]),
    "jpg",
    "Image format of thumbnails (`webp` needs ffmpeg: without it, images get PNG ones).",
  ),
  featuresThumbnailsInstantaneous: features.boolean(
    "Thumbnails right after upload",
    false,
    "Generate a thumbnail right after each upload rather than on the task's interval.",
  ),
  featuresMetricsEnabled: features.boolean("Metrics", true, "Record and show instance metrics."),
  featuresMetricsAdminOnly: features.boolean(
    "Metrics for administrators only",
    false,
    "Show metrics to administrators only.",
  ),
  featuresMetricsShowUserSpecific: features.boolean(
    "Per-user metrics for everyone",
    false,
    "Show USERs the per-user numbers of the metrics (other users' names with their files, " +
      "storage and views); administrators always see them. Off by default (Zipline: on).",
  ),
  featuresVersionChecking: features.boolean(
    "Check for new versions",
    false,
    "Ask featuresVersionAPI whether a newer version exists (GET /api/version); off, nothing is asked.",
  ),
  featuresVersionAPI: features.string(
    "Version service URL",
    optional(url()),
    null,
    "The version service GET /api/version asks while featuresVersionChecking is on; its " +
      "answer is read up to 64 KiB." + INSIDE_NOTE,
  ),

  invitesEnabled: invites.boolean("Invites", true, "Let administrators create invites."),
  invitesLength: invites.integer("Invite code length", 1, 64, 6, "Length of invite codes."),

  websiteTitle: website.string(
    "Site title",
    z.string().trim().min(1).max(100),
    "Ferry",
    "Site title.",
  ),
  websiteTitleLogo: website.string(
    "Title logo URL",
    optional(url()),
    null,
    "URL of a logo shown by the title.",
  ),
  websiteExternalLinks: website.json(
    "External links",
    json(
      z.array(z.object({ name: z.string().trim().min(1).max(100), url: linkTarget() })).max(50),
    ),
    [
      { name: "API reference", url: "/api/docs" },
      { name: "Documentation", url: "/dashboard/help" },
    ],
    "Links at the foot of the dashboard's sidebar, each a name and an http(s) URL or a path on " +
      "this server (`[{name, url}]` in the API); by default Ferry's own API reference and " +
      "documentation, which it serves.",
  ),
  websiteLoginBackground: website.string(
    "Login background URL",
    optional(url()),
    null,
    "URL of the login page's background image.",
  ),
  websiteLoginBackgroundBlur: website.boolean(
    "Blur the login background",
    true,
    "Blur the login background.",
  ),
  websiteDefaultAvatar: website.string(
    "Default avatar file",
    optional(z.string().trim().min(1)),
    null,
    "Path of an image file on the server used as the default avatar.",
    { path: "file" },
  ),
  websiteTos: website.string(
    "Terms of service file",
    optional(z.string().trim().regex(/\.md$/i, "File is not a markdown file")),
    null,
    "Path of a markdown file on the server with the terms of service.",
    { path: "file" },
  ),
  websiteThemeDefault: website.string(
    "Default theme",
    themeId(),
    "system",
    "Theme id, or `system`.",
  ),
  websiteThemeDark: website.string(
    "Dark theme",
    themeId(),
    "builtin:dark_gray",
    "Theme used in dark mode.",
  ),
  websiteThemeLight: website.string(
    "Light theme",
    themeId(),
    "builtin:light_gray",
    "Theme used in light mode.",
  ),

  oauthBypassLocalLogin: oauth.boolean(
    "Skip the login form",
    false,
    "Send the login page straight to the OAuth provider.",
  ),
  oauthLoginOnly: oauth.boolean(
    "OAuth logs in existing users only",
    false,
    "OAuth may log in existing users but not create them.",
  ),
  oauthDiscordClientId: clientId("Discord client ID", "Discord"),
  oauthDiscordClientSecret: clientSecret("Discord client secret", "Discord"),
  oauthDiscordRedirectUri: redirect("Discord redirect URI", "discord", "Discord"),
  oauthDiscordAllowedIds: discordIds(
    "Discord allowed user IDs",
    "allowed to log in; empty allows all",
  ),
  oauthDiscordDeniedIds: discordIds("Discord denied user IDs", "refused at login"),
  oauthGoogleClientId: clientId("Google client ID", "Google"),
  oauthGoogleClientSecret: clientSecret("Google client secret", "Google"),
  oauthGoogleRedirectUri: redirect("Google redirect URI", "google", "Google"),
  oauthGithubClientId: clientId("GitHub client ID", "GitHub"),
  oauthGithubClientSecret: clientSecret("GitHub client secret", "GitHub"),
  oauthGithubRedirectUri: redirect("GitHub redirect URI", "github", "GitHub"),
  oauthOidcClientId: clientId("OIDC client ID", "Generic OIDC"),
  oauthOidcClientSecret: clientSecret("OIDC client secret", "Generic OIDC"),
  oauthOidcAuthorizeUrl: oauthUrl("OIDC authorization URL", "authorization"),
  oauthOidcTokenUrl: oauthUrl("OIDC token URL", "token"),
  oauthOidcUserinfoUrl: oauthUrl("OIDC userinfo URL", "userinfo"),
  oauthOidcIssuerUrl: oauth.string(
    "OIDC issuer URL",
    optional(url()),
    null,
    "Generic OIDC provider's issuer, whose discovery document gives its endpoints and keys; " +
      "null looks for it above the authorization URL.",
  ),
  oauthOidcRedirectUri: redirect("OIDC redirect URI", "oidc", "Generic OIDC"),

  mfaTotpEnabled: mfa.boolean("Two-factor codes (TOTP)", false, "Let users turn on TOTP codes."),
  mfaTotpIssuer: mfa.string(
    "TOTP issuer",
    z.string().trim().min(1).max(100),
    "Ferry",
    "Issuer shown in authenticator apps.",
  ),
  mfaPasskeysEnabled: mfa.boolean(
    "Passkeys",
    false,
    "Let users register passkeys and sign in with them. Without mfaPasskeysRpID and " +
      "mfaPasskeysOrigin, both are derived at each ceremony from coreDefaultDomain, else the " +
      "request's own host.",
    { alias: "mfaPasskeys" },
  ),
  mfaPasskeysRpID: mfa.string(
    "Passkey relying-party ID",
    optional(
      z.string().trim().regex(
        /^[a-zA-Z0-9.-]+$/,
        "RP ID can only contain letters, numbers, dots, and hyphens. Example: example.com",
      ),
    ),
    null,
    "WebAuthn relying-party id: the site's domain or a parent of it; null derives it: the host " +
      "name of coreDefaultDomain, else of the request.",
  ),
  mfaPasskeysOrigin: mfa.string(
    "Passkey origin",
    optional(
      z.string().trim().regex(
        /^https?:\/\/[a-zA-Z0-9.-]+(?::\d+)?(?:\/.*)?$/,
        "Origin must be a valid URL starting with http:// or https://",
      ),
    ),
    null,
    "WebAuthn origin, such as https://files.example.com; null accepts https:// or http:// with " +
      "the host (and port) of coreDefaultDomain, else of the request.",
  ),

  ratelimitEnabled: ratelimit.boolean("Rate limiting", true, "Limit request rates."),
  ratelimitMax: ratelimit.integer(
    "Requests per window",
    1,
    MAX_TIMER_MS,
    10,
    "Requests allowed per window.",
  ),
  ratelimitWindow: ratelimit.integer(
    "Window",
    1,
    MAX_TIMER_MS,
    60_000,
    "Window length in milliseconds.",
    {
      unit: "ms",
    },
  ),
  ratelimitAdminBypass: ratelimit.boolean(
    "Administrators are not limited",
    true,
    "Administrators are not limited.",
  ),
  ratelimitAllowList: ratelimit.list(
    "Never limited",
    z.string().trim().min(1).max(500),
    "Keys and IPs that are not limited.",
  ),

  httpWebhookOnUpload: secretUrl("Upload webhook URL", "URL POSTed on every upload."),
  httpWebhookOnShorten: secretUrl("Shorten webhook URL", "URL POSTed on every shortened URL."),
  httpWebhookOnRequestUpload: secretUrl(
    "Request upload webhook URL",
    "URL POSTed on every file received through an upload request (besides the upload's own).",
  ),
  httpWebhookSigningSecret: webhooks.string(
    "Signing secret",
    optional(z.string().trim().min(32).max(200)),
    null,
    "Key that signs HTTP webhook deliveries (x-service-signature); null derives it from the " +
      "server secret. Rotate it on the webhooks page.",
    { secret: true, superadminOnly: true },
  ),
  webhooksAllowedHosts: webhooks.list(
    "Inside hosts allowed",
    rule(z.string().trim().min(1).max(300), allowEntryProblem),
    "Host names, IP addresses and CIDRs (127.0.0.1, 10.0.0.0/8, hooks.internal) that webhooks " +
      "and the version service may reach although they are inside (loopback, private, " +
      "link-local, metadata); every other inside address is refused, checked on the resolved " +
      "address when each request is sent and on every redirect. Only a SUPERADMIN may change it.",
    { superadminOnly: true },
  ),
  chatWebhookUrl: secretUrl(
    "Webhook URL",
    "Chat webhook URL used when an event has none of its own.",
    "discordWebhookUrl",
  ),
  chatUsername: text(
    "Username",
    "Chat webhook username used when an event has none of its own.",
    "discordUsername",
  ),
  chatAvatarUrl: avatarUrl(
    "Avatar URL",
    "Chat webhook avatar URL used when an event has none of its own.",
    "discordAvatarUrl",
  ),
  chatOnUploadWebhookUrl: secretUrl(
    "Upload: webhook URL",
    "Chat webhook URL for uploads.",
    "discordOnUploadWebhookUrl",
  ),
  chatOnUploadUsername: text(
    "Upload: username",
    "Chat webhook username for uploads.",
    "discordOnUploadUsername",
  ),
  chatOnUploadAvatarUrl: avatarUrl(
    "Upload: avatar URL",
    "Chat webhook avatar URL for uploads.",
    "discordOnUploadAvatarUrl",
  ),
  chatOnUploadContent: text(
    "Upload: message",
    "Message text for uploads; template variables allowed.",
    "discordOnUploadContent",
  ),
  chatOnUploadEmbed: embedOf("Upload: embed", "uploads", "discordOnUploadEmbed"),
  chatOnShortenWebhookUrl: secretUrl(
    "Shorten: webhook URL",
    "Chat webhook URL for shortened URLs.",
    "discordOnShortenWebhookUrl",
  ),
  chatOnShortenUsername: text(
    "Shorten: username",
    "Chat webhook username for shortened URLs.",
    "discordOnShortenUsername",
  ),
  chatOnShortenAvatarUrl: avatarUrl(
    "Shorten: avatar URL",
    "Chat webhook avatar URL for shortened URLs.",
    "discordOnShortenAvatarUrl",
  ),
  chatOnShortenContent: text(
    "Shorten: message",
    "Message text for shortened URLs; template variables allowed.",
    "discordOnShortenContent",
  ),
  chatOnShortenEmbed: embedOf("Shorten: embed", "shortened URLs", "discordOnShortenEmbed"),
  chatOnRequestUploadWebhookUrl: secretUrl(
    "Upload requests: webhook URL",
    "Chat webhook URL for files received by requests.",
    undefined,
    true,
  ),
  chatOnRequestUploadUsername: text(
    "Upload requests: username",
    "Chat webhook username for files received by requests.",
  ),
  chatOnRequestUploadAvatarUrl: avatarUrl(
    "Upload requests: avatar URL",
    "Chat webhook avatar URL for files received by requests.",
  ),
  chatOnRequestUploadContent: text(
    "Upload requests: message",
    "Message text for files received by requests; template variables allowed " +
      "({request.name}, {request.uploader} besides the upload's).",
  ),
  chatOnRequestUploadEmbed: embedOf(
    "Upload requests: embed",
    "files received by upload requests",
  ),

  pwaEnabled: pwa.boolean("Installable web app", false, "Serve a web app manifest."),
  pwaTitle: pwa.string("App name", z.string().trim().min(1).max(100), "Ferry", "Web app name."),
  pwaShortName: pwa.string(
    "App short name",
    z.string().trim().min(1).max(50),
    "Ferry",
    "Web app short name.",
  ),
  pwaDescription: pwa.string(
    "App description",
    z.string().trim().max(500),
    "Ferry",
    "Web app description.",
  ),
  pwaThemeColor: pwa.string("Theme colour", colour(), "#000000", "Web app theme colour."),
  pwaBackgroundColor: pwa.string(
    "Background colour",
    colour(),
    "#000000",
    "Web app background colour.",
  ),

  domains: domains.list(
    "Domains",
    host(),
    "Extra host names users may choose for their file URLs.",
  ),
};

/** A settings key. */
export type SettingKey = keyof typeof REGISTRY;

/** The full settings object. */
export type Settings = {
  [K in SettingKey]: (typeof REGISTRY)[K] extends SettingDef<infer T> ? T : never;
};

/** Every key, in registry order. */
export const SETTING_KEYS = Object.keys(REGISTRY) as SettingKey[];

/** `true` when `key` is a settings key. */
export function isSettingKey(key: string): key is SettingKey {
  return Object.hasOwn(REGISTRY, key);
}

/** The key's definition, untyped, for code that walks every key. */
export function settingDef(key: SettingKey): SettingDef {
  return REGISTRY[key] as SettingDef;
}

/** Each alias (Zipline's name) with the key it names. */
export const ALIASES: ReadonlyMap<string, SettingKey> = new Map(
  SETTING_KEYS.flatMap((key) => {
    const alias = settingDef(key).alias;
    return alias ? [[alias, key] as const] : [];
  }),
);

/** `settings` with each alias beside its key, holding the key's value: what a `GET` shows. */
export function withAliases<T extends Partial<Record<SettingKey, unknown>>>(
  settings: T,
): T & Record<string, unknown> {
  const shown: Record<string, unknown> = { ...settings };
  for (const [alias, key] of ALIASES) if (key in settings) shown[alias] = settings[key];
  return shown as T & Record<string, unknown>;
}

/** The environment variable of a key: `coreReturnHttpsUrls` → `SERVICE_CORE_RETURN_HTTPS_URLS`. */
export function envName(key: SettingKey): string {
  return "SERVICE_" +
    key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/([A-Z])([A-Z][a-z])/g, "$1_$2")
      .toUpperCase();
}

/** The defaults of every key. */
export function defaultSettings(): Settings {
  return Object.fromEntries(
    SETTING_KEYS.map((key) => [key, structuredClone(settingDef(key).default)]),
  ) as Settings;
}
