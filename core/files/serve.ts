/**
 * Serving a file publicly (`/raw/:name` and `<filesRoute>/:name`): expiry and
 * max views enforced at serve time, password access, view counting, then the
 * bytes (whole, one range, or nothing for HEAD and 304) with their headers.
 * The owner's read (`/api/user/files/:id/raw`) and the view page share the
 * same checks, without counting a view.
 *
 * The public routes find the file through the store's one-second name cache
 * (`db/cached_files.ts`: this process's writes clear it, so a file it deleted,
 * renamed or protected is never served from it). A file with `maxViews` is
 * read again from the store, and its views are counted atomically there, so
 * the cache never lets it be viewed past its limit. Headers are built once
 * per record, and a small file is read in one call rather than streamed.
 */
import type { FileRecord, ViewResult } from "../../db/files.ts";
import type { ByteRange } from "../../storage/datasource.ts";
import { forbidden, notFound } from "../errors.ts";
import type { Attempt } from "../password_attempts.ts";
import type { Services } from "../services.ts";
import { cookieOpens, passwordOpens } from "./passwords.ts";
import {
  type Conditions,
  etagOf,
  fileHeaders,
  notModified,
  parseRange,
  rangeStillValid,
} from "./http.ts";
import { parseThumbnailName, thumbnailRecord } from "./thumbnails.ts";
import { removeBytes } from "./bulk_delete.ts";
import { firstViewIn } from "./views.ts";
import { fileByLinkName } from "./extensionless.ts";
import { refusePrivate, type Viewer } from "./private.ts";
import { dropVisits, recordVisit, type VisitSignals } from "../visits/record.ts";

/** How a request proves it may read a password-protected file, and who sends it. */
export interface AccessProof extends Attempt {
  /** The `file_pw_<id>` cookie, read once the file is known. */
  cookie: (fileId: string) => string | undefined;
  /** `?pw=`: the password itself (older Zipline links). */
  pw?: string;
  /** Who visits, for the owner's visit analytics; read only when a visit is recorded. */
  visit?: () => VisitSignals;
}

/** What a request asks of a file's bytes. */
export interface BytesRequest extends Conditions, AccessProof {
  /** HEAD answers the headers only and counts no view. */
  head: boolean;
  range?: string;
  /** `?download` asked for an attachment. */
  download: boolean;
  /** Who asks, at a public path: a private file is served to its owner only (`./private.ts`). */
  viewer?: Viewer;
}

/** A public request for a file. */
export interface ServeRequest extends BytesRequest {
  name: string;
}

/** What to answer. */
export interface ServeAnswer {
  status: 200 | 206 | 304 | 416;
  headers: Record<string, string>;
  /** A small file's bytes in one piece; a larger one's as a stream. */
  body: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer> | null;
}

/** How long a viewer's repeated requests count as one view. */
export const VIEW_WINDOW_MS = 5000;

/** Files up to this size are read whole (one read, no stream) when served. */
export const SMALL_FILE_BYTES = 64 * 1024;

/** What serving a live file comes to: its bytes, or that its password is still to be given. */
type Served = { kind: "bytes"; answer: ServeAnswer } | { kind: "password" };

/** The 403 of a protected file asked for with no proof at all (no live cookie, no `?pw=`). */
const passwordProtected = () => forbidden("Password protected");

/** Serves `req`; throws 404 for a missing, expired or used-up file, 403 without its password. */
export async function serveFile(s: Services, req: ServeRequest): Promise<ServeAnswer> {
  const served = await serveLive(s, await publicFile(s, req), req);
  if (served.kind === "password") throw passwordProtected();
  return served.answer;
}

/**
 * The live file a public link names, looked up through the store's
 * one-second name cache; a file with `maxViews` is read again, so that the
 * view count its checks see is the store's. 404 as {@link liveFile}, and for
 * a private file to anyone but its owner.
 */
async function publicFile(s: Services, req: ServeRequest): Promise<FileRecord> {
  const found = await fileByLinkName(s, req.name, { cached: true });
  const file = found === null || found.maxViews === null
    ? await liveFile(s, found)
    : await liveFile(s, await s.store.files.get(found.id));
  await refusePrivate(s, file, req.viewer);
  return file;
}

/** What the files route answers: the bytes, or the file's page, `/view/<name>`. */
export type FilesRouteAnswer =
  | { kind: "bytes"; answer: ServeAnswer }
  | { kind: "page"; name: string };

/**
 * `<filesRoute>/:name`, as Zipline's files route (reference §6.2): the file's
 * page for a `text/*` file (unless its owner's `view.disableTextFiles`), for
 * any file of an owner whose `view.enabled`, and for a protected file asked
 * for without its access cookie or `?pw=`; otherwise its bytes, as `/raw`
 * serves them. 404 for a missing, pending or expired file.
 */
export async function serveOnFilesRoute(s: Services, req: ServeRequest): Promise<FilesRouteAnswer> {
  const file = await publicFile(s, req);
  if (await opensOnPage(s, file)) return { kind: "page", name: file.name };
  const served = await serveLive(s, file, req);
  return served.kind === "bytes" ? served : { kind: "page", name: file.name };
}

/** Whether the files route shows `file` on its page, by its type and its owner's view settings. */
async function opensOnPage(s: Services, file: FileRecord): Promise<boolean> {
  const owner = file.userId ? await s.store.users.get(file.userId) : null;
  if (file.type.startsWith("text/") && owner?.view.disableTextFiles !== true) return true;
  return owner?.view.enabled === true;
}

/** Serves the live `file` for `req`: password, view counting, then the bytes. */
async function serveLive(s: Services, file: FileRecord, req: BytesRequest): Promise<Served> {
  if (file.password && !await proofOpens(s, file, req)) return { kind: "password" };

  const range = parseRange(req.range, file.size);
  const opensAtStart = range.kind !== "partial" || range.start === 0;
  if (req.head || !opensAtStart) {
    if (exhausted(file)) throw notFound();
  } else await countView(s, file, req);
  return { kind: "bytes", answer: await sendBytes(s, file, req) };
}

/**
 * Counts a view of `file` by the viewer of `req`, once per viewer per
 * {@link VIEW_WINDOW_MS}; 404 when the file is gone or has had its views.
 */
async function countView(
  s: Services,
  file: FileRecord,
  req: Attempt & Pick<AccessProof, "visit">,
): Promise<void> {
  if (!firstViewIn(s, `${file.id}\0${req.ip}\0${req.ua}`, s.clock.now(), VIEW_WINDOW_MS)) return;
  const counted = await s.store.files.addView(file.id);
  if (counted === "missing") throw notFound();
  if (counted === "exhausted") {
    if (s.settings.get("featuresDeleteOnMaxViews")) await removeFile(s, file);
    throw notFound();
  }
  recordVisit(s, fileTarget(file), req.visit);
}

/** `file` as what a visit is of. */
const fileTarget = (file: FileRecord) => ({
  kind: "file" as const,
  id: file.id,
  ownerId: file.userId,
});

/**
 * Serves `file`'s bytes through a share link (`../shared.ts`), which decides
 * instead of the file's own password, view limit and privacy: `count` counts
 * a view of the link, once per `viewer` per {@link VIEW_WINDOW_MS}, when the
 * bytes are read from their start; 404 once the link has had its views.
 */
export async function serveThroughLink(
  s: Services,
  file: FileRecord,
  req: BytesRequest,
  viewer: string,
  count: () => Promise<ViewResult>,
): Promise<ServeAnswer> {
  const range = parseRange(req.range, file.size);
  const opensAtStart = range.kind !== "partial" || range.start === 0;
  if (!req.head && opensAtStart && firstViewIn(s, viewer, s.clock.now(), VIEW_WINDOW_MS)) {
    if (await count() !== "counted") throw notFound();
    recordVisit(s, fileTarget(file), req.visit);
  }
  return await sendBytes(s, file, req);
}

/** A plain GET of a file: no range, no query; validators as sent. */
export type PlainRequest =
  & Attempt
  & Pick<Conditions, "ifNoneMatch" | "ifModifiedSince">
  & Pick<AccessProof, "visit">;

/**
 * The answer to a plain GET of `/raw/<name>` from the store's name cache
 * alone, when the cache holds the file's record (its answer settled under a
 * second ago) and nothing about the file needs more: complete, unexpired, no
 * password, no max views, small enough to be read in one call. The view is
 * counted and the bytes read as {@link serveFile} would; `null` when it
 * would take more (a miss, a password, a private file, one in a folder not
 * cached or private, …): ask {@link serveFile}. Lets the server answer the
 * busiest public request without its router.
 */
export function serveCachedSmall(
  s: Services,
  name: string,
  req: PlainRequest,
): Promise<ServeAnswer> | null {
  const file = s.store.files.resolveCached(name);
  if (!file || file.pending || file.password || file.maxViews !== null) return null;
  if (file.private) return null;
  if (file.folderId !== null) {
    const folder = s.store.folders.peekCached(file.folderId);
    if (!folder || folder.private) return null;
  }
  if (file.size > SMALL_FILE_BYTES) return null;
  if (file.deletesAt && file.deletesAt.getTime() <= s.clock.now()) return null;
  return countView(s, file, req).then(() =>
    sendBytes(s, file, { ...req, head: false, download: false, cookie: () => undefined })
  );
}

/**
 * Serves a file to its owner or a manager of the owner (the caller checked
 * that): the same headers and ranges as {@link serveFile}, no view counted; a
 * password is still needed, and a used-up file is gone (removed when
 * `featuresDeleteOnMaxViews`). With `thumbnail` (the name of the file's
 * thumbnail), that thumbnail is sent instead, on the same conditions.
 */
export async function serveOwnedFile(
  s: Services,
  file: FileRecord,
  req: BytesRequest,
  thumbnail?: string,
): Promise<ServeAnswer> {
  await liveFile(s, file);
  if (exhausted(file)) {
    if (s.settings.get("featuresDeleteOnMaxViews")) await removeFile(s, file);
    throw notFound();
  }
  if (file.password && !await proofOpens(s, file, req)) throw passwordProtected();
  if (thumbnail === undefined) return await sendBytes(s, file, req);
  if (file.thumbnail !== thumbnail) throw notFound();
  return await sendThumbnail(s, file, req);
}

/**
 * `/raw/.thumbnail.<fileId>.<ext>`: the thumbnail `name` of a live file
 * without a password, with the headers and ranges of a file; 404 otherwise.
 */
export async function serveThumbnail(
  s: Services,
  name: string,
  req: BytesRequest,
): Promise<ServeAnswer> {
  const parsed = parseThumbnailName(name);
  const file = await liveFile(s, parsed && await s.store.files.get(parsed.fileId));
  if (file.password || exhausted(file) || file.thumbnail !== name) throw notFound();
  await refusePrivate(s, file, req.viewer);
  return await sendThumbnail(s, file, req);
}

/** The bytes of `file`'s thumbnail; 404 when they are gone. */
async function sendThumbnail(s: Services, file: FileRecord, req: BytesRequest) {
  const thumbnail = await thumbnailRecord(s, file);
  if (thumbnail === null) throw notFound();
  return await sendBytes(s, thumbnail, req);
}

/** What the view page shows: the file, and whether its password is still to be given. */
export interface FileOnView {
  file: FileRecord;
  locked: boolean;
}

/**
 * The file the page `/view/<name>` shows, without counting a view (its
 * bytes are fetched from `/raw`, which counts); 404 for a missing, expired or
 * used-up file, and for a private file to anyone but its owner signed in
 * (`viewer`). `locked` until the access cookie of its password is sent.
 */
export async function fileOnView(
  s: Services,
  name: string,
  proof: Omit<AccessProof, "pw"> & { viewer?: Viewer },
): Promise<FileOnView> {
  const file = await liveFile(s, await fileByLinkName(s, name));
  if (exhausted(file)) throw notFound();
  await refusePrivate(s, file, proof.viewer);
  const value = file.password ? proof.cookie(file.id) : undefined;
  const locked = file.password !== null &&
    (value === undefined || !await cookieOpens(s, file, value, proof));
  // The page is the visit; the requests it makes for the bytes are not counted again.
  if (!locked) recordVisit(s, fileTarget(file), proof.visit);
  return { file, locked };
}

/** `file` when it may be served; 404 for a missing, pending or expired one (expired ones are removed). */
async function liveFile(s: Services, file: FileRecord | null): Promise<FileRecord> {
  if (!file || file.pending) throw notFound();
  if (file.deletesAt && file.deletesAt.getTime() <= s.clock.now()) {
    await removeFile(s, file);
    throw notFound();
  }
  return file;
}

/** Whether the file has had all the views it may have. */
function exhausted(file: FileRecord): boolean {
  return file.maxViews !== null && file.views >= file.maxViews;
}

/** The headers {@link fileHeaders} gives each record, built once per record and kind. */
const builtHeaders = new WeakMap<FileRecord, Record<string, string>[]>();

/** A copy of `file`'s response headers (built on its first request; cached records are reused). */
function headersOf(file: FileRecord, download: boolean): Record<string, string> {
  let built = builtHeaders.get(file);
  if (!built) builtHeaders.set(file, built = []);
  const kind = download ? 1 : 0;
  return { ...(built[kind] ??= fileHeaders(file, download)) };
}

/** The answer for `file`'s bytes: whole, one range, or nothing for HEAD, 304 and 416. */
async function sendBytes(s: Services, file: FileRecord, req: BytesRequest): Promise<ServeAnswer> {
  const headers = headersOf(file, req.download);
  if (notModified(req, etagOf(file), file.createdAt)) {
    return { status: 304, headers: omitBodyHeaders(headers), body: null };
  }
  const range = parseRange(req.range, file.size);
  const ranged = range.kind !== "full" && rangeStillValid(req, etagOf(file), file.createdAt);
  if (ranged && range.kind === "unsatisfiable") {
    headers["Content-Range"] = `bytes */${file.size}`;
    headers["Content-Length"] = "0";
    return { status: 416, headers, body: null };
  }
  const span: ByteRange | undefined = ranged && range.kind === "partial"
    ? { start: range.start, end: range.end }
    : undefined;
  const length = span ? span.end - span.start + 1 : file.size;
  headers["Content-Length"] = String(length);
  if (span) headers["Content-Range"] = `bytes ${span.start}-${span.end}/${file.size}`;
  const status = span ? 206 : 200;
  if (req.head) return { status, headers, body: null };
  const body = await open(s, file, span);
  return { status, headers, body };
}

/**
 * The file's bytes (or the `span` of them): read whole up to
 * {@link SMALL_FILE_BYTES}, else streamed. A record whose bytes are gone is a
 * 404 (and a warning).
 */
async function open(s: Services, file: FileRecord, span?: ByteRange) {
  // An empty file has no byte to range over: its body is empty.
  if (file.size === 0) return new Uint8Array(0);
  const body = file.size <= SMALL_FILE_BYTES
    ? await s.datasource.read(file.name)
    : await s.datasource.get(file.name, span);
  if (!body) {
    s.logger.warn("file record without bytes", { id: file.id, name: file.name });
    throw notFound();
  }
  if (!(body instanceof Uint8Array) || !span) return body;
  return body.subarray(span.start, span.end + 1);
}

/** A 304 keeps the validators and drops what describes a body. */
function omitBodyHeaders(headers: Record<string, string>): Record<string, string> {
  const { "Content-Type": _t, "Content-Disposition": _d, ...rest } = headers;
  return rest;
}

/**
 * Whether the request opens the protected `file`: `true` with a live access
 * cookie or the right `?pw=`, `false` with neither; 403 for a wrong `?pw=`,
 * 429 past the limit of password attempts (`./passwords.ts`).
 */
async function proofOpens(s: Services, file: FileRecord, req: AccessProof): Promise<boolean> {
  const cookie = req.cookie(file.id);
  if (cookie !== undefined && await cookieOpens(s, file, cookie, req)) return true;
  if (req.pw === undefined) return false;
  if (await passwordOpens(s, file, req.pw, req)) return true;
  throw forbidden("Incorrect password");
}

/** Deletes a file's record and its share links, then its bytes. */
export async function removeFile(s: Services, file: FileRecord): Promise<void> {
  await s.store.files.delete(file.id);
  await dropVisits(s, { kind: "file", id: file.id, ownerId: file.userId });
  await s.store.shares.deleteByTarget({ kind: "file", id: file.id });
  await removeBytes(s, file);
}
