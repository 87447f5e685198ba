/**
 * The upload pipeline (reference §5). Each file part's bytes are counted and
 * capped as they stream, and its record counts it against the quota,
 * atomically refusing to pass it. A small request on a disk stages each
 * part's bytes, records the file complete under the first free name in one
 * commit, then publishes the bytes under that name; any other is named and
 * recorded `pending` first (which takes the name and counts the file),
 * streamed into the datasource under its final name, then completed. A
 * request that fails removes what it stored, records and bytes, so it leaves
 * nothing behind.
 */
import { thumbnailUploads } from "./thumbnails.ts";
import { ApiError } from "../errors.ts";
import { type FileRecord, QuotaError } from "../../db/files.ts";
import type { UserRecord } from "../../db/users.ts";
import {
  type PutOptions,
  SizeLimitError,
  type Staging,
  UnsafeNameError,
} from "../../storage/datasource.ts";
import type { Services } from "../services.ts";
import { GpsRemover } from "./exif.ts";
import { publishStaged } from "./staged_uploads.ts";
import type { UploadOptions } from "./options.ts";
import { openRequest } from "../upload_requests.ts";
import {
  bytesRefused,
  releaseFile,
  type RequestUpload,
  reserveFile,
  settleFile,
} from "./request_uploads.ts";
import { type Compression, compressUpload } from "./compress.ts";
import {
  type Batch,
  createNamed,
  type Draft,
  draftFile,
  fileError,
  openBatch,
  QuotaRefusal,
  quotaRefused,
  removedBytes,
  uploadAnswer,
  type UploadPart,
  type UploadResult,
} from "./batch.ts";

/** What an upload is made of. */
export interface UploadRequest {
  /** The caller; `null` for an anonymous upload into a folder. */
  user: UserRecord | null;
  options: UploadOptions;
  /** The upload request it goes through (the caller then does not count), when it does. */
  via?: RequestUpload | null;
  /** The file parts, in request order; each is read before the next is asked for. */
  parts: AsyncIterable<UploadPart>;
  /** The request's host, for returned URLs. */
  host: string;
  /** The request body's declared length, when it has one: a small request's files are staged. */
  declaredBytes?: number;
  /**
   * Wait for the thumbnails and the queued webhooks before answering: for an
   * operator command that closes the store right after (`import-dir`).
   */
  settle?: boolean;
}

/**
 * The largest upload request whose files are staged, then recorded in one
 * store commit (screenshots, pastes). A larger one records each file pending
 * before its bytes travel, so a full quota refuses it at once and the
 * deletion of its uploader reaches it in flight.
 */
export const STAGED_REQUEST_MAX = 1024 * 1024;

/** The datasource's staging when `req` is small enough to use it ({@link STAGED_REQUEST_MAX}). */
function stagingFor(s: Services, req: UploadRequest): Staging | null {
  const small = req.declaredBytes !== undefined && req.declaredBytes <= STAGED_REQUEST_MAX;
  return small ? s.datasource.staging : null;
}

/** Stores every file of an upload, or none of them. */
export async function upload(s: Services, req: UploadRequest): Promise<UploadResult> {
  const open = req.via ? await openRequest(s, req.via.pass) : null;
  const via = open && { open, uploaderName: req.via!.uploaderName };
  const batch = await openBatch(s, via ? null : req.user, req.options, via);
  const staging = stagingFor(s, req);
  const stored: FileRecord[] = [];
  let refusal: QuotaRefusal | null = null;
  let parts = 0;
  try {
    for await (const part of req.parts) {
      const index = parts++;
      if (refusal) {
        // Only counted, to word the refusal: "this file" or "these files".
        await part.body.cancel();
        continue;
      }
      try {
        stored.push(await storeOne(batch, part, index, staging, req.declaredBytes));
      } catch (error) {
        if (!(error instanceof QuotaRefusal)) throw error;
        refusal = error;
      }
    }
    if (refusal) throw quotaRefused(batch.target, parts);
  } catch (error) {
    await Promise.all(stored.map((file) => discard(batch, file)));
    throw error;
  }
  // Not awaited unless settling: the answer does not wait for the thumbnails (it logs its own failures).
  batch.background.push(thumbnailUploads(s, stored));
  const answer = uploadAnswer(batch, stored, req.host);
  if (req.settle) await Promise.all(batch.background);
  return answer;
}

/**
 * Stores one file part and records it; on failure leaves nothing of it
 * behind. With `staging`, the bytes come first and the record follows in one
 * commit; without, the record is made pending, the bytes written, then it is
 * completed. Through an upload request, the file first reserves its place
 * and the most bytes it can be (the request's body, `declaredBytes`, or the
 * largest file) in the request, which holds it to them, and gives back what
 * it did not use.
 */
async function storeOne(
  b: Batch,
  part: UploadPart,
  index: number,
  staging: Staging | null,
  declaredBytes: number | undefined,
): Promise<FileRecord> {
  const draft = draftFile(b, part.filename, part.contentType, index, 0, b.options.compression);
  const store = () =>
    staging ? storeStaged(b, staging, part, draft) : storeRecorded(b, part, draft);
  if (!b.request) return await store();
  const { id } = b.request.open.request;
  draft.requestBytes = await reserveFile(
    b.s,
    b.request.open,
    Math.min(b.maxFileSize, declaredBytes ?? Infinity),
  );
  let file: FileRecord;
  try {
    file = await store();
  } catch (error) {
    await releaseFile(b.s, id, draft.requestBytes);
    throw error;
  }
  await settleFile(b.s, id, draft.requestBytes, file.size);
  return file;
}

/**
 * Stages the part's bytes, records the file complete under the first free
 * name (its one store commit) and publishes the bytes under that name. A
 * crash between the commit and the publishing leaves the bytes staged under
 * the file's id, which `settleStagedUploads` publishes later.
 */
async function storeStaged(
  b: Batch,
  staging: Staging,
  part: UploadPart,
  draft: Draft,
): Promise<FileRecord> {
  const { s } = b;
  const { id } = draft.file;
  const { size, removedGps } = await writeBytes(
    b,
    draft,
    part.body,
    (body, options) => staging.stage(id, body, options),
  );
  let file: FileRecord;
  try {
    const complete = { ...draft.file, pending: false, size, updatedAt: new Date(s.clock.now()) };
    file = await createNamed(b, { ...draft, file: complete });
  } catch (error) {
    // A refusal recorded nothing. Any other failure may have committed the record with its
    // answer lost (a database stopped mid-commit): the bytes stay staged, and
    // `settleStagedUploads` publishes them under a record it finds or removes them.
    if (refusedBeforeStoring(error)) await discardStaged(s, staging, id);
    throw error;
  }
  try {
    await publishStaged(s, staging, id, file.name);
  } catch (error) {
    await s.store.files.delete(id);
    await discardStaged(s, staging, id);
    throw unsafeNameRefused(error, draft.index);
  }
  if (removedGps) b.removedGps.add(id);
  return file;
}

/** Records the part pending, streams its bytes under its name and completes the record. */
async function storeRecorded(b: Batch, part: UploadPart, draft: Draft): Promise<FileRecord> {
  const { s } = b;
  const file = await createNamed(b, draft);
  /** Removes the bytes, then the pending record; the cleanup task removes what stays. */
  const undo = async () => {
    if (await removedBytes(s, file.name)) await s.store.files.delete(file.id);
  };
  let written: { size: number; removedGps: boolean };
  try {
    written = await writeBytes(
      b,
      draft,
      part.body,
      (body, options) => s.datasource.put(file.name, body, options),
    );
  } catch (error) {
    // The bytes may be stored even when the put failed (its answer lost on the way): the
    // pending record goes only once they are known gone, else the cleanup task removes both.
    await undo();
    throw unsafeNameRefused(error, draft.index);
  }
  let done: FileRecord | null;
  try {
    done = await s.store.files.complete(file.id, written.size, b.limits, new Date(s.clock.now()));
  } catch (error) {
    // A refused completion left the record pending. Any other failure may have committed it
    // with its answer lost (a database stopped mid-commit): removing the bytes then would
    // leave a complete record without them, so both stay; a record still pending is removed
    // with its bytes by the cleanup task.
    if (!(error instanceof QuotaError)) throw error;
    await undo();
    throw new QuotaRefusal();
  }
  if (!done) {
    await removedBytes(s, file.name);
    throw new Error(`pending file ${file.id} vanished during its upload`);
  }
  if (written.removedGps) b.removedGps.add(done.id);
  return done;
}

/** Whether `error` is a refusal decided before anything was stored (a 4xx, a quota). */
function refusedBeforeStoring(error: unknown): boolean {
  return error instanceof ApiError || error instanceof QuotaRefusal;
}

/**
 * Hands `write` the part's body as it is to be stored (GPS data removed,
 * compressed, as asked) and the bytes it may take: the smaller of the file
 * size limit and the room left in the owner's quota. Past that, the file
 * size refusal (413) or, when the quota was the tighter limit, a
 * {@link QuotaRefusal}. Resolves with the byte count and whether GPS data was removed.
 */
async function writeBytes(
  b: Batch,
  draft: Draft,
  read: ReadableStream<Uint8Array>,
  write: (body: ReadableStream<Uint8Array>, options: PutOptions) => Promise<number>,
): Promise<{ size: number; removedGps: boolean }> {
  const { s } = b;
  const { file } = draft;
  const room = b.limits.maxBytes === null
    ? Infinity
    : b.limits.maxBytes - (await s.store.files.usage(b.target.owner.id)).bytes;
  // A request that counts no bytes reserved none (0): only the others hold the file.
  const requested = draft.requestBytes ? draft.requestBytes : Infinity;
  const limit = Math.max(0, Math.min(b.maxFileSize, room, requested));
  const gps = b.settings.filesRemoveGpsMetadata && file.type.startsWith("image/")
    ? new GpsRemover()
    : null;
  const stripped = gps ? read.pipeThrough(gps.stream) : read;
  const { compression } = b.options;
  try {
    const body = draft.compressing && compression
      ? await compressed(b, file, stripped, limit, compression)
      : stripped;
    const size = await write(body, { limit, contentType: file.type });
    return { size, removedGps: gps?.removed ?? false };
  } catch (error) {
    if (!(error instanceof SizeLimitError)) throw error;
    if (limit === b.maxFileSize) {
      throw fileError(
        413,
        draft.index,
        `File size is too large. Maximum file size is ${b.maxFileSize} bytes`,
      );
    }
    if (limit === requested) throw bytesRefused(requested);
    throw new QuotaRefusal();
  }
}

/** `error`, or the 400 of file `index` when it is an unsafe name the datasource refused. */
function unsafeNameRefused(error: unknown, index: number): unknown {
  return error instanceof UnsafeNameError ? fileError(400, index, "invalid file name") : error;
}

/** Removes staged bytes nobody will publish; a failure is logged, and the cleanup task removes them later. */
async function discardStaged(s: Services, staging: Staging, id: string): Promise<void> {
  await staging.discard(id).catch((error) =>
    s.logger.warn("left staged bytes of a failed upload", { id, error: String(error) })
  );
}

/**
 * `body` (at most `limit` bytes) compressed as `compression` asks, noted on
 * `b` for the answer; the bytes as they came when they are not compressed
 * (they do not decode, or are over the caps: `compress.ts`).
 */
async function compressed(
  b: Batch,
  file: FileRecord,
  body: ReadableStream<Uint8Array>,
  limit: number,
  compression: Compression,
): Promise<ReadableStream<Uint8Array>> {
  const out = await compressUpload(body, limit, compression, b.pixels);
  const label = { mimetype: file.type, ext: compression.format };
  b.compressed.set(file.id, out.kept === null ? label : { ...label, failed: true });
  if (out.kept !== null) b.s.logger.info("image not compressed", { id: file.id, reason: out.kept });
  return out.body;
}

/**
 * Removes a stored file of a failed request: record first, so nobody is
 * served half of it; its place in the upload request it came through is given back.
 */
async function discard(b: Batch, file: FileRecord): Promise<void> {
  const { s } = b;
  await s.store.files.delete(file.id);
  await s.datasource.delete(file.name);
  if (b.request) await releaseFile(s, b.request.open.request.id, file.size);
}
