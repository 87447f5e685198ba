/**
 * tus 1.0.0 (https://tus.io/protocols/resumable-upload): the core protocol
 * and the creation, creation-with-upload, termination, expiration and
 * checksum extensions. A tus upload is a chunked upload (`./chunked.ts`,
 * `db/chunks.ts`) with a {@link TusState}: it reserves its length in the
 * owner's quota at creation, its bytes go into the datasource's assembly: on
 * a disk written in place into the one file that becomes the upload (moved,
 * never copied, at the end), on S3 as whole parts of a multipart upload with
 * the bytes past the last whole part staged as a tail object between
 * requests; a PATCH's body is read in bounded chunks, never whole. Its progress lives in
 * the store (so it resumes after a restart and on any instance), a PATCH
 * holds the upload's claim while it writes (so two never interleave), the
 * last byte completes it through the chunked uploads' own completion
 * (naming, quota, webhooks, thumbnails, compression rules), and the idle
 * sweep (`../tasks/cleanup.ts`) drops it whole once it expires.
 */
import { createHash, type Hash } from "node:crypto";
import {
  type ChunkedUploadRecord,
  type ChunkPart,
  TUS_CLAIM_TERM_MS,
  type TusState,
} from "../../db/chunks.ts";
import { QuotaError } from "../../db/files.ts";
import type { UserRecord } from "../../db/users.ts";
import {
  type AssemblyWriter,
  byobReader,
  concatenated,
  exactly,
  type InPlaceAssembly,
  reusedChunks,
  SizeLimitError,
} from "../../storage/datasource.ts";
import { randomString } from "../clock.ts";
import { ApiError, badRequest, notFound } from "../errors.ts";
import { hashPassword } from "../passwords.ts";
import type { Services } from "../services.ts";
import { ABANDONED_AFTER_MS } from "../tasks/cleanup.ts";
import { type OpenRequest, openRequest } from "../upload_requests.ts";
import { parseSize } from "../units/size.ts";
import type { UploadedFile } from "./batch.ts";
import { quotaRefused } from "./batch.ts";
import {
  abandonUpload,
  beginUpload,
  completeUpload,
  type FinishRequest,
  MAX_PARTS,
  whileClaimed,
} from "./chunked.ts";
import { uploadTarget } from "./folders.ts";
import {
  type OptionHeader,
  optionLimit,
  parseUploadOptions,
  type UploadOptions,
} from "./options.ts";
import { requestTarget, type RequestUpload, requestUploadOptions } from "./request_uploads.ts";

/** The protocol version spoken (`Tus-Resumable`, `Tus-Version`). */
export const TUS_VERSION = "1.0.0";
/** The extensions supported (`Tus-Extension`). */
export const TUS_EXTENSIONS = [
  "creation",
  "creation-with-upload",
  "termination",
  "expiration",
  "checksum",
];
/** The checksum algorithms supported (`Tus-Checksum-Algorithm`), by their tus names. */
export const TUS_CHECKSUMS = ["sha1", "sha256"];
/** The most characters `Upload-Metadata` may have. */
export const TUS_METADATA_MAX = 8192;
/**
 * The buffer a PATCH's body is read into on a disk starts at this size and
 * grows to four times it: each request's buffer is garbage once it ends
 * (64 KiB to 1 MiB left 2 MiB a request uncollected, measured).
 */
const BUFFER = 64 * 1024;
/** S3's smallest part but the last: parts of an upload on S3 are at least this long. */
const S3_MIN_PART = 5 * 1024 * 1024;

/**
 * The `Upload-Metadata` keys that carry an upload option, named as the
 * option headers' short names (`x-service-<name>`). `filename` and
 * `filetype` are the tus conventions for the file's own name and type.
 */
export const TUS_OPTION_KEYS = [
  "folder",
  "password",
  "deletes-at",
  "max-views",
  "format",
  "original-name",
  "private",
  "file-extension",
  "domain",
  "image-compression-percent",
  "image-compression-type",
] as const;

/** Who calls: a user (token, API key, session), or anyone with an upload request's code. */
export interface TusCaller {
  /** The authenticated user; `null` through an upload request. */
  user: UserRecord | null;
  /** The upload request the upload goes through, when it does. */
  via: RequestUpload | null;
  /** The host the request was sent to, for the file's link. */
  host: string;
}

/** What a client learns about an upload (`HEAD`, and after each write). */
export interface TusUploadView {
  id: string;
  offset: number;
  length: number;
  /** `Upload-Metadata` as sent at creation; empty for none. */
  metadata: string;
  /** When the upload is dropped unless more bytes arrive (`Upload-Expires`). */
  expiresAt: Date;
}

/** The answer to a write: where the upload stands, and the file once it is complete. */
export interface TusWritten {
  upload: TusUploadView;
  /** The recorded file, on the request that wrote the last byte. */
  file?: UploadedFile;
}

/** One PATCH (or the body of a creation-with-upload). */
export interface TusPatch {
  /** `Upload-Offset` as sent. */
  offset: string | undefined;
  /** `Upload-Checksum` as sent. */
  checksum: string | undefined;
  /** `Content-Length` as sent; a body without one is staged first to learn its length. */
  contentLength: string | undefined;
  body: ReadableStream<Uint8Array> | null;
}

/** One creation request (`POST`). */
export interface TusCreation {
  /** `Upload-Length` as sent. */
  length: string | undefined;
  /** `Upload-Defer-Length`, which is not supported. */
  deferLength: string | undefined;
  /** `Upload-Metadata` as sent. */
  metadata: string | undefined;
  /** The request's option headers (`x-service-<name>`), read where the metadata is silent. */
  header: OptionHeader;
  /** The upload's first bytes (creation-with-upload), when sent. */
  patch: TusPatch | null;
}

/** The largest upload accepted (`Tus-Max-Size`): as for chunked uploads. */
export function tusMaxSize(s: Services): number {
  const settings = s.settings.all();
  return Math.min(
    parseSize(settings.chunksMax) ?? Number.MAX_SAFE_INTEGER,
    parseSize(settings.filesMaxFileSize) ?? Number.MAX_SAFE_INTEGER,
  );
}

/**
 * Parses `Upload-Metadata`: comma-separated `key base64value` pairs (the
 * value may be left out); keys unique, without spaces or commas. A 400 for
 * anything else.
 */
export function parseTusMetadata(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (header === undefined || header.trim() === "") return out;
  if (header.length > TUS_METADATA_MAX) {
    throw badRequest(`Upload-Metadata is longer than ${TUS_METADATA_MAX} characters`);
  }
  for (const pair of header.split(",")) {
    const match = /^\s*([^\s,]+)(?: ([A-Za-z0-9+/]*={0,2}))?\s*$/.exec(pair);
    if (!match) throw badRequest("Upload-Metadata is not `key base64value` pairs");
    const [, key, encoded = ""] = match;
    if (out.has(key)) throw badRequest(`Upload-Metadata names ${key} twice`);
    out.set(key, decodeBase64Text(key, encoded));
  }
  return out;
}

function decodeBase64Text(key: string, encoded: string): string {
  try {
    const bytes = Uint8Array.from(atob(encoded), (ch) => ch.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw badRequest(`Upload-Metadata ${key} is not base64-encoded UTF-8`);
  }
}

/** A positive whole number of bytes from a header, or a 400 naming it. */
function byteCount(name: string, value: string | undefined, min: number): number {
  const n = value !== undefined && /^\d{1,16}$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min) throw badRequest(`${name} must be a whole number`);
  return n;
}

/**
 * Creates an upload (`POST`): checks its length against the largest size,
 * its metadata and options (parsed as the multipart upload's option headers
 * are, so a bad one is a 400 now rather than when it completes), reserves
 * its length and one file in the owner's quota (413 past it) and, with
 * creation-with-upload, writes the bytes sent along.
 */
export async function createTusUpload(
  s: Services,
  caller: TusCaller,
  req: TusCreation,
): Promise<TusWritten> {
  if (req.deferLength !== undefined) {
    throw badRequest("Upload-Defer-Length is not supported: send Upload-Length");
  }
  if (req.length === undefined) throw badRequest("Upload-Length is required");
  const length = byteCount("Upload-Length", req.length, 1);
  const max = tusMaxSize(s);
  if (length > max) {
    throw new ApiError(413, `File size is too large. Maximum file size is ${max} bytes`);
  }
  const metadata = parseTusMetadata(req.metadata);
  const options: Record<string, string> = {};
  for (const key of TUS_OPTION_KEYS) {
    const value = metadata.get(key) ?? req.header(key);
    if (value === undefined) continue;
    if (value.length > optionLimit(key)) {
      throw badRequest(`bad options[${key}]: longer than ${optionLimit(key)} characters`);
    }
    options[key] = value;
  }
  // A name that replaces the format's comes as its header only: `filename` is the file's own.
  const rename = req.header("filename");
  if (rename !== undefined) options.filename = rename;
  const open = caller.via ? await openRequest(s, caller.via.pass) : null;
  const parsed = uploadOptions(s, caller, options);
  const target = open
    ? await requestTarget(s, open)
    : await uploadTarget(s, caller.user, parsed.folderId);
  // The password is kept hashed, and left out of the metadata answered back: no record holds it.
  if (options.password !== undefined) {
    options[PASSWORD_HASH] = await hashPassword(options.password, s.random);
    delete options.password;
  }
  const kept = withoutPassword(req.metadata);
  const tus: TusState = { offset: 0, tail: null, metadata: kept, options };
  const spec = {
    filename: metadata.get("filename")?.trim() || "upload",
    type: metadata.get("filetype")?.trim() || "application/octet-stream",
    size: length,
    partSize: partSizeFor(s, length),
    tus,
  };
  const upload = await beginUpload(s, caller.user, open, target, spec).catch((error) => {
    if (!(error instanceof QuotaError)) throw error;
    throw new ApiError(413, quotaRefused(target, 1).message);
  });
  if (!req.patch) return { upload: viewOf(upload, tus) };
  return await writeTusUpload(s, caller, upload.id, { ...req.patch, offset: "0" }, open);
}

/**
 * The part size of an upload of `length` bytes: the chunked uploads' chunk
 * size, at least S3's smallest part on S3, and large enough for
 * {@link MAX_PARTS} parts to hold it.
 */
function partSizeFor(s: Services, length: number): number {
  const chunk = parseSize(s.settings.get("chunksSize")) ?? S3_MIN_PART;
  const floor = s.datasource.kind === "s3" ? S3_MIN_PART : 1;
  return Math.max(chunk, floor, Math.ceil(length / MAX_PARTS));
}

/** The option map's key of the upload's password, hashed at creation (never an option header). */
const PASSWORD_HASH = "password-hash";

/** `Upload-Metadata` as sent, without its `password` pair. */
function withoutPassword(metadata: string | undefined): string {
  return (metadata ?? "").split(",").map((pair) => pair.trim())
    .filter((pair) => pair !== "" && pair.split(" ")[0] !== "password").join(",");
}

/** The options of an upload, from its option map, or the upload request's. */
function uploadOptions(
  s: Services,
  caller: TusCaller,
  options: Record<string, string>,
): UploadOptions {
  const settings = s.settings.all();
  if (caller.via) return requestUploadOptions(settings, s.clock.now(), s.random, false);
  const header: OptionHeader = (name) => name === PASSWORD_HASH ? undefined : options[name];
  const parsed = parseUploadOptions(header, settings, s.clock.now(), s.random, caller.host);
  const hash = options[PASSWORD_HASH];
  return hash === undefined ? parsed : { ...parsed, password: null, passwordHash: hash };
}

/** Where the caller's upload `id` stands (`HEAD`); 404 for an unknown one or another's. */
export async function tusUploadInfo(
  s: Services,
  caller: TusCaller,
  id: string,
): Promise<TusUploadView> {
  const upload = await ownUpload(s, caller, id);
  return viewOf(upload, upload.tus!);
}

/**
 * Terminates the caller's upload (`DELETE`): its bytes, parts, record and
 * reservation go. 423 while a request writes to it.
 */
export async function terminateTusUpload(s: Services, caller: TusCaller, id: string) {
  await ownUpload(s, caller, id);
  const claimed = await s.store.chunks.claim(id, new Date(s.clock.now()));
  if (!claimed) throw busy();
  await abandonUpload(s, claimed);
}

/** Appends a PATCH's bytes to the caller's upload; completes it with the last byte. */
export async function patchTusUpload(
  s: Services,
  caller: TusCaller,
  id: string,
  patch: TusPatch,
): Promise<TusWritten> {
  const open = caller.via ? await openRequest(s, caller.via.pass) : null;
  return await writeTusUpload(s, caller, id, patch, open);
}

const busy = () => new ApiError(423, "Another request is writing to this upload");

/**
 * The caller's tus upload `id`: one the caller's user started, or one
 * started through the same upload request; else 404, as if there were none
 * (a token or a request code is never proof of whose upload it is).
 */
async function ownUpload(
  s: Services,
  caller: TusCaller,
  id: string,
  open?: OpenRequest | null,
): Promise<ChunkedUploadRecord> {
  const upload = await s.store.chunks.get(id);
  if (!upload?.tus) throw notFound();
  if (caller.via) {
    const request = open ?? await openRequest(s, caller.via.pass);
    if (upload.userId !== null || upload.requestId !== request.request.id) throw notFound();
  } else if (!caller.user || upload.userId !== caller.user.id) {
    throw notFound();
  }
  return upload;
}

function viewOf(upload: ChunkedUploadRecord, tus: TusState): TusUploadView {
  return {
    id: upload.id,
    offset: tus.offset,
    length: upload.size,
    metadata: tus.metadata,
    expiresAt: new Date(upload.updatedAt.getTime() + ABANDONED_AFTER_MS),
  };
}

/** A parsed `Upload-Checksum`: the algorithm and the expected digest. */
interface Checksum {
  hash: Hash;
  expected: string;
}

function parseChecksum(header: string | undefined): Checksum | null {
  if (header === undefined) return null;
  const match = /^\s*(\S+) ([A-Za-z0-9+/]+={0,2})\s*$/.exec(header);
  if (!match) throw badRequest("Upload-Checksum is not `<algorithm> <base64 digest>`");
  const [, algorithm, expected] = match;
  if (!TUS_CHECKSUMS.includes(algorithm)) {
    throw badRequest(`Upload-Checksum algorithm ${algorithm} is not supported`);
  }
  return { hash: createHash(algorithm), expected };
}

/**
 * Writes a PATCH under the upload's claim (423 when another request holds
 * it): checks the offset (409 unless it is the upload's), writes the bytes
 * and saves the progress. Without a checksum each whole part is kept as it
 * is written, so a broken connection loses at most a part; with one, the
 * progress moves only once the digest matches (460 otherwise, and nothing
 * of the request is kept). The request whose bytes reach the length
 * completes the upload into a file.
 */
async function writeTusUpload(
  s: Services,
  caller: TusCaller,
  id: string,
  patch: TusPatch,
  open: OpenRequest | null,
): Promise<TusWritten> {
  const offset = byteCount("Upload-Offset", patch.offset, 0);
  const checksum = parseChecksum(patch.checksum);
  const upload = await ownUpload(s, caller, id, open);
  if (upload.tus!.offset !== offset) throw offsetMismatch(upload.tus!.offset);
  const declared = patch.contentLength === undefined
    ? null
    : byteCount("Content-Length", patch.contentLength, 0);
  if (declared !== null && offset + declared > upload.size) {
    throw new ApiError(413, "The body goes past the upload's Upload-Length");
  }
  const claimed = await s.store.chunks.claim(id, new Date(s.clock.now()));
  if (!claimed?.tus) throw busy();
  let completing = false;
  try {
    return await whileClaimed(s, id, async () => {
      if (claimed.tus!.offset !== offset) throw offsetMismatch(claimed.tus!.offset);
      const inPlace = s.datasource.inPlace;
      const tus = inPlace
        ? await writeInPlace(s, inPlace, claimed, patch.body, declared, checksum)
        : await writeBytes(s, claimed, patch.body, declared, checksum);
      const now = new Date(s.clock.now());
      const view = viewOf({ ...claimed, updatedAt: now }, tus);
      if (tus.offset < claimed.size) return { upload: view };
      // On a disk the file is whole already: moved under the upload's object, never copied.
      await inPlace?.finish(claimed.object, claimed.handle, claimed.size);
      completing = true;
      const finish: FinishRequest = {
        user: caller.user,
        via: caller.via,
        options: uploadOptions(s, caller, tus.options),
        host: caller.host,
      };
      const result = await completeUpload(s, finish, { ...claimed, tus }, open);
      return { upload: view, file: result.files[0] };
    }, TUS_CLAIM_TERM_MS);
  } finally {
    // The completion releases the claim itself when it fails.
    if (!completing) await s.store.chunks.release(id).catch(() => {});
  }
}

const offsetMismatch = (offset: number) =>
  new ApiError(409, `Upload-Offset does not match the upload's offset of ${offset}`, undefined, {
    "Upload-Offset": String(offset),
  });

/**
 * Streams `body` into an in-place assembly (a disk) from the upload's offset,
 * through one buffer used again for every chunk. Without a checksum the
 * progress is saved at each part boundary the bytes pass (synced first), so a
 * broken connection or a killed process loses less than a part; with one,
 * only once the digest matched (the bytes past the offset are dropped by the
 * next write otherwise). Returns the new progress, saved.
 */
async function writeInPlace(
  s: Services,
  assembly: InPlaceAssembly,
  upload: ChunkedUploadRecord,
  body: ReadableStream<Uint8Array> | null,
  declared: number | null,
  checksum: Checksum | null,
): Promise<TusState> {
  const start = upload.tus!;
  // Without a Content-Length, at most the bytes the upload still lacks.
  const end = start.offset + (declared ?? upload.size - start.offset);
  const { partSize } = upload;
  let tus = start;
  let pos = start.offset;
  let synced = pos;
  // Opened at the first byte: an empty body (a completion tried again) touches nothing.
  let writer: AssemblyWriter | null = null;
  // An upload begun before tus wrote in place on a disk kept its last bytes in a tail object.
  let oldTail = start.tail;
  if (oldTail) {
    writer = await adoptTail(s, assembly, upload);
    synced = start.offset - oldTail.size;
  }
  const keep = async () => {
    if (pos !== synced) await writer!.sync();
    synced = pos;
    tus = { ...tus, offset: pos, tail: null };
    await save(s, upload.id, null, tus);
    if (oldTail) await dropObjects(s, [oldTail.object]);
    oldTail = null;
  };
  try {
    for await (const chunk of reusedChunks(body ?? ReadableStream.from([]), BUFFER, BUFFER * 4)) {
      if (pos + chunk.byteLength > end) {
        throw declared === null
          ? new ApiError(413, "The body goes past the upload's Upload-Length")
          : badRequest("The body is longer than its Content-Length");
      }
      checksum?.hash.update(chunk);
      writer ??= await assembly.open(upload.object, upload.handle, start.offset);
      for (let at = 0; at < chunk.byteLength;) {
        const boundary = (Math.floor(pos / partSize) + 1) * partSize;
        const piece = chunk.subarray(at, at + boundary - pos);
        await writer.write(piece);
        at += piece.byteLength;
        pos += piece.byteLength;
        if (!checksum && pos === boundary && pos < end) await keep();
      }
    }
    if (declared !== null && pos < end) {
      throw badRequest("The body is shorter than its Content-Length");
    }
    if (checksum && checksum.hash.digest("base64") !== checksum.expected) {
      throw new ApiError(460, "Checksum mismatch: the bytes were not kept");
    }
    await keep();
    return tus;
  } finally {
    writer?.close();
  }
}

/**
 * Opens the in-place assembly of an upload an older Ferry began on a disk,
 * whose whole parts were part files (the datasource joins them when it opens
 * the assembly) and whose bytes past them wait in a tail object: the tail's
 * bytes are written after the parts', and the upload goes on from its offset
 * (the tail object goes once that progress is saved).
 */
async function adoptTail(
  s: Services,
  assembly: InPlaceAssembly,
  upload: ChunkedUploadRecord,
): Promise<AssemblyWriter> {
  const { offset, tail } = upload.tus!;
  const writer = await assembly.open(upload.object, upload.handle, offset - tail!.size);
  try {
    const bytes = await s.datasource.get(tail!.object);
    if (!bytes) throw new Error(`tus tail ${tail!.object} is missing`);
    for await (const chunk of bytes) await writer.write(chunk);
    return writer;
  } catch (error) {
    writer.close();
    throw error;
  }
}

/**
 * Streams `body` into the upload from its offset: each part it completes
 * (with the staged tail in front of the first) goes to the datasource's
 * assembly, the rest into a new tail object. Returns the new progress, saved.
 */
async function writeBytes(
  s: Services,
  upload: ChunkedUploadRecord,
  body: ReadableStream<Uint8Array> | null,
  declared: number | null,
  checksum: Checksum | null,
): Promise<TusState> {
  const start = upload.tus!;
  const spool = declared === null && body ? await spooled(s, upload, body) : null;
  try {
    const length = spool?.size ?? declared ?? 0;
    const source = spool ? await s.datasource.get(spool.object) : body;
    const reader = new Slicer(source ?? ReadableStream.from([]), (bytes) => {
      checksum?.hash.update(bytes);
    });
    let tus = start;
    let tail = start.tail;
    const consumed: string[] = [];
    const end = start.offset + length;
    let pos = start.offset;
    let partStart = pos - (tail?.size ?? 0);
    const { partSize, size } = upload;
    while (Math.min(partStart + partSize, size) <= end && pos < size) {
      const partEnd = Math.min(partStart + partSize, size);
      const number = partStart / partSize + 1;
      const bytes = withTail(s, tail, reader.take(partEnd - pos));
      const tag = await s.datasource.putPart(
        upload.object,
        upload.handle,
        number,
        bytes,
        partEnd - partStart,
      );
      const part: ChunkPart = { number, start: partStart, end: partEnd - 1, tag };
      if (tail) consumed.push(tail.object);
      tail = null;
      pos = partStart = partEnd;
      // Without a checksum the part counts now; with one, once the digest matched.
      if (!checksum) tus = { ...tus, offset: pos, tail: null };
      await save(s, upload.id, part, tus);
      if (!checksum) await dropObjects(s, consumed.splice(0));
    }
    let fresh: string | null = null;
    if (pos < end) {
      fresh = `${upload.object}.tail-${randomString(s.random, 12)}`;
      const sizeAfter = (tail?.size ?? 0) + (end - pos);
      await s.datasource.put(fresh, exactly(withTail(s, tail, reader.take(end - pos)), sizeAfter));
      if (tail) consumed.push(tail.object);
      tail = { object: fresh, size: sizeAfter };
      pos = end;
    }
    if (!await reader.ended()) {
      if (fresh) await s.datasource.delete(fresh);
      throw badRequest("The body is longer than its Content-Length");
    }
    if (checksum && checksum.hash.digest("base64") !== checksum.expected) {
      if (fresh) await s.datasource.delete(fresh);
      throw new ApiError(460, "Checksum mismatch: the bytes were not kept");
    }
    tus = { ...tus, offset: pos, tail };
    await save(s, upload.id, null, tus);
    await dropObjects(s, consumed);
    return tus;
  } finally {
    if (spool) await s.datasource.delete(spool.object).catch(() => {});
  }
}

/** Saves progress; a vanished upload (terminated meanwhile) ends the request with 404. */
async function save(s: Services, id: string, part: ChunkPart | null, tus: TusState) {
  if (!await s.store.chunks.saveTus(id, part, tus, new Date(s.clock.now()))) throw notFound();
}

async function dropObjects(s: Services, names: string[]) {
  for (const name of names) {
    await s.datasource.delete(name).catch((error) =>
      s.logger.warn("could not remove a tus upload's old tail", { name, error: String(error) })
    );
  }
}

/** `bytes` after the staged tail's, when there is one. */
function withTail(
  s: Services,
  tail: TusState["tail"],
  bytes: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  if (!tail) return bytes;
  return concatenated(2, async (i) => {
    if (i === 1) return bytes;
    const staged = await s.datasource.get(tail.object);
    if (!staged) throw new Error(`tus tail ${tail.object} is missing`);
    return staged;
  });
}

/**
 * Stages a body sent without `Content-Length` (at most the bytes the upload
 * still lacks), to learn its length before any part is cut from it.
 */
async function spooled(
  s: Services,
  upload: ChunkedUploadRecord,
  body: ReadableStream<Uint8Array>,
): Promise<{ object: string; size: number }> {
  const object = `${upload.object}.in-${randomString(s.random, 12)}`;
  const limit = upload.size - upload.tus!.offset;
  try {
    return { object, size: await s.datasource.put(object, body, { limit }) };
  } catch (error) {
    if (error instanceof SizeLimitError) {
      throw new ApiError(413, "The body goes past the upload's Upload-Length");
    }
    throw error;
  }
}

/**
 * Reads one byte stream as consecutive slices of given lengths, each its own
 * stream, passing every byte read to `seen` once. When the body is a byte
 * stream (a request's), each slice is one too, read straight into the
 * buffers its own reader offers (S3's part bodies: buffers used again,
 * `storage/pooled_body.ts`), so no chunk of the body is allocated on the way.
 */
class Slicer {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array> | null;
  readonly #byob: ReadableStreamBYOBReader | null;
  #left: Uint8Array | null = null;

  constructor(body: ReadableStream<Uint8Array>, private readonly seen: (b: Uint8Array) => void) {
    this.#byob = byobReader(body);
    this.#reader = this.#byob ? null : body.getReader();
  }

  /** The next `n` bytes (fewer when the body ends first). */
  take(n: number): ReadableStream<Uint8Array> {
    if (this.#byob) return this.#takeBytes(this.#byob, n);
    let remaining = n;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (remaining === 0) return controller.close();
        const chunk = await this.#next();
        if (!chunk) return controller.close();
        let piece = chunk;
        if (chunk.byteLength > remaining) {
          this.#left = chunk.subarray(remaining);
          piece = chunk.subarray(0, remaining);
        }
        remaining -= piece.byteLength;
        controller.enqueue(piece);
        if (remaining === 0) controller.close();
      },
      cancel: async (reason) => {
        await this.#reader!.cancel(reason);
      },
    }, { highWaterMark: 0 });
  }

  /** {@link take} of a byte stream: each read goes into the reader's own view, at most `n` bytes in all. */
  #takeBytes(byob: ReadableStreamBYOBReader, n: number): ReadableStream<Uint8Array> {
    let remaining = n;
    return new ReadableStream({
      type: "bytes",
      // A default reader's reads get a buffer of this size each (a BYOB reader brings its own).
      autoAllocateChunkSize: BUFFER,
      pull: async (controller) => {
        const request = controller.byobRequest!;
        const view = request.view as Uint8Array<ArrayBuffer>;
        if (remaining === 0) {
          controller.close();
          return request.respond(0);
        }
        const into = new Uint8Array(
          view.buffer,
          view.byteOffset,
          Math.min(view.byteLength, remaining),
        );
        const read = await byob.read(into);
        // The read took the view's buffer over: it goes back to the request as its answer.
        if (read.done) {
          controller.close();
          if (read.value) request.respondWithNewView(read.value);
          return;
        }
        this.seen(read.value);
        remaining -= read.value.byteLength;
        request.respondWithNewView(read.value);
        if (remaining === 0) controller.close();
      },
      cancel: async (reason) => {
        await byob.cancel(reason);
      },
    });
  }

  /** Whether the body has no byte left. */
  async ended(): Promise<boolean> {
    if (this.#byob) {
      const read = await this.#byob.read(new Uint8Array(1));
      if (read.done) return true;
      await this.#byob.cancel();
      return false;
    }
    const chunk = await this.#next();
    if (!chunk) return true;
    await this.#reader!.cancel();
    return false;
  }

  async #next(): Promise<Uint8Array | null> {
    if (this.#left) {
      const left = this.#left;
      this.#left = null;
      return left;
    }
    while (true) {
      const { done, value } = await this.#reader!.read();
      if (done) return null;
      if (value.byteLength === 0) continue;
      this.seen(value);
      return value;
    }
  }
}
