/**
 * Upload options from the request headers (reference §5.2): `x-service-<name>`,
 * or Zipline's `x-zipline-<name>` so that existing ShareX and Flameshot
 * configurations keep working. Every bad value is a 400 naming the header.
 */
import type { Random } from "../clock.ts";
import { badRequest } from "../errors.ts";
import type { Settings } from "../settings/registry.ts";
import { expiryTime, parseDuration } from "../units/duration.ts";
import { requestedDomains } from "../links.ts";
import { type Compression, CompressionOptionError, parseCompression } from "./compress.ts";
import { NAME_FORMATS, type NameFormat, randomIndex, sanitizeFilename } from "./naming.ts";

/** Reads one option header by its short name (`deletes-at`), whichever prefix it came with. */
export type OptionHeader = (name: string) => string | undefined;

/** The header prefixes, preferred first. */
export const OPTION_PREFIXES = ["x-service-", "x-zipline-"];

const bad = (header: string, reason: string) => badRequest(`bad options[${header}]: ${reason}`);

/** The most characters an option header's value may have, unless {@link OPTION_LIMITS} says less. */
export const OPTION_MAX_LENGTH = 1000;

/**
 * Option headers whose value is an id looked up in the store (a Deno KV key
 * has at most 2 KiB): their bound, by short name. Record ids are 25
 * characters (Ferry's and Zipline's alike), an upload's identifier 24.
 */
const OPTION_LIMITS: Record<string, number> = { "p-identifier": 100, folder: 100 };

/** The most characters option header `name` (its short name, `p-identifier`) may have. */
export function optionLimit(name: string): number {
  return OPTION_LIMITS[name] ?? OPTION_MAX_LENGTH;
}

/**
 * The option headers among `headers` (lowercase name and value pairs, as a
 * `Headers` iterates), read by short name whichever prefix they came with
 * (the first of {@link OPTION_PREFIXES} wins). Every header with either
 * prefix is held to its bound ({@link optionLimit}) before anything reads it:
 * a longer one is a 400 naming it.
 */
export function optionHeaders(headers: Iterable<[string, string]>): OptionHeader {
  const entries = [...headers];
  const options = new Map<string, string>();
  for (const prefix of OPTION_PREFIXES.toReversed()) {
    for (const [key, value] of entries) {
      if (!key.startsWith(prefix)) continue;
      const name = key.slice(prefix.length);
      const limit = optionLimit(name);
      if (value.length > limit) {
        throw bad(name, `${key} is longer than ${limit} characters`);
      }
      options.set(name, value);
    }
  }
  return (name) => options.get(name);
}

/** Options that apply to every file of one upload. */
export interface UploadOptions {
  /** When the files expire; `null` for never. */
  deletesAt: Date | null;
  /** What the response says about expiry: `"never"`, the ISO time, or nothing. */
  deletesAtLabel: string | null;
  maxViews: number | null;
  /** The plaintext password to hash onto every file. */
  password: string | null;
  /**
   * A password already hashed, used instead of {@link password}: a tus
   * upload's, hashed at its creation so that its record never holds it plain.
   */
  passwordHash?: string;
  format: NameFormat;
  /** A sanitized base name that replaces the format's. */
  filename: string | null;
  /** Keep the client's file name as `originalName`. */
  keepOriginalName: boolean;
  /** A dotted extension that replaces the file's own. */
  extension: string | null;
  /** An opaque folder id, checked by the folders store. */
  folderId: string | null;
  /** The host returned URLs use, picked from the `domain` header's list. */
  domain: string | null;
  /** Answer with the URLs as text instead of JSON. */
  noJson: boolean;
  /** How uploaded images are compressed; `null` for not at all. */
  compression: Compression | null;
  /** `private`: `true` or `false`; `null` when not given (the owner's `privateByDefault`). */
  private: boolean | null;
}

const EXTENSION = /^[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*$/;
const DOMAIN = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?$/;

/**
 * Parses the option headers against the current settings at time `now`, for
 * a request sent to `host` (a domain asked for must be this server's).
 */
export function parseUploadOptions(
  header: OptionHeader,
  settings: Settings,
  now: number,
  random: Random,
  host: string,
): UploadOptions {
  const value = (name: string) => {
    const v = header(name)?.trim();
    return v ? v : null;
  };
  const flag = (name: string) => value(name)?.toLowerCase() === "true";
  return {
    ...expiry(value("deletes-at"), settings, now),
    maxViews: maxViews(value("max-views")),
    password: value("password"),
    format: format(value("format"), settings.filesDefaultFormat),
    filename: filename(value("filename")),
    keepOriginalName: flag("original-name"),
    extension: extension(value("file-extension")),
    folderId: value("folder"),
    domain: domain(value("domain"), random, settings, host),
    noJson: flag("no-json"),
    compression: compression(
      value("image-compression-percent"),
      value("image-compression-type"),
      settings,
    ),
    private: privacy(value("private")),
  };
}

/** Compression as asked for; `featuresImageCompression` is not consulted (as in Zipline). */
function compression(percent: string | null, type: string | null, settings: Settings) {
  try {
    return parseCompression(percent, type, settings.filesDefaultCompressionFormat);
  } catch (error) {
    if (!(error instanceof CompressionOptionError)) throw error;
    throw bad(`image-compression-${error.header}`, error.message);
  }
}

function expiry(input: string | null, settings: Settings, now: number) {
  const max = settings.filesMaxExpiration ? parseDuration(settings.filesMaxExpiration) : null;
  const exceeds = () =>
    bad(
      "deletes-at",
      `Expiry exceeds maximum allowed expiration of ${settings.filesMaxExpiration}`,
    );
  if (input === null) {
    const fallback = settings.filesDefaultExpiration
      ? parseDuration(settings.filesDefaultExpiration)
      : null;
    if (!fallback) return { deletesAt: null, deletesAtLabel: null };
    const at = new Date(now + fallback);
    return { deletesAt: at, deletesAtLabel: at.toISOString() };
  }
  const at = expiryTime(input, now);
  if (at === null) {
    // Zipline lets `never` pass any maximum; a maximum that can be skipped is none.
    if (max !== null) throw exceeds();
    return { deletesAt: null, deletesAtLabel: "never" };
  }
  if (!Number.isFinite(at) || at <= now) throw bad("deletes-at", "Invalid expiry date");
  if (max !== null && at - now > max) throw exceeds();
  return { deletesAt: new Date(at), deletesAtLabel: new Date(at).toISOString() };
}

function privacy(input: string | null): boolean | null {
  if (input === null) return null;
  const v = input.toLowerCase();
  if (v !== "true" && v !== "false") throw bad("private", "must be true or false");
  return v === "true";
}

function maxViews(input: string | null): number | null {
  if (input === null) return null;
  const n = Number(input);
  if (!Number.isSafeInteger(n) || n < 0 || n > 2_147_483_647) {
    throw bad("max-views", "Invalid max views (must be a whole number of at least 0)");
  }
  return n === 0 ? null : n;
}

function format(input: string | null, fallback: string): NameFormat {
  const f = (input ?? fallback).toLowerCase();
  if (!(NAME_FORMATS as readonly string[]).includes(f)) throw bad("format", "Invalid format");
  return f as NameFormat;
}

function filename(input: string | null): string | null {
  if (input === null) return null;
  const name = sanitizeFilename(input);
  if (name === null) throw bad("filename", "invalid file name");
  return name;
}

function extension(input: string | null): string | null {
  if (input === null) return null;
  const ext = input.replace(/^\./, "");
  if (!EXTENSION.test(ext) || ext.length > 50) {
    throw bad("file-extension", "Invalid file extension");
  }
  return `.${ext}`;
}

function domain(
  input: string | null,
  random: Random,
  settings: Settings,
  host: string,
): string | null {
  if (input === null) return null;
  if (input.split(",").some((d) => d.trim() && !DOMAIN.test(d.trim()))) {
    throw bad("domain", "Invalid domain");
  }
  const domains = requestedDomains(settings, input, host);
  if (domains.length === 0) return null;
  return domains[randomIndex(random, domains.length)];
}
