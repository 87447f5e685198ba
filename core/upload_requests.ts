/**
 * Upload requests: a user asks anyone for files. A request is a link
 * (`/request/<code>`, the code at least 96 random bits) whose holder may
 * upload, without an account, into the request's folder (one named after it,
 * made with it, unless the owner names one of its own); the files are the
 * owner's and count against the owner's quota. The request decides
 * everything else (names, expiry, no compression) and holds its own limits:
 * files, bytes, the largest file, the types, an expiry, a password
 * (`files/request_uploads.ts` applies them to each upload). Deleting it, or
 * its owner, closes it (410); the files it received stay the owner's.
 */
import type { FolderRecord } from "../db/folders.ts";
import { UniqueError } from "../db/errors.ts";
import type { UploadRequestPatch, UploadRequestRecord } from "../db/upload_requests.ts";
import type { UserRecord } from "../db/users.ts";
import { newId, randomString } from "./clock.ts";
import { ApiError, badRequest, notFound } from "./errors.ts";
import { linkOrigin, storable } from "./links.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";
import { type Attempt, tryPassword } from "./password_attempts.ts";
import { hmac } from "./secrets.ts";
import type { Services } from "./services.ts";

/** Random alphanumerics of a request's code: 22, about 131 bits. */
const CODE_LENGTH = 22;
/** Requests a user may hold at once. */
export const MAX_REQUESTS_PER_USER = 100;
/** How long a verified password opens a request for one client address. */
export const REQUEST_ACCESS_SECONDS = 60 * 60;
/** The path of a request's public page. */
export const REQUEST_PAGE = "/request";
/** The largest a folder's name may be (`routes/folders.ts`). */
const FOLDER_NAME_MAX = 255;

/** A request as its owner sees it: never the password's hash, nor its grants. */
export function uploadRequestView(s: Services, r: UploadRequestRecord, host: string) {
  return {
    id: r.id,
    code: r.code,
    url: requestUrl(s, r.code, host),
    name: r.name,
    message: r.message,
    folderId: r.folderId,
    maxFiles: r.maxFiles,
    maxBytes: r.maxBytes,
    maxFileSize: r.maxFileSize,
    expiresAt: r.expiresAt?.toISOString() ?? null,
    expired: expired(s, r),
    password: r.password !== null,
    allowedTypes: r.allowedTypes,
    files: r.files,
    bytes: r.bytes,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** A request's view. */
export type UploadRequestView = ReturnType<typeof uploadRequestView>;

/** The absolute link of request `code`'s page. */
export function requestUrl(s: Services, code: string, host: string): string {
  return `${linkOrigin(s, undefined, host)}${REQUEST_PAGE}/${code}`;
}

/** Whether request `r` has passed its expiry. */
function expired(s: Services, r: UploadRequestRecord): boolean {
  return r.expiresAt !== null && r.expiresAt.getTime() <= s.clock.now();
}

/** What a request is made with; absent limits are none. */
export interface NewUploadRequest {
  name: string;
  message?: string | null;
  folderId?: string | null;
  maxFiles?: number | null;
  maxBytes?: number | null;
  maxFileSize?: number | null;
  expiresAt?: Date | null;
  password?: string | null;
  allowedTypes?: string[];
}

/** What a change of a request may set; `null` removes a limit, the message or the password. */
export type UploadRequestChange = Omit<Partial<NewUploadRequest>, "name"> & { name?: string };

/**
 * Makes a request of `user`'s: in the folder it names (its own), else in a
 * new folder named after the request. At most
 * {@link MAX_REQUESTS_PER_USER} a user; the expiry must lie ahead.
 */
export async function createUploadRequest(
  s: Services,
  user: UserRecord,
  input: NewUploadRequest,
  host: string,
): Promise<UploadRequestView> {
  checkExpiry(s, input.expiresAt);
  if ((await s.store.uploadRequests.listByUser(user.id)).length >= MAX_REQUESTS_PER_USER) {
    throw badRequest(
      `You have ${MAX_REQUESTS_PER_USER} upload requests, the most allowed; delete one first`,
    );
  }
  const folderId = input.folderId
    ? (await ownFolder(s, user, input.folderId)).id
    : (await newFolder(s, user, input.name)).id;
  const now = new Date(s.clock.now());
  const record: UploadRequestRecord = {
    id: newId(s.random, now.getTime()),
    code: randomString(s.random, CODE_LENGTH),
    userId: user.id,
    name: input.name,
    message: input.message || null,
    folderId,
    maxFiles: input.maxFiles ?? null,
    maxBytes: input.maxBytes ?? null,
    maxFileSize: input.maxFileSize ?? null,
    expiresAt: input.expiresAt ?? null,
    password: input.password ? await hashPassword(input.password, s.random) : null,
    allowedTypes: normalizeTypes(input.allowedTypes ?? []),
    files: 0,
    bytes: 0,
    createdAt: now,
    updatedAt: now,
  };
  await s.store.uploadRequests.create(record);
  s.logger.info("upload request created", { user: user.username, id: record.id });
  return uploadRequestView(s, record, host);
}

/** The user's requests, oldest first. */
export async function listUploadRequests(s: Services, user: UserRecord, host: string) {
  const requests = await s.store.uploadRequests.listByUser(user.id);
  return requests.map((r) => uploadRequestView(s, r, host));
}

/** One of the user's requests; 404 for another's or none. */
export async function getUploadRequest(s: Services, user: UserRecord, id: string, host: string) {
  return uploadRequestView(s, await ownRequest(s, user, id), host);
}

/** Changes one of the user's requests: its name, message, folder, limits, expiry or password. */
export async function updateUploadRequest(
  s: Services,
  user: UserRecord,
  id: string,
  change: UploadRequestChange,
  host: string,
): Promise<UploadRequestView> {
  await ownRequest(s, user, id);
  checkExpiry(s, change.expiresAt);
  const patch: UploadRequestPatch = {
    name: change.name,
    message: change.message === undefined ? undefined : change.message || null,
    folderId: change.folderId ? (await ownFolder(s, user, change.folderId)).id : undefined,
    maxFiles: change.maxFiles,
    maxBytes: change.maxBytes,
    maxFileSize: change.maxFileSize,
    expiresAt: change.expiresAt,
    password: change.password === undefined
      ? undefined
      : change.password
      ? await hashPassword(change.password, s.random)
      : null,
    allowedTypes: change.allowedTypes && normalizeTypes(change.allowedTypes),
  };
  const updated = await s.store.uploadRequests.update(id, patch, new Date(s.clock.now()));
  if (!updated) throw notFound();
  return uploadRequestView(s, updated, host);
}

/** Deletes (closes) one of the user's requests: its link answers 410; its files stay. */
export async function deleteUploadRequest(
  s: Services,
  user: UserRecord,
  id: string,
  host: string,
): Promise<UploadRequestView> {
  await ownRequest(s, user, id);
  const removed = await s.store.uploadRequests.delete(id);
  if (!removed) throw notFound();
  s.logger.info("upload request deleted", { user: user.username, id });
  return uploadRequestView(s, removed, host);
}

/** Request `id` of `user`'s; 404 otherwise. */
async function ownRequest(s: Services, user: UserRecord, id: string) {
  const request = await s.store.uploadRequests.get(id);
  if (!request || request.userId !== user.id) throw notFound();
  return request;
}

/** 400 unless `at` (when set) lies ahead. */
function checkExpiry(s: Services, at: Date | null | undefined): void {
  if (at && at.getTime() <= s.clock.now()) {
    throw badRequest("expiresAt must be in the future", [
      { path: ["expiresAt"], message: "must be in the future", code: "custom" },
    ]);
  }
}

/** Folder `id` of `user`'s own; 404 `Folder not found` otherwise. */
async function ownFolder(s: Services, user: UserRecord, id: string): Promise<FolderRecord> {
  const folder = await s.store.folders.get(id);
  if (!folder || folder.userId !== user.id) throw notFound("Folder not found");
  return folder;
}

/**
 * A new root folder of `user`'s named after request `name` (`name (2)`, … when
 * the name is taken), private and closed to other uploads.
 */
async function newFolder(s: Services, user: UserRecord, name: string): Promise<FolderRecord> {
  const now = new Date(s.clock.now());
  for (let n = 1; n <= 20; n++) {
    const suffix = n === 1 ? "" : ` (${n})`;
    const folder: FolderRecord = {
      id: newId(s.random, now.getTime()),
      name: name.slice(0, FOLDER_NAME_MAX - suffix.length) + suffix,
      public: false,
      allowUploads: false,
      parentId: null,
      userId: user.id,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await s.store.folders.create(folder);
      return folder;
    } catch (error) {
      if (!(error instanceof UniqueError)) throw error;
    }
  }
  throw badRequest("Folders named after this request exist already: name one (folderId)");
}

/** Types as kept: lowercase, each once. */
function normalizeTypes(types: string[]): string[] {
  return [...new Set(types.map((t) => t.trim().toLowerCase()))];
}

/** Proof of access to a request, as an uploader presents it. */
export interface RequestPass {
  /** The request's code (`x-service-request`). */
  code: string;
  /** Its password, when it has one (`x-service-request-password`). */
  password: string | null;
  attempt: Attempt;
}

/** An open request and its owner. */
export interface OpenRequest {
  request: UploadRequestRecord;
  owner: UserRecord;
}

/** The 410 of a closed request. */
export function requestClosed(message = "This upload request does not exist or was closed") {
  return new ApiError(410, message);
}

/**
 * The request `pass` names, when it is open and the pass holds its password:
 * 410 when it is unknown, deleted, expired or its owner is gone; 401 without
 * its password, 403 with a wrong one (each check limited and logged, and a
 * right one opens the request for this address for an hour without argon2).
 */
export async function openRequest(s: Services, pass: RequestPass): Promise<OpenRequest> {
  const { request, owner } = await findOpen(s, pass.code);
  if (request.password) {
    if (!pass.password) throw new ApiError(401, "This upload request needs its password");
    if (!await passwordOpens(s, request, pass.password, pass.attempt)) {
      throw new ApiError(403, "Incorrect password");
    }
  }
  return { request, owner };
}

/** Request `code` and its owner while it is open; 410 otherwise. */
async function findOpen(s: Services, code: string): Promise<OpenRequest> {
  // A code no store can hold (a NUL byte) names no request.
  const request = storable(code) === null ? null : await s.store.uploadRequests.getByCode(code);
  if (!request) throw requestClosed();
  if (expired(s, request)) throw requestClosed("This upload request has expired");
  const owner = await s.store.users.getCached(request.userId);
  if (!owner) throw requestClosed();
  return { request, owner };
}

/** Whether `password` opens `request` for this address: a grant, else a limited, logged check. */
async function passwordOpens(
  s: Services,
  request: UploadRequestRecord,
  password: string,
  attempt: Attempt,
): Promise<boolean> {
  const now = s.clock.now();
  const key = hmac(
    s.secret,
    `request\0${request.id}\0${request.password}\0${password}\0${attempt.ip}`,
  );
  if (await s.store.uploadRequests.hasAccess(request.id, key, new Date(now))) return true;
  const target = { kind: "request" as const, id: request.id, name: request.name };
  const ok = await tryPassword(
    s,
    target,
    attempt,
    () => verifyPassword(password, request.password!),
  );
  if (ok) {
    const until = new Date(now + REQUEST_ACCESS_SECONDS * 1000);
    await s.store.uploadRequests.grantAccess(request.id, key, until, new Date(now));
  }
  return ok;
}

/** What an uploader learns of a request: never its owner's id, its folder or its password. */
export function publicRequestView(open: OpenRequest, withMessage: boolean) {
  const { request: r, owner } = open;
  return {
    name: r.name,
    owner: owner.username,
    message: withMessage ? r.message : null,
    password: r.password !== null,
    maxFiles: r.maxFiles,
    maxBytes: r.maxBytes,
    maxFileSize: r.maxFileSize,
    allowedTypes: r.allowedTypes,
    filesLeft: r.maxFiles === null ? null : Math.max(0, r.maxFiles - r.files),
    bytesLeft: r.maxBytes === null ? null : Math.max(0, r.maxBytes - r.bytes),
    expiresAt: r.expiresAt?.toISOString() ?? null,
  };
}

/** A request as an uploader sees it. */
export type PublicRequestView = ReturnType<typeof publicRequestView>;

/**
 * The public view of request `code` before any password: its message only
 * when it has no password. 410 when it is closed.
 */
export async function describeRequest(s: Services, code: string): Promise<PublicRequestView> {
  const open = await findOpen(s, code);
  return publicRequestView(open, open.request.password === null);
}

/** The public view of request `code` once `pass` opens it, with its message. */
export async function unlockRequest(s: Services, pass: RequestPass): Promise<PublicRequestView> {
  return publicRequestView(await openRequest(s, pass), true);
}

/** Deletes every request of a user being deleted (their links answer 410); how many. */
export async function deleteUserRequests(s: Services, userId: string): Promise<number> {
  return await s.store.uploadRequests.deleteByUser(userId);
}
