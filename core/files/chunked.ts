/**
 * Chunked uploads (reference §5.8): a file sent as several requests, each one
 * chunk with `Content-Range: bytes <start>-<end>/<total>`. The first chunk
 * (start 0) starts the upload and fixes the part size: every chunk but the
 * last is that long and starts at a multiple of it, so chunk `n` is part `n`
 * of an assembly in the datasource (a real multipart upload on S3). Progress
 * lives in the store (`chunks`), not in memory: an upload survives a restart,
 * continues on any instance, and {@link chunkStatus} tells a client which
 * ranges arrived so it resends only what is missing. Chunks may come in any
 * order and at once; the request whose chunk completes the ranges joins the
 * parts, records the file like an upload (name, quota, webhooks) and answers
 * like one.
 */
import {
  type ChunkedUploadRecord,
  CLAIM_TERM_MS,
  claimHeld,
  receivedRanges,
  type TusState,
} from "../../db/chunks.ts";
import { type FileRecord, QuotaError } from "../../db/files.ts";
import type { UserRecord } from "../../db/users.ts";
import { PartSizeError } from "../../storage/datasource.ts";
import { randomString } from "../clock.ts";
import { ApiError, badRequest, notFound } from "../errors.ts";
import type { Services } from "../services.ts";
import type { QuotaLimits } from "../quotas.ts";
import { parseSize } from "../units/size.ts";
import { GpsRemover } from "./exif.ts";
import { type UploadTarget, uploadTarget } from "./folders.ts";
import { storedType } from "./media_type.ts";
import { PARTIAL_FOLDER } from "./naming.ts";
import type { OptionHeader, UploadOptions } from "./options.ts";
import { type OpenRequest, openRequest } from "../upload_requests.ts";
import { extensionOf } from "./naming.ts";
import {
  releaseFile,
  requestTarget,
  type RequestUpload,
  reserveExactly,
  typeAccepted,
  typeRefused,
} from "./request_uploads.ts";
import {
  type Batch,
  openBatch,
  QuotaRefusal,
  quotaRefused,
  recordPending,
  removedBytes,
  targetLimits,
  uploadAnswer,
  type UploadPart,
  type UploadResult,
} from "./batch.ts";

/** The most parts one upload may have (S3's limit for a multipart upload). */
export const MAX_PARTS = 10_000;

/** One chunk request. */
export interface ChunkRequest {
  /** The caller; `null` for an anonymous upload into a folder. */
  user: UserRecord | null;
  /** The upload request it goes through (the caller then does not count), when it does. */
  via?: RequestUpload | null;
  /** The `Content-Range` header. */
  contentRange: string | undefined;
  /** Reads `p-<name>` (and every other option) header, whichever prefix it came with. */
  header: OptionHeader;
  options: UploadOptions;
  /** The chunk: the request's one file part (more is refused). */
  parts: AsyncIterator<UploadPart>;
  host: string;
}

/** What completing an upload needs of the request that completes it. */
export type FinishRequest = Pick<ChunkRequest, "user" | "via" | "options" | "host">;

/** The answer to a chunk: the file once the last range arrived, else `files: []`. */
export interface ChunkResult extends UploadResult {
  partialSuccess: true;
  /** The identifier later chunks send as `x-service-p-identifier`. */
  partialIdentifier: string;
}

/** What a client learns about an upload in progress. */
export interface ChunkStatus {
  identifier: string;
  size: number;
  partSize: number;
  /** The received byte ranges, inclusive, merged and ascending. */
  received: [number, number][];
  /** Every byte arrived: the upload is being joined. */
  complete: boolean;
}

const invalidIdentifier = () => badRequest("Partial upload identifier is invalid");
const invalidRange = (reason: string) => badRequest(`Invalid partial upload: ${reason}`);

/** Stores one chunk; joins and records the file when it completes the upload. */
export async function uploadChunk(s: Services, req: ChunkRequest): Promise<ChunkResult> {
  const settings = s.settings.all();
  if (!settings.chunksEnabled) throw badRequest("Chunked uploads are disabled");
  if (req.contentRange === undefined) throw badRequest("Partial upload was not detected");
  const range = parseContentRange(req.contentRange);
  const length = range.end - range.start + 1;
  const announced = req.header("p-content-length");
  if (announced !== undefined && Number(announced) !== range.total) {
    throw invalidRange("x-service-p-content-length is not the total of Content-Range");
  }
  const maxTotal = Math.min(
    parseSize(settings.chunksMax) ?? Infinity,
    parseSize(settings.filesMaxFileSize) ?? Infinity,
  );
  if (range.total > maxTotal) {
    throw new ApiError(413, `File size is too large. Maximum file size is ${maxTotal} bytes`);
  }
  const maxChunk = parseSize(settings.chunksSize) ?? Infinity;
  if (length > maxChunk) {
    throw new ApiError(413, `Chunk is too large. Maximum chunk size is ${maxChunk} bytes`);
  }

  const open = req.via ? await openRequest(s, req.via.pass) : null;
  const first = await req.parts.next();
  if (first.done) throw badRequest("No files in multipart/form-data request");
  const chunk = first.value;
  const identifier = req.header("p-identifier")?.trim();
  let upload: ChunkedUploadRecord | undefined;
  try {
    upload = identifier
      ? await continued(s, req, identifier, range, open)
      : await started(s, req, chunk, range, length, open);
    const number = range.start / upload.partSize + 1;
    const tag = await s.datasource.putPart(upload.object, upload.handle, number, chunk.body, length)
      .catch((error) => {
        if (error instanceof PartSizeError) {
          throw invalidRange("the chunk is not as long as its Content-Range");
        }
        throw error;
      });
    if (!(await req.parts.next()).done) {
      throw badRequest("Partial uploads only support one file field");
    }
    const part = { number, start: range.start, end: range.end, tag };
    if (!await s.store.chunks.addPart(upload.id, part, new Date(s.clock.now()))) {
      throw invalidIdentifier();
    }
  } catch (error) {
    await chunk.body.cancel().catch(() => {});
    // An upload this request started has no identifier the client knows: drop it.
    if (upload && !identifier) await dropStarted(s, upload);
    throw error;
  }

  const received = receivedRanges(await s.store.chunks.parts(upload.id));
  const answer = { partialSuccess: true as const, partialIdentifier: upload.id };
  if (!covers(received, upload.size)) return { files: [], ...answer };
  const claimed = await s.store.chunks.claim(upload.id, new Date(s.clock.now()));
  // Another request completes it.
  if (!claimed) return { files: [], ...answer };
  const done = () => completeUpload(s, req, claimed, open);
  return { ...await whileClaimed(s, upload.id, done), ...answer };
}

/**
 * Runs `work` on a claimed upload, renewing the claim every quarter of its
 * term, so that only a claim whose process stopped ever lapses.
 */
export async function whileClaimed<T>(
  s: Services,
  id: string,
  work: () => Promise<T>,
  term = CLAIM_TERM_MS,
): Promise<T> {
  const renew = () =>
    s.store.chunks.renew(id, new Date(s.clock.now())).catch((error) =>
      s.logger.warn("could not renew an upload's claim", { id, error: String(error) })
    );
  const timer = setInterval(renew, term / 4);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** Where a client's upload stands; 404 for an unknown one or another user's. */
export async function chunkStatus(
  s: Services,
  user: UserRecord | null,
  identifier: string,
): Promise<ChunkStatus> {
  const upload = await s.store.chunks.get(identifier);
  if (!upload || upload.tus || (upload.userId !== null && upload.userId !== user?.id)) {
    throw notFound();
  }
  const received = receivedRanges(await s.store.chunks.parts(upload.id));
  return {
    identifier: upload.id,
    size: upload.size,
    partSize: upload.partSize,
    received,
    complete: covers(received, upload.size),
  };
}

/**
 * The caller's unfinished chunked uploads in Zipline's `IncompleteFile` shape:
 * `PENDING` while chunks arrive (or after a joining process stopped),
 * `PROCESSING` while the parts are joined. No file exists before that, so `metadata.file.id` is the upload's identifier.
 */
export async function incompleteUploads(s: Services, user: UserRecord) {
  const uploads = await s.store.chunks.listByUser(user.id);
  const now = new Date(s.clock.now());
  return await Promise.all(uploads.map(async (u) => ({
    id: u.id,
    createdAt: u.createdAt.toISOString(),
    updatedAt: u.updatedAt.toISOString(),
    status: claimHeld(u, now) ? "PROCESSING" as const : "PENDING" as const,
    chunksTotal: Math.ceil(u.size / u.partSize),
    // A tus upload on a disk has no parts: its whole parts are those its offset passed.
    chunksComplete: u.tus
      ? Math.floor(u.tus.offset / u.partSize)
      : (await s.store.chunks.parts(u.id)).length,
    userId: user.id,
    metadata: { file: { filename: u.filename, type: u.type, id: u.id } },
  })));
}

/**
 * Drops the caller's uploads among `ids` (their parts and progress); others'
 * uploads and ones being joined are passed over. Returns how many went.
 */
export async function dropUploads(s: Services, user: UserRecord, ids: string[]): Promise<number> {
  let count = 0;
  for (const id of new Set(ids)) {
    const upload = await s.store.chunks.get(id);
    if (upload?.userId !== user.id) continue;
    // Claiming first keeps a request that is joining the parts from losing them.
    const claimed = await s.store.chunks.claim(id, new Date(s.clock.now()));
    if (!claimed) continue;
    await abandonUpload(s, claimed);
    count++;
  }
  return count;
}

/** Drops every upload in progress of `user` (the user is being deleted); returns how many. */
export async function dropUserUploads(s: Services, user: UserRecord): Promise<number> {
  const uploads = await s.store.chunks.listByUser(user.id);
  return await dropUploads(s, user, uploads.map((u) => u.id));
}

/** Drops an upload whose first chunk failed; the idle sweep retries if this fails too. */
async function dropStarted(s: Services, upload: ChunkedUploadRecord): Promise<void> {
  try {
    const claimed = await s.store.chunks.claim(upload.id, new Date(s.clock.now()));
    if (claimed) await abandonUpload(s, claimed);
  } catch (error) {
    s.logger.warn("could not drop a failed upload", { id: upload.id, error });
  }
}

/**
 * Drops an upload that will not complete: its parts in the datasource (or the
 * object an earlier try joined them into) and its progress.
 */
export async function abandonUpload(s: Services, upload: ChunkedUploadRecord): Promise<void> {
  await s.datasource.abortParts(upload.object, upload.handle);
  await s.datasource.delete(upload.object);
  // A tus upload's bytes past its last whole part.
  if (upload.tus?.tail) await s.datasource.delete(upload.tus.tail.object);
  await s.store.chunks.delete(upload.id);
  // The upload request it came through counted it from its first chunk.
  if (upload.requestId) await releaseFile(s, upload.requestId, upload.size);
}

interface ContentRange {
  start: number;
  end: number;
  total: number;
}

/** `bytes <start>-<end>/<total>`, with `start <= end < total`. */
function parseContentRange(header: string): ContentRange {
  const match = /^bytes (\d{1,16})-(\d{1,16})\/(\d{1,16})$/.exec(header.trim());
  const [start, end, total] = match ? match.slice(1).map(Number) : [];
  if (!match || start > end || end >= total) throw invalidRange("bad Content-Range");
  return { start, end, total };
}

/** Whether `ranges` (merged) hold every byte of a file of `size` bytes. */
function covers(ranges: [number, number][], size: number): boolean {
  return ranges.length === 1 && ranges[0][0] === 0 && ranges[0][1] === size - 1;
}

/**
 * Starts an upload with its first chunk and begins the assembly. The owner's
 * usage counts the declared size and one file from here on (atomically
 * refused past the quota), so uploads in progress cannot together pass it;
 * so does the upload request it goes through (`open`), whose types and
 * largest file it is held to from here.
 */
async function started(
  s: Services,
  req: ChunkRequest,
  chunk: UploadPart,
  range: ContentRange,
  length: number,
  open: OpenRequest | null,
): Promise<ChunkedUploadRecord> {
  if (range.start !== 0) throw invalidIdentifier();
  if (Math.ceil(range.total / length) > MAX_PARTS) {
    throw invalidRange(`more than ${MAX_PARTS} chunks: send larger chunks`);
  }
  const target = open
    ? await requestTarget(s, open)
    : await uploadTarget(s, req.user, req.options.folderId);
  const type = req.header("p-content-type")?.trim() || chunk.contentType;
  const filename = req.header("p-filename")?.trim() || chunk.filename;
  const spec = { filename, type, size: range.total, partSize: length };
  return await beginUpload(s, req.user, open, target, spec).catch((error) => {
    throw error instanceof QuotaError ? quotaRefused(target, 1) : error;
  });
}

/** What {@link beginUpload} starts. */
export interface UploadSpec {
  filename: string;
  /** The MIME type the client announced. */
  type: string;
  /** Total bytes. */
  size: number;
  /** Bytes of every part but the last. */
  partSize: number;
  /** A tus upload's progress (`./tus.ts`). */
  tus?: TusState;
}

/**
 * Begins an upload's assembly in the datasource and records it in the store.
 * The owner's usage counts the declared size and one file from here on
 * (atomically refused past the quota with `QuotaError`), so uploads in
 * progress cannot together pass it; so does the upload request it goes
 * through (`open`), whose types and largest file it is held to from here.
 */
export async function beginUpload(
  s: Services,
  user: UserRecord | null,
  open: OpenRequest | null,
  target: UploadTarget,
  spec: UploadSpec,
): Promise<ChunkedUploadRecord> {
  const { filename, type, size, partSize } = spec;
  const id = randomString(s.random, 24);
  const object = `${PARTIAL_FOLDER}/${id}`;
  if (open && !typeAccepted(open.request.allowedTypes, storedType(type), extensionOf(filename))) {
    throw typeRefused(open, storedType(type), 0);
  }
  if (open) await reserveExactly(s, open, size);
  // S3 keeps the type with the object: never the client's claim as sent.
  const contentType = storedType(type);
  let handle;
  try {
    handle = await s.datasource.beginParts(object, { partSize, contentType });
  } catch (error) {
    if (open) await releaseFile(s, open.request.id, size);
    throw error;
  }
  const now = new Date(s.clock.now());
  const upload: ChunkedUploadRecord = {
    id,
    userId: open ? null : user?.id ?? null,
    folderId: target.folderId,
    ...(open ? { requestId: open.request.id } : {}),
    filename,
    type,
    size,
    partSize,
    object,
    handle,
    // An anonymous upload into an open folder counts in its owner's usage too (`targetLimits`).
    reservedBy: target.owner.id,
    completing: false,
    createdAt: now,
    updatedAt: now,
    ...(spec.tus ? { tus: spec.tus } : {}),
  };
  try {
    await s.store.chunks.create(upload, targetLimits(target));
  } catch (error) {
    await s.datasource.abortParts(object, handle).catch(() => {});
    if (open) await releaseFile(s, open.request.id, size);
    throw error;
  }
  return upload;
}

/** The upload a later chunk belongs to, checked against the caller and the range. */
async function continued(
  s: Services,
  req: ChunkRequest,
  identifier: string,
  range: ContentRange,
  open: OpenRequest | null,
): Promise<ChunkedUploadRecord> {
  const upload = await s.store.chunks.get(identifier);
  const now = new Date(s.clock.now());
  const userId = open ? null : req.user?.id ?? null;
  if (
    !upload || upload.tus || claimHeld(upload, now) || upload.userId !== userId ||
    (upload.requestId ?? null) !== (open?.request.id ?? null)
  ) {
    throw invalidIdentifier();
  }
  const length = range.end - range.start + 1;
  const last = range.end === upload.size - 1;
  if (
    range.total !== upload.size || range.start % upload.partSize !== 0 ||
    (last ? length > upload.partSize : length !== upload.partSize)
  ) {
    throw invalidRange(
      `chunks of this upload are ${upload.partSize} bytes (the last may be shorter), ` +
        `of ${upload.size} in all`,
    );
  }
  return upload;
}

/**
 * Joins a claimed upload's parts into its file: records the file pending by
 * this request's options (name; counted with its declared size, which takes
 * the place of the upload's reservation), joins the parts (unless an earlier
 * try did), moves the joined object into place and completes the record
 * (bytes counted as measured). A refusal before the move (a taken name, a
 * disabled extension, the datasource unreachable or full while joining or
 * moving) releases the claim so the last chunk can be sent again, which
 * finishes the upload without joining twice; so does a store failure before
 * the upload's progress is deleted (the joined object is moved back). After
 * that, a refused completion drops the upload, and its pending record with
 * the bytes once they are known gone; a completion that failed otherwise may
 * have landed, and keeps the bytes with the record.
 */
export async function completeUpload(
  s: Services,
  req: FinishRequest,
  upload: ChunkedUploadRecord,
  open: OpenRequest | null,
): Promise<UploadResult> {
  let batch, file;
  try {
    const via = open && { open, uploaderName: req.via!.uploaderName };
    const options = { ...req.options, folderId: upload.folderId };
    batch = await openBatch(s, via ? null : req.user, options, via);
    const limits = upload.reservedBy === batch.target.owner.id
      ? besideReservation(batch.limits, upload)
      : batch.limits;
    file = await recordPending({ ...batch, limits }, upload.filename, upload.type, 0, upload.size);
  } catch (error) {
    await s.store.chunks.release(upload.id);
    throw error instanceof QuotaRefusal && batch ? quotaRefused(batch.target, 1) : error;
  }
  let size: number;
  let moving = false;
  try {
    size = await joined(s, upload);
    moving = true;
    if (batch.settings.filesRemoveGpsMetadata && file.type.startsWith("image/")) {
      size = await copyWithoutGps(batch, upload.object, file);
    } else {
      await s.datasource.rename(upload.object, file.name);
    }
  } catch (error) {
    // The datasource could not join or move the bytes now (unreachable, full): the parts,
    // or the object they were joined into, are still there, so the upload stays resumable
    // and sending the last chunk again finishes it. Nothing may stay under the file's name.
    if (!moving || await removedBytes(s, file.name)) await s.store.files.delete(file.id);
    await s.store.chunks.release(upload.id);
    throw error;
  }
  /** Drops the upload, then the bytes and with them the pending record (as for an upload). */
  const drop = async () => {
    await abandonUpload(s, upload).catch(() => {});
    if (await removedBytes(s, file.name)) await s.store.files.delete(file.id);
  };
  try {
    await s.store.chunks.unreserve(upload.id);
    await s.store.chunks.delete(upload.id);
  } catch (error) {
    // The store failed while the upload still exists: its joined bytes go back where a
    // retry finds them, and the claim is released (or lapses, the store being down).
    if (size === upload.size && await movedBack(s, file.name, upload.object)) {
      await s.store.files.delete(file.id).catch(() => {});
      await s.store.chunks.release(upload.id).catch(() => {});
    } else await drop();
    throw error;
  }
  let done: FileRecord | null;
  try {
    done = await s.store.files.complete(file.id, size, batch.limits, new Date(s.clock.now()));
  } catch (error) {
    // A refused completion left the record pending. Any other failure may have committed it
    // with its answer lost: the bytes stay with it (a record still pending goes with them by
    // the cleanup task), as in `storeRecorded`.
    if (!(error instanceof QuotaError)) throw error;
    await drop();
    throw quotaRefused(batch.target, 1);
  }
  if (!done) {
    await drop();
    throw new Error(`pending file ${file.id} vanished during its upload`);
  }
  return uploadAnswer(batch, [done], req.host);
}

/** Renames `from` back to `to`; `false` when the datasource could not. */
async function movedBack(s: Services, from: string, to: string): Promise<boolean> {
  try {
    await s.datasource.rename(from, to);
    return true;
  } catch (error) {
    s.logger.warn("could not keep a joined upload resumable", { from, error: String(error) });
    return false;
  }
}

/**
 * The size of the upload's parts joined into its object: joined now, or by an
 * earlier try whose move failed (the object is whole: both datasources write
 * an object at once, so one of the upload's full size is the joined one).
 */
async function joined(s: Services, upload: ChunkedUploadRecord): Promise<number> {
  if (await s.datasource.size(upload.object) === upload.size) return upload.size;
  const parts = await s.store.chunks.parts(upload.id);
  return await s.datasource.completeParts(upload.object, upload.handle, parts);
}

/**
 * `limits` raised by the upload's own reservation, which its owner's usage
 * still counts while the file that takes its place is recorded.
 */
function besideReservation(limits: QuotaLimits, upload: ChunkedUploadRecord): QuotaLimits {
  return {
    ...limits,
    maxBytes: limits.maxBytes === null ? null : limits.maxBytes + upload.size,
    maxFiles: limits.maxFiles === null ? null : limits.maxFiles + 1,
  };
}

/**
 * Copies the joined object to the file's name through the GPS remover (Exif
 * data may sit in any chunk: a PNG's `eXIf` may follow the image data), then
 * drops the joined object. The one case where the bytes are written twice.
 */
async function copyWithoutGps(batch: Batch, object: string, file: FileRecord): Promise<number> {
  const { s } = batch;
  const joined = await s.datasource.get(object);
  if (!joined) throw new Error(`joined object ${object} is missing`);
  const gps = new GpsRemover();
  const size = await s.datasource.put(file.name, joined.pipeThrough(gps.stream), {
    contentType: file.type,
  });
  await s.datasource.delete(object);
  if (gps.removed) batch.removedGps.add(file.id);
  return size;
}
