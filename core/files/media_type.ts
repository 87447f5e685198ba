/**
 * A file's media type as Ferry keeps and serves it. The type a client sends
 * (a multipart part header, `PATCH {type}`, an import) is only a claim: it is
 * normalised to one lowercase `type/subtype` (with a charset for text, and
 * nothing else), and only a short list of passive types is ever shown by a
 * browser on Ferry's origin without a sandbox.
 */

/** The type of bytes nothing is known about; what a type that does not parse becomes. */
export const UNKNOWN_TYPE = "application/octet-stream";

/** A type or subtype name (RFC 6838 §4.2), already lowercased. */
const NAME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;
/** One `name=value` parameter; the value a token or a quoted string. */
const PARAMETER =
  /^\s*([a-z0-9!#$%&'*+.^_`|~-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[a-z0-9!#$%&'*+.^_`|~-]+)\s*$/;

/**
 * `input` as one lowercase `type/subtype`, keeping a `charset` parameter for
 * `text/*` and dropping any other parameter; `null` when it does not parse
 * (two types, a comma, a missing subtype, stray characters).
 */
export function normalizeType(input: string): string | null {
  const [essence, ...parameters] = input.toLowerCase().split(";");
  const parts = essence.trim().split("/");
  if (parts.length !== 2 || !parts.every((p) => NAME.test(p))) return null;
  const type = parts.join("/");
  let charset: string | null = null;
  for (const parameter of parameters) {
    if (parameter.trim() === "") continue;
    const match = PARAMETER.exec(parameter);
    if (!match) return null;
    const value = match[2].replace(/^"|"$/g, "");
    if (match[1] === "charset" && parts[0] === "text") {
      if (!NAME.test(value)) return null;
      charset = value;
    }
  }
  return charset === null ? type : `${type}; charset=${charset}`;
}

/** The type to store for a client's `input`: normalised, or {@link UNKNOWN_TYPE}. */
export function storedType(input: string): string {
  return normalizeType(input) ?? UNKNOWN_TYPE;
}

/** `type/subtype` of a normalised type, without its charset. */
export function essenceOf(type: string): string {
  return type.split(";")[0].trim();
}

/** Images a browser only decodes (SVG, which can run script, is not one). */
const PASSIVE_IMAGES = new Set([
  "image/apng",
  "image/avif",
  "image/bmp",
  "image/gif",
  "image/heic",
  "image/heif",
  "image/jpeg",
  "image/jxl",
  "image/png",
  "image/tiff",
  "image/vnd.microsoft.icon",
  "image/webp",
  "image/x-icon",
]);

/**
 * Whether a browser shows `type` (normalised) without running anything in it:
 * the images above, audio, video, PDF (the browser's own viewer) and plain
 * text. Every other type is served in a sandbox, as an attachment.
 */
export function isPassiveType(type: string): boolean {
  const essence = essenceOf(type);
  return PASSIVE_IMAGES.has(essence) || /^(?:audio|video)\//.test(essence) ||
    essence === "application/pdf" || essence === "text/plain";
}

/** The JavaScript types that are no `text/*` (WHATWG MIME Sniffing §4.6 lists them all). */
const SCRIPT_TYPES = new Set([
  "application/ecmascript",
  "application/javascript",
  "application/x-ecmascript",
  "application/x-javascript",
]);

/**
 * Whether a browser runs or applies `type` (normalised) somewhere: every
 * `text/*` type but plain text (HTML, CSS, JavaScript, XSL, …), the
 * JavaScript types, and XML of any kind (SVG, XHTML, XSLT, `application/xml`).
 * Loaded by `<script>`, `<link rel=stylesheet>` or `<?xml-stylesheet?>`, or
 * opened as a document, each can act for the page that loads it.
 */
export function isActiveType(type: string): boolean {
  const essence = essenceOf(type);
  return (essence.startsWith("text/") && essence !== "text/plain") ||
    SCRIPT_TYPES.has(essence) || /[/+]xml$/.test(essence);
}

/**
 * The `Content-Type` a file of stored `type` (normalised) is served with: an
 * active type ({@link isActiveType}) as plain text, which with `nosniff` no
 * browser runs as a script, applies as a style or renders as a page; plain
 * text as itself; each with its stored charset, else UTF-8. Any other type as
 * it is.
 */
export function servedType(type: string): string {
  if (!isActiveType(type) && !type.startsWith("text/")) return type;
  return `text/plain; charset=${/; charset=(.+)$/.exec(type)?.[1] ?? "utf-8"}`;
}
