/**
 * The HTTP semantics of serving a file, as pure functions: single byte
 * ranges (RFC 9110 §14), validators and conditional requests, and the
 * response headers. Zipline's quirks are fixed here: a suffix range is
 * exactly `n` bytes, and an unsatisfiable range is a 416 without the body.
 */
import type { FileRecord } from "../../db/files.ts";
import { isPassiveType, servedType, storedType } from "./media_type.ts";

/** What a `Range` header asks of a representation of `size` bytes. */
export type RangeAnswer =
  | { kind: "full" }
  | { kind: "partial"; start: number; end: number }
  | { kind: "unsatisfiable" };

/**
 * Reads one `bytes=` range. A header that is absent, malformed, of another
 * unit or lists several ranges is ignored (the whole body), as RFC 9110 allows.
 */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  const match = header && /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match || (match[1] === "" && match[2] === "")) return { kind: "full" };
  const [first, last] = [match[1], match[2]].map((v) => (v === "" ? null : Number(v)));
  if (first === null) {
    // `bytes=-n`: the last n bytes.
    if (last === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", start: Math.max(0, size - last!), end: size - 1 };
  }
  if (last !== null && last < first) return { kind: "full" };
  if (first >= size) return { kind: "unsatisfiable" };
  return { kind: "partial", start: first, end: Math.min(last ?? size - 1, size - 1) };
}

/** The strong validator of a file's bytes, which never change once uploaded. */
export function etagOf(file: FileRecord): string {
  return `"${file.id}-${file.size.toString(36)}"`;
}

/** `date` at the second, as `Last-Modified` carries it. */
function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** The request headers conditional serving reads. */
export interface Conditions {
  ifNoneMatch?: string;
  ifModifiedSince?: string;
  ifRange?: string;
}

/** `true` when the client's copy is current: answer 304 (`If-None-Match` wins over the date). */
export function notModified(c: Conditions, etag: string, modified: Date): boolean {
  if (c.ifNoneMatch !== undefined) {
    const tags = c.ifNoneMatch.split(",").map((t) => t.trim().replace(/^W\//, ""));
    return tags.includes("*") || tags.includes(etag);
  }
  if (c.ifModifiedSince === undefined) return false;
  const since = Date.parse(c.ifModifiedSince);
  return Number.isFinite(since) && seconds(modified) <= Math.floor(since / 1000);
}

/** `false` when `If-Range` names another version: the range is then ignored. */
export function rangeStillValid(c: Conditions, etag: string, modified: Date): boolean {
  if (c.ifRange === undefined) return true;
  const value = c.ifRange.trim();
  if (value.startsWith('"') || value.startsWith("W/")) return value === etag;
  const date = Date.parse(value);
  return Number.isFinite(date) && Math.floor(date / 1000) === seconds(modified);
}

/** The policy that keeps active content (HTML, SVG, scripts…) from running as this origin. */
export const SANDBOX_POLICY =
  "sandbox; default-src 'none'; img-src data:; media-src data:; style-src 'unsafe-inline'";

/** `"<ascii>"` for the plain `filename` parameter: quotes, backslashes and non-ASCII replaced. */
function asciiFallback(name: string): string {
  return name.replace(/[^\x20-\x7e]|["\\]/g, "_");
}

/** A `Content-Disposition` naming `name`: an ASCII `filename` and the exact UTF-8 `filename*`. */
export function contentDisposition(kind: "inline" | "attachment", name: string): string {
  return `${kind}; filename="${asciiFallback(name)}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * The headers of a file response: type (normalised again here, so rows stored
 * before types were checked are safe; a charset for text; an active type as
 * plain text, `servedType`), length, validators, `nosniff`, and a disposition
 * from the original name. A passive type ({@link isPassiveType}) is inline
 * unless `download`, and other sites may embed it (an image in a forum post);
 * every other type is an attachment in the sandbox, with no way to ask for it
 * inline, and only this origin may load it (`Cross-Origin-Resource-Policy`).
 */
export function fileHeaders(file: FileRecord, download: boolean): Record<string, string> {
  const stored = storedType(file.type);
  const type = servedType(stored);
  const passive = isPassiveType(stored);
  const shown = file.originalName ?? file.name;
  const headers: Record<string, string> = {
    "Content-Type": type,
    "Accept-Ranges": "bytes",
    "ETag": etagOf(file),
    "Last-Modified": file.createdAt.toUTCString(),
    "Content-Disposition": contentDisposition(
      download || !passive ? "attachment" : "inline",
      shown,
    ),
    "X-Content-Type-Options": "nosniff",
    "Cross-Origin-Resource-Policy": passive ? "cross-origin" : "same-origin",
  };
  if (!passive) headers["Content-Security-Policy"] = SANDBOX_POLICY;
  if (file.password) headers["Cache-Control"] = "private, no-store";
  return headers;
}
