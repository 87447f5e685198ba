/**
 * How uploaded files are named (reference §5.4): the extension, the base name
 * of each format, and the sanitizing of client-given names. Names are unique
 * in the store; {@link nameCandidates} yields the names to try in order.
 */
import { STORAGE_FOLDERS } from "../../storage/datasource.ts";
import { type Random, randomString } from "../clock.ts";
import { ADJECTIVES, ANIMALS } from "./words.ts";

/** The name formats an upload may ask for. */
export const NAME_FORMATS = ["random", "date", "uuid", "name", "gfycat", "random-words"] as const;
/** A name format. */
export type NameFormat = typeof NAME_FORMATS[number];

/** Double extensions kept whole, as Zipline keeps them. */
const DOUBLE_EXTENSIONS = [
  ".tar.gz",
  ".tar.xz",
  ".tar.bz2",
  ".tar.lz",
  ".tar.lzma",
  ".tar.Z",
  ".tar.7z",
  ".zip.gz",
  ".zip.xz",
  ".rar.gz",
  ".log.gz",
  ".csv.gz",
  ".pdf.gz",
];

/** Longest file name in bytes: what most file systems take as one path segment. */
export const MAX_NAME_BYTES = 255;

/** The prefix of every thumbnail's datasource name (`./thumbnails.ts`). */
export const THUMBNAIL_PREFIX = ".thumbnail.";

/** The datasource folder that holds user exports (`./user_export.ts`). */
export const EXPORTS_FOLDER = ".exports";

/** The datasource folder that holds chunked uploads being assembled (`./chunked.ts`). */
export const PARTIAL_FOLDER = ".partial";

/** Every top-level folder of the datasource that Ferry or the datasource itself uses. */
const RESERVED_FOLDERS = [EXPORTS_FOLDER, PARTIAL_FOLDER, ...Object.values(STORAGE_FOLDERS)];

/**
 * Whether `name` is one Ferry keeps for itself in the datasource (compared
 * without case, for case-insensitive disks): a thumbnail's, or one of its
 * folders'. No file may take such a name: it would overwrite another user's
 * thumbnail, or stand where a folder must.
 */
export function reservedName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith(THUMBNAIL_PREFIX) ||
    RESERVED_FOLDERS.some((folder) => lower === folder || lower.startsWith(`${folder}/`));
}

// deno-lint-ignore no-control-regex
const UNSAFE = /[/\\\u0000-\u001f\u007f]/;

/**
 * A client-given file name, URI-decoded, or `null` when it is not a plain
 * name: a path separator, a control character, `.`/`..`, a
 * {@link reservedName}, or bad escapes.
 */
export function sanitizeFilename(input: string): string | null {
  let name: string;
  try {
    name = decodeURIComponent(input).trim();
  } catch {
    return null;
  }
  if (!name || name === "." || name === ".." || reservedName(name) || UNSAFE.test(name)) {
    return null;
  }
  return new TextEncoder().encode(name).byteLength <= MAX_NAME_BYTES ? name : null;
}

/** The dotted extension of `filename`: a known double extension, else the last one; `""` if none. */
export function extensionOf(filename: string): string {
  const double = DOUBLE_EXTENSIONS.find((e) => filename.toLowerCase().endsWith(e.toLowerCase()));
  if (double && filename.length > double.length) return filename.slice(-double.length);
  const dot = filename.lastIndexOf(".");
  return dot > 0 ? filename.slice(dot) : "";
}

/** `true` when `extension` (dotted) or its last part is in `disabled` (entries with or without a dot). */
export function extensionDisabled(extension: string, disabled: string[]): boolean {
  if (!extension) return false;
  const whole = extension.slice(1).toLowerCase();
  const last = whole.split(".").pop()!;
  return disabled.some((entry) => {
    const e = entry.replace(/^\./, "").toLowerCase();
    return e === whole || e === last;
  });
}

/** What naming one file needs from the settings and the request. */
export interface NamingInput {
  format: NameFormat;
  /** The dotted extension to append (`""` for none). */
  extension: string;
  /** The client's file name, sanitized, for the `name` format. */
  originalName: string | null;
  /** The `filename` header's base name, sanitized: it wins over the format. */
  override: string | null;
  length: number;
  dateFormat: string;
  adjectives: number;
  separator: string;
  now: Date;
  random: Random;
}

/** How many names a format that draws at random tries before giving up. */
const RANDOM_TRIES = 20;

/**
 * The names to try, in order, until the store takes one. A fixed name (the
 * `name` format or an override) yields one candidate; `date` appends `-1`,
 * `-2`…; random formats draw again.
 */
export function* nameCandidates(n: NamingInput): Generator<string> {
  const fixed = n.override ?? (n.format === "name" ? stripExtension(n.originalName) : null);
  if (fixed !== null) {
    yield fixed + n.extension;
    return;
  }
  if (n.format === "date") {
    const base = formatDate(n.now, n.dateFormat);
    yield base + n.extension;
    for (let i = 1;; i++) yield `${base}-${i}${n.extension}`;
  }
  for (let i = 0; i < RANDOM_TRIES; i++) yield randomBase(n) + n.extension;
}

/** The client file name without its extension; `null` when nothing would be left. */
function stripExtension(name: string | null): string | null {
  if (name === null) return null;
  const ext = extensionOf(name);
  return ext && name.length > ext.length ? name.slice(0, -ext.length) : name;
}

function randomBase(n: NamingInput): string {
  switch (n.format) {
    case "uuid":
      return uuid(n.random);
    case "gfycat":
    case "random-words": {
      const pick = (list: string[]) => list[randomIndex(n.random, list.length)];
      const words = Array.from({ length: n.adjectives }, () => pick(ADJECTIVES));
      return [...words, pick(ANIMALS)].join(n.separator);
    }
    default:
      return randomString(n.random, n.length);
  }
}

/** A uniformly drawn integer in `[0, n)`. */
export function randomIndex(random: Random, n: number): number {
  const limit = Math.floor(2 ** 32 / n) * n;
  while (true) {
    const [a, b, c, d] = random.bytes(4);
    const value = a * 2 ** 24 + (b << 16) + (c << 8) + d;
    if (value < limit) return value % n;
  }
}

/** A version 4 UUID from `random`. */
function uuid(random: Random): string {
  const b = random.bytes(16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${
    hex.slice(20)
  }`;
}

/**
 * `date` formatted with dayjs tokens (`YYYY-MM-DD_HH:mm:ss`, the default), in
 * the server's local time as Zipline does; `[text]` is kept literally.
 */
export function formatDate(date: Date, format: string): string {
  const pad = (v: number, n = 2) => String(v).padStart(n, "0");
  const h12 = date.getHours() % 12 || 12;
  const tokens: Record<string, string> = {
    YYYY: String(date.getFullYear()),
    YY: pad(date.getFullYear() % 100),
    MM: pad(date.getMonth() + 1),
    M: String(date.getMonth() + 1),
    DD: pad(date.getDate()),
    D: String(date.getDate()),
    HH: pad(date.getHours()),
    H: String(date.getHours()),
    hh: pad(h12),
    h: String(h12),
    mm: pad(date.getMinutes()),
    m: String(date.getMinutes()),
    ss: pad(date.getSeconds()),
    s: String(date.getSeconds()),
    SSS: pad(date.getMilliseconds(), 3),
    A: date.getHours() < 12 ? "AM" : "PM",
    a: date.getHours() < 12 ? "am" : "pm",
  };
  return format.replace(
    /\[([^\]]*)]|YYYY|YY|SSS|MM|M|DD|D|HH|H|hh|h|mm|m|ss|s|A|a/g,
    (match, literal) => literal ?? tokens[match],
  ).replace(/[/\\]/g, "-");
}
