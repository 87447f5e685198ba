/**
 * What an upload request's files share, whichever way they arrive (one
 * multipart request, `upload.ts`; chunks, `chunked.ts`): the {@link Batch}
 * (target, limits, hashed password), drafting and naming each file's record
 * under the first free name, the quota's refusal, and the answer with its
 * webhooks. Beneath both upload modules, which import it and not each other.
 */
import { preferencesOf } from "../preferences.ts";
import { type FileRecord, QuotaError } from "../../db/files.ts";
import { UniqueError } from "../../db/errors.ts";
import type { UserRecord } from "../../db/users.ts";
import { newId } from "../clock.ts";
import { ApiError, badRequest } from "../errors.ts";
import { hashPassword } from "../passwords.ts";
import { quotaLabel, type QuotaLimits, quotaLimits } from "../quotas.ts";
import type { Services } from "../services.ts";
import type { Settings } from "../settings/registry.ts";
import { parseSize } from "../units/size.ts";
import { linkOrigin, routeLink } from "../links.ts";
import { linkedName } from "./extensionless.ts";
import { queueRequestUpload, queueUpload } from "../webhooks/outbox.ts";
import { anonymousUploader } from "../webhooks/payloads.ts";
import { type UploadTarget, uploadTarget } from "./folders.ts";
import { type RequestBatch, requestTarget, typeAccepted, typeRefused } from "./request_uploads.ts";
import { essenceOf, storedType } from "./media_type.ts";
import { mimeOf } from "./mime.ts";
import {
  extensionDisabled,
  extensionOf,
  MAX_NAME_BYTES,
  nameCandidates,
  reservedName,
  sanitizeFilename,
} from "./naming.ts";
import type { UploadOptions } from "./options.ts";
import { compressedAs, type Compression, compressionBudget } from "./compress.ts";
import type { PixelBudget } from "./image_pool.ts";

/** One file part of the request, its body not yet read. */
export interface UploadPart {
  filename: string;
  /** The part's `Content-Type`; `""` when it had none. */
  contentType: string;
  body: ReadableStream<Uint8Array>;
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
  /** The pixels the request's images may still have compressed (all of them count together). */
  pixels: PixelBudget;
  /** Work left running after the answer (thumbnails, webhooks being queued); each logs its own failure. */
  background: Promise<void>[];
  /** The upload request the files come through, when they do (`request_uploads.ts`). */
  request: RequestBatch | null;
}

/** A quota refusal, worded once the number of files in the request is known ({@link quotaRefused}). */
export class QuotaRefusal extends Error {}

/**
 * The limits an upload to `target` is held to: its owner's quota, for an
 * anonymous upload into an open folder or through an upload request too (its
 * files are the owner's and count in the owner's usage; Zipline leaves them
 * outside any quota).
 */
export function targetLimits(target: UploadTarget): QuotaLimits {
  return quotaLimits(target.owner.quota);
}

/**
 * What the files of one upload by `user` with `options` share; hashes the
 * password. Compression is for the owner's own uploads: on an upload into
 * another's folder (`target.anonymous`, with or without credentials) the
 * compression headers are ignored, its images stored as they came. Through
 * an upload request (`via`), the request's owner and folder are the target
 * whoever calls, and its largest file caps the server's.
 */
export async function openBatch(
  s: Services,
  user: UserRecord | null,
  options: UploadOptions,
  via: RequestBatch | null = null,
): Promise<Batch> {
  const settings = s.settings.all();
  const target = via
    ? await requestTarget(s, via.open)
    : await uploadTarget(s, user, options.folderId);
  const maxFileSize = parseSize(settings.filesMaxFileSize) ?? Infinity;
  return {
    s,
    settings,
    options: target.anonymous ? { ...options, compression: null } : options,
    target,
    limits: targetLimits(target),
    passwordHash: options.passwordHash ??
      (options.password === null ? null : await hashPassword(options.password, s.random)),
    maxFileSize: Math.min(maxFileSize, via?.open.request.maxFileSize ?? Infinity),
    removedGps: new Set(),
    compressed: new Map(),
    pixels: compressionBudget(options.compression),
    background: [],
    request: via,
  };
}

/**
 * The refusal of an upload of `files` files to `target` that would pass its
 * quota; an uploader into another's folder is told whose quota, not its size.
 */
export function quotaRefused(target: UploadTarget, files: number): ApiError {
  if (target.anonymous) {
    return new ApiError(
      files > 1 ? 413 : 403,
      `Uploading ${files > 1 ? "these files" : "this file"} would exceed the folder owner's quota`,
    );
  }
  return files > 1
    ? new ApiError(413, "Uploading these files would exceed your quota")
    : new ApiError(
      403,
      `Uploading this file would exceed your quota of ${quotaLabel(target.owner.quota)}`,
    );
}

/** Announces the stored files (webhooks) and shapes the upload's answer. */
export function uploadAnswer(b: Batch, stored: FileRecord[], host: string): UploadResult {
  const { s, settings, options, target } = b;
  const base = linkOrigin(s, options.domain ?? undefined, host);
  for (const file of stored) {
    const raw = routeLink(base, "/raw", file.name);
    b.background.push(announce(s, target.uploader, file, raw));
    if (b.request) b.background.push(announceToOwner(s, b.request, file, raw));
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

/** An error about the request's file `index`. */
export function fileError(status: 400 | 413, index: number, message: string): ApiError {
  return new ApiError(status, `file[${index}]: ${message}`);
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
export interface Draft {
  file: FileRecord;
  extension: string;
  /** The sanitised original name, when the name or the record keeps it. */
  originalName: string | null;
  /** The part's place in the request, for errors (`file[index]`). */
  index: number;
  /** It is an image that will be compressed as the options ask, and is typed as what it will be. */
  compressing: boolean;
  /** Bytes it reserved in the upload request it comes through (`request_uploads.ts`). */
  requestBytes?: number;
}

/**
 * The pending record of a part by `b`'s options, checked against the
 * disabled extensions and types, not yet named.
 */
export function draftFile(
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
  if (b.request && !typeAccepted(b.request.open.request.allowedTypes, given, extension)) {
    throw typeRefused(b.request.open, given, index);
  }
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
      ...(options.private ?? preferencesOf(b.target.owner).privateByDefault
        ? { private: true }
        : {}),
      ...(b.request?.uploaderName ? { uploaderName: b.request.uploaderName } : {}),
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
function fileType(
  settings: Settings,
  given: string,
  extension: string,
  index: number,
): string {
  const type = settings.filesAssumeMimetypes || !given ? mimeOf(extension) : storedType(given);
  const essence = essenceOf(type);
  if (!settings.filesDisabledTypes.some((t) => t.toLowerCase() === essence)) return type;
  if (settings.filesDisabledTypesDefault) return storedType(settings.filesDisabledTypesDefault);
  throw badRequest(`file[${index}]: File type ${type} is not allowed`);
}

/** Records `draft` under the first free name its format offers. */
export async function createNamed(b: Batch, draft: Draft): Promise<FileRecord> {
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

/**
 * Queues the request-upload webhooks that tell a request's owner of a file
 * it received, with the request's counts as they are now; a failure there is
 * logged, never the upload's.
 */
async function announceToOwner(
  s: Services,
  via: RequestBatch,
  file: FileRecord,
  raw: string,
): Promise<void> {
  try {
    const r = await s.store.uploadRequests.get(via.open.request.id) ?? via.open.request;
    await queueRequestUpload(s, {
      user: via.open.owner,
      file,
      link: { raw },
      request: { id: r.id, name: r.name, files: r.files, bytes: r.bytes },
      uploader: via.uploaderName,
    });
  } catch (error) {
    s.logger.error("could not queue request-upload webhooks", { file: file.id, error });
  }
}
