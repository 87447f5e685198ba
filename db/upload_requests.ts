/**
 * Upload requests (`core/upload_requests.ts`): a user asks anyone holding a
 * link (`/request/<code>`) for files. The record keeps the request's limits
 * and its counters, `files` and `bytes`: what it has received, with what is
 * arriving. An upload through it first {@link UploadRequestStore.reserve}s
 * one file and its bytes, atomically refused past the limits, so concurrent
 * uploads on any number of processes never let one file more in; a failed
 * upload gives its reservation back ({@link UploadRequestStore.release}).
 */

/** One upload request as stored. `password` is an argon2 hash and never leaves the server. */
export interface UploadRequestRecord {
  id: string;
  /** The public code of its link (`/request/<code>`); unique, at least 96 random bits. */
  code: string;
  /** The owner: whose files the uploads become, and whose quota they count against. */
  userId: string;
  name: string;
  /** Shown to uploaders on the request's page. */
  message: string | null;
  /** Where the files land; `null`: the owner's root (its folder was deleted). */
  folderId: string | null;
  /** The most files it accepts in all; `null`: no limit. */
  maxFiles: number | null;
  /** The most bytes it accepts in all; `null`: no limit. */
  maxBytes: number | null;
  /** The largest file it accepts; `null`: the server's own limit. */
  maxFileSize: number | null;
  /** When it closes; `null`: never. */
  expiresAt: Date | null;
  password: string | null;
  /** MIME types (`image/png`) or families (`image/*`) it accepts; empty: any. */
  allowedTypes: string[];
  /** Files received or arriving. */
  files: number;
  /** Bytes received or reserved by uploads arriving. */
  bytes: number;
  createdAt: Date;
  updatedAt: Date;
}

/** The fields {@link UploadRequestStore.update} may change. */
export type UploadRequestPatch = Partial<
  Pick<
    UploadRequestRecord,
    | "name"
    | "message"
    | "folderId"
    | "maxFiles"
    | "maxBytes"
    | "maxFileSize"
    | "expiresAt"
    | "password"
    | "allowedTypes"
  >
>;

/** What {@link UploadRequestStore.reserve} did: the counted request, or why nothing was counted. */
export type Reservation =
  | { ok: true; request: UploadRequestRecord }
  | { ok: false; reason: "gone" }
  | { ok: false; reason: "files" | "bytes"; request: UploadRequestRecord };

/** Users' upload requests, as each backend stores them. */
export interface UploadRequestStore {
  /** Adds a request; throws `UniqueError("code")` when its code is taken. */
  create(request: UploadRequestRecord): Promise<void>;
  /** The request with this id, or `null`. */
  get(id: string): Promise<UploadRequestRecord | null>;
  /** The request with this code, or `null`. */
  getByCode(code: string): Promise<UploadRequestRecord | null>;
  /** A user's requests, oldest first. */
  listByUser(userId: string): Promise<UploadRequestRecord[]>;
  /** Applies `patch`, bumping `updatedAt`; the new record, or `null` when there is none. */
  update(id: string, patch: UploadRequestPatch, now: Date): Promise<UploadRequestRecord | null>;
  /** Removes request `id` (its counters and grants); the removed record, or `null`. */
  delete(id: string): Promise<UploadRequestRecord | null>;
  /** Removes every request of the user; how many there were. */
  deleteByUser(userId: string): Promise<number>;
  /**
   * Counts one file and `bytes` bytes in request `id`, unless that takes it
   * past `maxFiles` or `maxBytes` (then nothing is counted). Atomic: of
   * concurrent reservations, exactly those that fit are counted.
   */
  reserve(id: string, bytes: number): Promise<Reservation>;
  /**
   * Gives back `files` files and `bytes` bytes of a reservation (never below
   * zero); a negative `bytes` counts bytes more (a file larger than it reserved).
   */
  release(id: string, files: number, bytes: number): Promise<void>;
  /** Records at `now` that `key` may upload through request `id` until `expiresAt`. */
  grantAccess(id: string, key: string, expiresAt: Date, now: Date): Promise<void>;
  /** Whether an unexpired grant of `key` for request `id` exists at `now`. */
  hasAccess(id: string, key: string, now: Date): Promise<boolean>;
}
