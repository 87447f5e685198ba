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
import { type FileRecord, QuotaError } from "../../db/files.ts";
import { UniqueError } from "../../db/errors.ts";
import {
  ByteCounter,
  type PutOptions,
  SizeLimitError,
  type Staging,
  UnsafeNameError,
} from "../../storage/datasource.ts";
import { newId } from "../clock.ts";
import { ApiError, badRequest } from "../errors.ts";
import { hashPassword } from "../passwords.ts";
import { quotaLabel, type QuotaLimits, quotaLimits } from "../quotas.ts";
import type { Services } from "../services.ts";
import type { Settings } from "../settings/registry.ts";
import { parseSize } from "../units/size.ts";
import { linkOrigin, routeLink } from "../links.ts";
import { linkedName } from "./extensionless.ts";
import { queueUpload } from "../webhooks/outbox.ts";
import { anonymousUploader } from "../webhooks/payloads.ts";
import { type UploadTarget, uploadTarget } from "./folders.ts";
import { GpsRemover } from "./exif.ts";
import { essenceOf, storedType } from "./media_type.ts";
import { mimeOf } from "./mime.ts";
import { publishStaged } from "./staged_uploads.ts";
import {
  extensionDisabled,
  extensionOf,
  MAX_NAME_BYTES,
  nameCandidates,
  reservedName,
  sanitizeFilename,
} from "./naming.ts";
import type { UploadOptions } from "./options.ts";
import { compressedAs, compressImage, type Compression } from "./compress.ts";
import type { UserRecord } from "../../db/store.ts";

/** One file part of the request, its body not yet read. */
export interface UploadPart {
  filename: string;
  /** The part's `Content-Type`; `""` when it had none. */
  contentType: string;
  body: ReadableStream<Uint8Array>;
}

/** What an upload is made of. */
export interface UploadRequest {
  /** The caller; `null` for an anonymous upload into a folder. */
  user: UserRecord | null;
  options: UploadOptions;
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

/** One stored file, as the upload answers it. */
export interface UploadedFile {
  id: string;
  name: string;
  type: string;
  url: string;
  /** GPS data was removed from the image (`filesRemoveGpsMetadata`). */
  removedGps?: true;
  /** The image was compressed into this type and extension (`failed` when it did not decode). */
  compressed?: CompressedLabel;
}

/** What the upload answers about one compressed file. */
export interface CompressedLabel {
  mimetype: string;
  ext: string;
  failed?: true;
}

/** The upload's answer. */
export interface UploadResult {
  files: UploadedFile[];
  /** `"never"` or the ISO time, when an expiry applies. */
  deletesAt?: string;
}

/** Everything one request's files share. */
export interface Batch {
  s: Services;
  settings: Settings;
  options: UploadOptions;
  target: UploadTarget;
  limits: QuotaLimits;
  passwordHash: string | null;
  maxFileSize: number;
  /** Ids of the stored files GPS data was removed from. */
  removedGps: Set<string>;
  /** What each stored file that was to be compressed became, by id. */
  compressed: Map<string, CompressedLabel>;
  /** Work left running after the answer (thumbnails, webhooks being queued); each logs its own failure. */
  background: Promise<void>[];
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

/** A quota refusal, worded once the number of files in the request is known ({@link quotaRefused}). */
export class QuotaRefusal extends Error {}

/** The limits an upload to `target` is held to. */
export function targetLimits(target: UploadTarget): QuotaLimits {
  // Anonymous uploads are the folder owner's invitation, not its own use (as in Zipline).
  return quotaLimits(target.anonymous ? null : target.owner.quota);
}

/** What the files of one upload by `user` with `options` share; hashes the password. */
export async function openBatch(
  s: Services,
  user: UserRecord | null,
  options: UploadOptions,
): Promise<Batch> {
  const settings = s.settings.all();
  const target = await uploadTarget(s, user, options.folderId);
  return {
    s,
    settings,
    options,
    target,
    limits: targetLimits(target),
    passwordHash: options.password === null ? null : await hashPassword(options.password, s.random),
    maxFileSize: parseSize(settings.filesMaxFileSize) ?? Infinity,
    removedGps: new Set(),
    compressed: new Map(),
    background: [],
  };
}

/** The refusal of an upload of `files` files to `target` that would pass its quota. */
export function quotaRefused(target: UploadTarget, files: number): ApiError {
  return files > 1
    ? new ApiError(413, "Uploading these files would exceed your quota")
    : new ApiError(
      403,
      `Uploading this file would exceed your quota of ${quotaLabel(target.owner.quota)}`,
    );
}

/** Stores every file of an upload, or none of them. */
export async function upload(s: Services, req: UploadRequest): Promise<UploadResult> {
  const batch = await openBatch(s, req.user, req.options);
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
        stored.push(await storeOne(batch, part, index, staging));
      } catch (error) {
        if (!(error instanceof QuotaRefusal)) throw error;
        refusal = error;
      }
    }
    if (refusal) throw quotaRefused(batch.target, parts);
  } catch (error) {
    await Promise.all(stored.map((file) => discard(s, file)));
    throw error;
  }
  // Not awaited unless settling: the answer does not wait for the thumbnails (it logs its own failures).
  batch.background.push(thumbnailUploads(s, stored));
  const answer = uploadAnswer(batch, stored, req.host);
  if (req.settle) await Promise.all(batch.background);
  return answer;
}

/** Announces the stored files (webhooks) and shapes the upload's answer. */
export function uploadAnswer(b: Batch, stored: FileRecord[], host: string): UploadResult {
  const { s, settings, options, target } = b;
  const base = linkOrigin(s, options.domain ?? undefined, host);
  for (const file of stored) {
    b.background.push(announce(s, target.uploader, file, routeLink(base, "/raw", file.name)));
  }
  return {
    files: stored.map((f) => ({
      id: f.id,
      name: f.name,
      type: f.type,
      url: routeLink(base, settings.filesRoute, linkedName(settings, f.name)),
      ...(b.removedGps.has(f.id) ? { removedGps: true as const } : {}),
      ...(b.compressed.has(f.id) ? { compressed: b.compressed.get(f.id) } : {}),
    })),
    ...(options.deletesAtLabel ? { deletesAt: options.deletesAtLabel } : {}),
  };
}

/**
 * Stores one file part and records it; on failure leaves nothing of it
 * behind. With `staging`, the bytes come first and the record follows in one
 * commit; without, the record is made pending, the bytes written, then it is
 * completed.
 */
async function storeOne(
  b: Batch,
  part: UploadPart,
  index: number,
  staging: Staging | null,
): Promise<FileRecord> {
  const draft = draftFile(b, part.filename, part.contentType, index, 0, b.options.compression);
  return staging ? await storeStaged(b, staging, part, draft) : await storeRecorded(b, part, draft);
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
    await discardStaged(s, staging, id);
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
  try {
    const { size, removedGps } = await writeBytes(
      b,
      draft,
      part.body,
      (body, options) => s.datasource.put(file.name, body, options),
    );
    try {
      const done = await s.store.files.complete(file.id, size, b.limits, new Date(s.clock.now()));
      if (!done) throw new Error(`pending file ${file.id} vanished during its upload`);
      if (removedGps) b.removedGps.add(done.id);
      return done;
    } catch (error) {
      throw error instanceof QuotaError ? new QuotaRefusal() : error;
    }
  } catch (error) {
    // The bytes may be stored even when the put failed (its answer lost on the way): the
    // pending record goes only once they are known gone, else the cleanup task removes both.
    if (await removedBytes(s, file.name)) await s.store.files.delete(file.id);
    throw unsafeNameRefused(error, draft.index);
  }
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
  const limit = Math.max(0, Math.min(b.maxFileSize, room));
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
    throw new QuotaRefusal();
  }
}

/** `error`, or the 400 of file `index` when it is an unsafe name the datasource refused. */
function unsafeNameRefused(error: unknown, index: number): unknown {
  return error instanceof UnsafeNameError ? fileError(400, index, "invalid file name") : error;
}

/** An error about the request's file `index`. */
function fileError(status: 400 | 413, index: number, message: string): ApiError {
  return new ApiError(status, `file[${index}]: ${message}`);
}

/** Removes staged bytes nobody will publish; a failure is logged, and the cleanup task removes them later. */
async function discardStaged(s: Services, staging: Staging, id: string): Promise<void> {
  await staging.discard(id).catch((error) =>
    s.logger.warn("left staged bytes of a failed upload", { id, error: String(error) })
  );
}

/**
 * Deletes a failed upload's object; `false` (logged) when the datasource
 * could not be asked, so its pending record must stay for the cleanup task.
 */
export async function removedBytes(s: Services, name: string): Promise<boolean> {
  try {
    await s.datasource.delete(name);
    return true;
  } catch (error) {
    s.logger.warn("kept the pending record of a failed upload", { name, error: String(error) });
    return false;
  }
}

/**
 * `body` (at most `limit` bytes) compressed as `compression` asks, noted on
 * `b` for the answer; the bytes as they came when they do not decode.
 */
async function compressed(
  b: Batch,
  file: FileRecord,
  body: ReadableStream<Uint8Array>,
  limit: number,
  compression: Compression,
): Promise<ReadableStream<Uint8Array>> {
  const bytes = await new Response(body.pipeThrough(new ByteCounter(limit).stream)).bytes();
  const out = await compressImage(bytes, compression);
  const label = { mimetype: file.type, ext: compression.format };
  b.compressed.set(file.id, out ? label : { ...label, failed: true });
  return ReadableStream.from([out ?? bytes]);
}

/**
 * Names the file by `b`'s options and records it pending, counted as `size`
 * bytes until it completes; errors name it `file[index]`.
 */
export async function recordPending(
  b: Batch,
  filename: string,
  contentType: string,
  index: number,
  size: number,
): Promise<FileRecord> {
  return await createNamed(b, draftFile(b, filename, contentType, index, size, null));
}

/** A file about to be recorded: its pending record, still unnamed, and how to name it. */
interface Draft {
  file: FileRecord;
  extension: string;
  /** The sanitised original name, when the name or the record keeps it. */
  originalName: string | null;
  /** The part's place in the request, for errors (`file[index]`). */
  index: number;
  /** It is an image that will be compressed as the options ask, and is typed as what it will be. */
  compressing: boolean;
}

/**
 * The pending record of a part by `b`'s options, checked against the
 * disabled extensions and types, not yet named.
 */
function draftFile(
  b: Batch,
  filename: string,
  contentType: string,
  index: number,
  size: number,
  compression: Compression | null,
): Draft {
  const { s, settings, options } = b;
  const extension = options.extension ?? extensionOf(filename);
  if (extensionDisabled(extension, settings.filesDisabledExtensions)) {
    throw fileError(400, index, `File extension ${extension} is not allowed`);
  }
  const wantsOriginal = options.keepOriginalName ||
    (options.format === "name" && options.filename === null);
  const originalName = wantsOriginal ? sanitizeFilename(filename) : null;
  if (wantsOriginal && originalName === null) {
    throw fileError(400, index, "Invalid characters in original filename");
  }
  const given = fileType(settings, contentType, extension, index);
  const compressed = compressedAs(compression, given);
  const now = new Date(s.clock.now());
  return {
    file: {
      id: newId(s.random, now.getTime()),
      name: "",
      originalName: options.keepOriginalName ? originalName : null,
      size,
      type: compressed?.type ?? given,
      views: 0,
      maxViews: options.maxViews,
      favorite: false,
      password: b.passwordHash,
      anonymous: b.target.anonymous,
      userId: b.target.owner.id,
      folderId: b.target.folderId,
      deletesAt: options.deletesAt,
      pending: true,
      createdAt: now,
      updatedAt: now,
    },
    extension: compressed?.extension ?? extension,
    originalName,
    index,
    compressing: compressed !== null,
  };
}

/**
 * The stored type: the client's, normalised (`application/octet-stream` when
 * it does not parse), or the extension's; replaced when disabled.
 */
function fileType(settings: Settings, given: string, extension: string, index: number): string {
  const type = settings.filesAssumeMimetypes || !given ? mimeOf(extension) : storedType(given);
  const essence = essenceOf(type);
  if (!settings.filesDisabledTypes.some((t) => t.toLowerCase() === essence)) return type;
  if (settings.filesDisabledTypesDefault) return storedType(settings.filesDisabledTypesDefault);
  throw badRequest(`file[${index}]: File type ${type} is not allowed`);
}

/** Records `draft` under the first free name its format offers. */
async function createNamed(b: Batch, draft: Draft): Promise<FileRecord> {
  const { settings, options, s } = b;
  const { extension, originalName, index } = draft;
  const candidates = nameCandidates({
    format: options.format,
    extension,
    originalName,
    override: options.filename,
    length: settings.filesLength,
    dateFormat: settings.filesDefaultDateFormat,
    adjectives: settings.filesRandomWordsNumAdjectives,
    separator: settings.filesRandomWordsSeparator,
    now: draft.file.createdAt,
    random: s.random,
  });
  const fixed = options.filename !== null || options.format === "name";
  for (const name of candidates) {
    if (new TextEncoder().encode(name).byteLength > MAX_NAME_BYTES) {
      throw badRequest(`file[${index}]: invalid file name`);
    }
    if (reservedName(name)) throw badRequest(`file[${index}]: the name ${name} is reserved`);
    const file = { ...draft.file, name };
    try {
      await s.store.files.create(file, b.limits);
      return file;
    } catch (error) {
      if (error instanceof QuotaError) throw new QuotaRefusal();
      if (!(error instanceof UniqueError && error.field === "name")) throw error;
      if (fixed) throw badRequest(`file[${index}]: file with the same name already exists`);
    }
  }
  throw new Error("no free file name after many tries: raise filesLength");
}

/** Removes a stored file of a failed request: record first, so nobody is served half of it. */
async function discard(s: Services, file: FileRecord): Promise<void> {
  await s.store.files.delete(file.id);
  await s.datasource.delete(file.name);
}

/**
 * Queues the upload webhooks, naming who sent the file (the anonymous
 * placeholder for an upload without credentials); a failure there is logged,
 * never the upload's.
 */
function announce(
  s: Services,
  uploader: UserRecord | null,
  file: FileRecord,
  raw: string,
): Promise<void> {
  const user = uploader ?? anonymousUploader(file.createdAt);
  return queueUpload(s, { user, file, link: { raw } }).catch((error) =>
    s.logger.error("could not queue upload webhooks", { file: file.id, error })
  );
}
