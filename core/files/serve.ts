/**
 * Serving a file publicly (`/raw/:name` and `<filesRoute>/:name`): expiry and
 * max views enforced at serve time, password access, view counting, then the
 * bytes (whole, one range, or nothing for HEAD and 304) with their headers.
 * The owner's read (`/api/user/files/:id/raw`) and the view page share the
 * same checks, without counting a view.
 */
import type { FileRecord } from "../../db/files.ts";
import type { ByteRange } from "../../storage/datasource.ts";
import { ApiError, forbidden, notFound } from "../errors.ts";
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
import { parseThumbnailName, removeThumbnail, thumbnailRecord } from "./thumbnails.ts";
import { firstViewIn } from "./views.ts";
import { fileByLinkName } from "./extensionless.ts";

/** How a request proves it may read a password-protected file, and who sends it. */
export interface AccessProof extends Attempt {
  /** The `file_pw_<id>` cookie, read once the file is known. */
  cookie: (fileId: string) => string | undefined;
  /** `?pw=`: the password itself (older Zipline links). */
  pw?: string;
}

/** What a request asks of a file's bytes. */
export interface BytesRequest extends Conditions, AccessProof {
  /** HEAD answers the headers only and counts no view. */
  head: boolean;
  range?: string;
  /** `?download` asked for an attachment. */
  download: boolean;
}

/** A public request for a file. */
export interface ServeRequest extends BytesRequest {
  name: string;
}

/** What to answer. */
export interface ServeAnswer {
  status: 200 | 206 | 304 | 416;
  headers: Record<string, string>;
  body: ReadableStream<Uint8Array> | null;
}

/** How long a viewer's repeated requests count as one view. */
export const VIEW_WINDOW_MS = 5000;

/** Serves `req`; throws 404 for a missing, expired or used-up file, 403 without its password. */
export async function serveFile(s: Services, req: ServeRequest): Promise<ServeAnswer> {
  return await serveLive(s, await liveFile(s, await fileByLinkName(s, req.name)), req);
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
  const file = await liveFile(s, await fileByLinkName(s, req.name));
  if (await opensOnPage(s, file)) return { kind: "page", name: file.name };
  try {
    return { kind: "bytes", answer: await serveLive(s, file, req) };
  } catch (error) {
    if (!(error instanceof PasswordRequired)) throw error;
    return { kind: "page", name: file.name };
  }
}

/** Whether the files route shows `file` on its page, by its type and its owner's view settings. */
async function opensOnPage(s: Services, file: FileRecord): Promise<boolean> {
  const owner = file.userId ? await s.store.getUser(file.userId) : null;
  if (file.type.startsWith("text/") && owner?.view.disableTextFiles !== true) return true;
  return owner?.view.enabled === true;
}

/** Serves the live `file` for `req`: password, view counting, then the bytes. */
async function serveLive(s: Services, file: FileRecord, req: BytesRequest): Promise<ServeAnswer> {
  if (file.password) await checkPassword(s, file, req);

  const range = parseRange(req.range, file.size);
  const opensAtStart = range.kind !== "partial" || range.start === 0;
  if (req.head || !opensAtStart) {
    if (exhausted(file)) throw notFound();
  } else if (firstViewIn(s, `${file.id}\0${req.ip}\0${req.ua}`, s.clock.now(), VIEW_WINDOW_MS)) {
    const counted = await s.store.files.addView(file.id);
    if (counted === "missing") throw notFound();
    if (counted === "exhausted") {
      if (s.settings.get("featuresDeleteOnMaxViews")) await removeFile(s, file);
      throw notFound();
    }
  }
  return await sendBytes(s, file, req);
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
  if (file.password) await checkPassword(s, file, req);
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
 * used-up file. `locked` until the access cookie of its password is sent.
 */
export async function fileOnView(
  s: Services,
  name: string,
  proof: Omit<AccessProof, "pw">,
): Promise<FileOnView> {
  const file = await liveFile(s, await fileByLinkName(s, name));
  if (exhausted(file)) throw notFound();
  if (!file.password) return { file, locked: false };
  const value = proof.cookie(file.id);
  return { file, locked: value === undefined || !await cookieOpens(s, file, value, proof) };
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

/** The answer for `file`'s bytes: whole, one range, or nothing for HEAD, 304 and 416. */
async function sendBytes(s: Services, file: FileRecord, req: BytesRequest): Promise<ServeAnswer> {
  const headers = fileHeaders(file, req.download);
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

/** The file's bytes; a record whose bytes are gone is a 404 (and a warning). */
async function open(s: Services, file: FileRecord, span?: ByteRange) {
  // An empty file has no byte to range over: its body is empty.
  if (file.size === 0) return new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  const body = await s.datasource.get(file.name, span);
  if (!body) {
    s.logger.warn("file record without bytes", { id: file.id, name: file.name });
    throw notFound();
  }
  return body;
}

/** A 304 keeps the validators and drops what describes a body. */
function omitBodyHeaders(headers: Record<string, string>): Record<string, string> {
  const { "Content-Type": _t, "Content-Disposition": _d, ...rest } = headers;
  return rest;
}

/** The 403 of a protected file asked for with no password at all (no cookie, no `?pw=`). */
export class PasswordRequired extends ApiError {
  constructor() {
    super(403, "Password protected");
  }
}

/**
 * 403 unless the request carries a live access cookie or the right `?pw=`;
 * 429 past the limit of password attempts (`./passwords.ts`).
 */
async function checkPassword(s: Services, file: FileRecord, req: AccessProof): Promise<void> {
  const cookie = req.cookie(file.id);
  if (cookie !== undefined && await cookieOpens(s, file, cookie, req)) return;
  if (req.pw !== undefined) {
    if (await passwordOpens(s, file, req.pw, req)) return;
    throw forbidden("Incorrect password");
  }
  throw new PasswordRequired();
}

/** Deletes a file's record, then its bytes. */
export async function removeFile(s: Services, file: FileRecord): Promise<void> {
  await s.store.files.delete(file.id);
  await removeThumbnail(s, file);
  try {
    await s.datasource.delete(file.name);
  } catch (error) {
    s.logger.error("could not delete file bytes", { name: file.name, error });
  }
}
