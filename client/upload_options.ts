/**
 * The upload options of `POST /api/upload`, the headers that carry them, the
 * expiry presets a server's maximum allows, and how the browser remembers
 * them (no DOM but `Storage`: tested alone).
 */

/** The upload options of `POST /api/upload`, sent as `x-service-*` headers. */
export interface UploadOptions {
  format?: string;
  deletesAt?: string;
  password?: string;
  maxViews?: string;
  folder?: string;
  originalName?: boolean;
  domain?: string;
  /** Headers sent as they are (an upload request's `x-service-request…`). */
  extra?: Record<string, string>;
  /** A name to use instead of the format's. */
  filename?: string;
  /** The format compressed images are written in (`jpg`, `png`, `webp`, `jxl`). */
  compressionType?: string;
  /** The quality images are compressed at, 0–100 (empty: not compressed). */
  compressionPercent?: string;
  /** Upload as soon as files are dropped, instead of listing them first. */
  uploadOnDrop?: boolean;
}

/** The `x-service-*` headers of `options`. */
export function optionHeaders(options: UploadOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const set = (name: string, value: string | undefined) => {
    if (value !== undefined && value.trim() !== "") headers[`x-service-${name}`] = value.trim();
  };
  set("format", options.format);
  set("deletes-at", options.deletesAt);
  set("password", options.password);
  set("max-views", options.maxViews);
  set("folder", options.folder);
  set("domain", options.domain);
  set("filename", options.filename);
  set("image-compression-percent", options.compressionPercent);
  if (options.compressionPercent?.trim()) {
    set("image-compression-type", options.compressionType);
  }
  if (options.originalName) headers["x-service-original-name"] = "true";
  return { ...headers, ...options.extra };
}

/** The expiry presets: the header's value, what a person reads, and its length in ms. */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
export const EXPIRY_PRESETS: [string, string, number][] = [
  ["1h", "1 hour", HOUR],
  ["6h", "6 hours", 6 * HOUR],
  ["12h", "12 hours", 12 * HOUR],
  ["1d", "1 day", DAY],
  ["3d", "3 days", 3 * DAY],
  ["7d", "1 week", 7 * DAY],
  ["14d", "2 weeks", 14 * DAY],
  ["30d", "30 days", 30 * DAY],
  ["90d", "90 days", 90 * DAY],
  ["180d", "180 days", 180 * DAY],
  ["365d", "1 year", 365 * DAY],
];

/**
 * The expiry choices under a server maximum of `maxMs` (`null`: none):
 * `[value, label]`, "never" first when no maximum forbids it.
 */
export function expiryChoices(maxMs: number | null): [string, string][] {
  const presets = EXPIRY_PRESETS.filter(([, , ms]) => maxMs === null || ms <= maxMs)
    .map(([value, label]): [string, string] => [value, label]);
  return maxMs === null ? [["", "Never"], ...presets] : presets;
}

/** The `localStorage` key of the remembered options. */
export const OPTIONS_KEY = "ferry-upload-options";

/**
 * The options remembered in `storage`, those a server with the expiry
 * maximum `maxMs` still takes (an expiry past it, or "never" under one, is
 * dropped).
 */
export function loadOptions(storage: Storage, maxMs: number | null): UploadOptions {
  let saved: UploadOptions = {};
  try {
    saved = JSON.parse(storage.getItem(OPTIONS_KEY) ?? "{}") ?? {};
  } catch {
    // a broken entry is forgotten
  }
  if (typeof saved !== "object" || Array.isArray(saved)) saved = {};
  delete saved.password;
  const allowed = expiryChoices(maxMs).map(([value]) => value);
  if (saved.deletesAt !== undefined && !allowed.includes(saved.deletesAt)) delete saved.deletesAt;
  return saved;
}

/**
 * Remembers `options` in `storage`, all but the password (a secret is not left
 * in the browser's storage); nothing is kept when nothing is set.
 */
export function saveOptions(storage: Storage, options: UploadOptions): void {
  const { password: _, ...kept } = options;
  const set = Object.entries(kept).filter(([, v]) => v !== undefined && v !== "" && v !== false);
  if (set.length === 0) storage.removeItem(OPTIONS_KEY);
  else storage.setItem(OPTIONS_KEY, JSON.stringify(Object.fromEntries(set)));
}

/** Whether `storage` remembers any option. */
export function hasSavedOptions(storage: Storage): boolean {
  return storage.getItem(OPTIONS_KEY) !== null;
}
