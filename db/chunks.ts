/**
 * The progress of chunked uploads, kept in the store so that an upload
 * survives a restart, continues on any instance, and a client can ask which
 * byte ranges arrived. Each received chunk is one part record, written on its
 * own, so concurrent chunks of one upload never lose each other's ranges.
 *
 * An upload started by a user with a quota reserves its declared size and one
 * file in that user's usage counters (`db/files.ts`) until its file is
 * recorded or it is dropped, so that uploads in progress, however many run at
 * once, can never together pass the quota.
 */
import type { FileLimits } from "./files.ts";

/** A chunked upload in progress. */
export interface ChunkedUploadRecord {
  /** The identifier clients send back (`x-service-p-identifier`). */
  id: string;
  /** Who started it; `null` for an anonymous upload into a folder. */
  userId: string | null;
  folderId: string | null;
  filename: string;
  /** The MIME type the client announced. */
  type: string;
  /** Total bytes of the file. */
  size: number;
  /** Bytes of every chunk but the last; chunk `n` starts at `(n - 1) * partSize`. */
  partSize: number;
  /** The datasource object the parts are joined into, and its assembly handle. */
  object: string;
  handle: string;
  /**
   * The user whose usage counts this upload (its `size` and one file) until
   * {@link ChunkStore.unreserve} or {@link ChunkStore.delete}; `null` when
   * nothing is reserved (an anonymous upload, or a reservation given back).
   */
  reservedBy: string | null;
  /** The upload request it came through (`db/upload_requests.ts`), whose reservation it holds. */
  requestId?: string | null;
  /**
   * `true` while one request joins the parts; no chunk is accepted then. The
   * claim lasts {@link CLAIM_TERM_MS} from `updatedAt` unless renewed.
   */
  completing: boolean;
  createdAt: Date;
  /** When the last chunk arrived (or the upload started). */
  updatedAt: Date;
  /** A tus upload's progress (`core/files/tus.ts`); absent for a chunked upload. */
  tus?: TusState | null;
}

/**
 * Where a tus upload stands. On a disk its bytes are written in place into
 * one file (`Datasource.inPlace`): `offset` of them are kept, no part is
 * recorded and `tail` stays `null`. On S3 they go into the upload's assembly
 * as parts of `partSize`, part `n` holding bytes from `(n - 1) * partSize`;
 * the bytes past the last whole part wait in `tail`, an object of their own,
 * until the next PATCH completes the part. So `offset` is the end of the
 * whole parts plus `tail.size`.
 */
export interface TusState {
  /** Bytes received and kept: the `Upload-Offset` a client resumes from. */
  offset: number;
  /** The bytes past the last whole part, staged in the datasource; `null` for none. */
  tail: { object: string; size: number } | null;
  /** `Upload-Metadata` as the client sent it but its `password`, answered back on `HEAD`. */
  metadata: string;
  /**
   * The upload's options (`core/files/options.ts`), by short name, read when
   * it completes; a password as its argon2 hash (`password-hash`), never plain.
   */
  options: Record<string, string>;
}

/** One received chunk: part `number`, bytes `start`–`end` inclusive. */
export interface ChunkPart {
  number: number;
  start: number;
  end: number;
  /** What the datasource answered for the part. */
  tag: string;
}

/** Chunked uploads and their received parts. */
export interface ChunkStore {
  /**
   * Adds an upload (the id is random and never reused); when `reservedBy` is
   * set, in the same atomic step counts `size` bytes and one file in that
   * user's usage against `limits`, throwing `QuotaError` past them (nothing
   * written).
   */
  create(upload: ChunkedUploadRecord, limits: FileLimits): Promise<void>;
  /** The upload with this id, or `null`. */
  get(id: string): Promise<ChunkedUploadRecord | null>;
  /** The upload's parts, by number. */
  parts(id: string): Promise<ChunkPart[]>;
  /**
   * Records a part (replacing an earlier copy of its number) and bumps the
   * upload's `updatedAt`; `false`, writing nothing, when the upload is gone or
   * completing. A claim past its term ({@link claimHeld}) is ended by it: the
   * request that held it is gone.
   */
  addPart(id: string, part: ChunkPart, now: Date): Promise<boolean>;
  /**
   * Marks the upload completing from `now` (its `updatedAt`); the upload as it
   * was before, or `null` when it is gone or its claim is held. Atomic: of
   * concurrent claims exactly one wins.
   */
  claim(id: string, now: Date): Promise<ChunkedUploadRecord | null>;
  /** Keeps a claim held: its term starts again at `now` (nothing when it is not completing). */
  renew(id: string, now: Date): Promise<void>;
  /** Undoes a {@link claim} whose completion failed, so the upload can be finished again. */
  release(id: string): Promise<void>;
  /**
   * Gives back the upload's reservation (its file is now counted instead),
   * atomically with clearing `reservedBy`: a reservation is given back once.
   */
  unreserve(id: string): Promise<void>;
  /** Removes the upload and its parts, giving back the reservation it still holds. */
  delete(id: string): Promise<void>;
  /**
   * Saves a tus upload's progress: `part` (when given, replacing an earlier
   * copy of its number), `tus` and `updatedAt = now`, atomically, leaving the
   * claim as it is; `false`, writing nothing, when the upload is gone.
   */
  saveTus(id: string, part: ChunkPart | null, tus: TusState, now: Date): Promise<boolean>;
  /** A user's uploads in progress, oldest first. */
  listByUser(userId: string): Promise<ChunkedUploadRecord[]>;
  /** Uploads whose last chunk arrived before `before`, oldest first. */
  listIdle(before: Date): Promise<ChunkedUploadRecord[]>;
}

/**
 * How long a claim holds without being renewed: the request joining the parts
 * renews it every quarter of this, so a claim this old was left by a process
 * that stopped (killed, crashed) and another request may take the upload over.
 */
export const CLAIM_TERM_MS = 2 * 60 * 1000;

/**
 * How long a tus upload's claim holds unrenewed: a PATCH holds it while it
 * writes, so after a process stopped mid-PATCH the client's retry waits this
 * long at most (a 423 meanwhile).
 */
export const TUS_CLAIM_TERM_MS = 20 * 1000;

/** The claim term of `upload`: {@link TUS_CLAIM_TERM_MS} for a tus upload, else {@link CLAIM_TERM_MS}. */
export function claimTerm(upload: Pick<ChunkedUploadRecord, "tus">): number {
  return upload.tus ? TUS_CLAIM_TERM_MS : CLAIM_TERM_MS;
}

/** Whether `upload` is being completed at `now`: claimed, and renewed within the term. */
export function claimHeld(upload: ChunkedUploadRecord, now: Date): boolean {
  return upload.completing && now.getTime() - upload.updatedAt.getTime() < claimTerm(upload);
}

/** The parts' byte ranges merged into ascending, non-touching `[start, end]` pairs. */
export function receivedRanges(parts: ChunkPart[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const { start, end } of [...parts].sort((a, b) => a.start - b.start)) {
    const last = ranges.at(-1);
    if (last && start <= last[1] + 1) last[1] = Math.max(last[1], end);
    else ranges.push([start, end]);
  }
  return ranges;
}
