/**
 * Uploads through an upload request (`../upload_requests.ts`): what the
 * request decides for them and the limits it holds them to. The uploader has
 * no say in names, expiry, passwords or compression: the server's defaults
 * apply, with the original name kept for the owner. Each file reserves one
 * file and its bytes in the request before its bytes are stored (an atomic
 * step of the store, so no race lets one file more in), is refused past the
 * request's largest file or types, and gives its reservation back when it
 * fails; a stored file's reservation is settled to its measured size.
 */
import type { Random } from "../clock.ts";
import { ApiError, badRequest } from "../errors.ts";
import type { Services } from "../services.ts";
import type { Settings } from "../settings/registry.ts";
import { type OpenRequest, requestClosed, type RequestPass } from "../upload_requests.ts";
import type { UploadTarget } from "./folders.ts";
import { essenceOf } from "./media_type.ts";
import { mimeOf } from "./mime.ts";
import { parseUploadOptions, type UploadOptions } from "./options.ts";

/** An upload through a request, as the route hands it over. */
export interface RequestUpload {
  pass: RequestPass;
  /** The name the uploader gave (`x-service-request-uploader`), checked; `null` when none. */
  uploaderName: string | null;
}

/** An open request an upload goes through, with the uploader's name. */
export interface RequestBatch {
  open: OpenRequest;
  uploaderName: string | null;
}

/** The longest name an uploader may give. */
export const UPLOADER_NAME_MAX = 100;

/**
 * The uploader's name from its header (percent-encoded, so that any script
 * travels in a header): trimmed, control characters dropped; `null` when
 * empty; 400 past {@link UPLOADER_NAME_MAX} characters.
 */
export function uploaderName(header: string | undefined): string | null {
  if (header === undefined) return null;
  let name = header;
  try {
    name = decodeURIComponent(header);
  } catch {
    // Not percent-encoded: taken as it came.
  }
  // deno-lint-ignore no-control-regex
  name = name.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  if ([...name].length > UPLOADER_NAME_MAX) {
    throw badRequest(
      `bad options[request-uploader]: at most ${UPLOADER_NAME_MAX} characters`,
    );
  }
  return name === "" ? null : name;
}

/**
 * The options of every request upload: the server's defaults (its default
 * expiry and name format), the client's file name kept as the original name,
 * never compressed; only `noJson`, which shapes the answer, is the uploader's.
 */
export function requestUploadOptions(
  settings: Settings,
  now: number,
  random: Random,
  noJson: boolean,
): UploadOptions {
  const defaults = parseUploadOptions(() => undefined, settings, now, random, "");
  // Private: the uploader gets its file's link back, and a request must not become a way to
  // host files for others; the owner shares what it received as it chooses.
  return { ...defaults, keepOriginalName: true, noJson, compression: null, private: true };
}

/**
 * Where a request's files go: its owner's, into its folder while that is
 * still the owner's (else the owner's root), marked as sent by someone else.
 */
export async function requestTarget(s: Services, open: OpenRequest): Promise<UploadTarget> {
  const { request, owner } = open;
  const folder = request.folderId === null ? null : await s.store.folders.get(request.folderId);
  const folderId = folder && folder.userId === owner.id ? folder.id : null;
  return { owner, uploader: null, folderId, anonymous: true };
}

/**
 * Whether a file of stored `type` named with `extension` may go through a
 * request accepting `allowed` (types, `family/*`, or `.ext`, which stands for
 * its extension's type): every type when the list is empty; else the stored
 * type, and the extension's type when the extension is a known one, must
 * both match, so that neither the client's type nor the name alone can pass
 * a file of another kind.
 */
export function typeAccepted(allowed: string[], type: string, extension: string): boolean {
  if (allowed.length === 0) return true;
  const patterns = allowed.map((a) => a.startsWith(".") ? mimeOf(a) : a);
  const matches = (t: string) => {
    const essence = essenceOf(t).toLowerCase();
    return patterns.some((p) =>
      p.endsWith("/*") ? essence.startsWith(p.slice(0, -1)) : essence === p
    );
  };
  const byName = extension === "" ? null : mimeOf(extension);
  return matches(type) &&
    (byName === null || byName === "application/octet-stream" || matches(byName));
}

/** The 415 of a file whose type request `open` does not accept. */
export function typeRefused(open: OpenRequest, type: string, index: number): ApiError {
  return new ApiError(
    415,
    `file[${index}]: File type ${essenceOf(type)} is not accepted by this upload request ` +
      `(it accepts ${open.request.allowedTypes.join(", ")})`,
  );
}

/** The 413 of a request that has taken all the files it accepts. */
function filesRefused(max: number | null): ApiError {
  return new ApiError(413, `This upload request accepts no more files (${max} at most)`);
}

/** The 413 of a file past the bytes left in request `open`. */
export function bytesRefused(left: number): ApiError {
  return new ApiError(
    413,
    `This upload request has room for ${Math.max(0, left)} more bytes only`,
  );
}

/**
 * Reserves one file in the request and the bytes it may take: `want` (the
 * most the file can be: the request's body, the largest file), cut to the
 * bytes the request has left. Returns the bytes reserved: the file's limit
 * while it streams (0 when the request counts no bytes and `want` is
 * unbounded: the file's size is added when it is settled). 410 when the
 * request closed, 413 when it is full.
 */
export async function reserveFile(s: Services, open: OpenRequest, want: number): Promise<number> {
  let request = open.request;
  for (let tries = 0; tries < 20; tries++) {
    if (request.maxFiles !== null && request.files >= request.maxFiles) {
      throw filesRefused(request.maxFiles);
    }
    const left = request.maxBytes === null ? Infinity : request.maxBytes - request.bytes;
    if (left <= 0) throw bytesRefused(left);
    const bytes = Math.min(want, left);
    const reserved = Number.isFinite(bytes) ? bytes : 0;
    const result = await s.store.uploadRequests.reserve(request.id, reserved);
    if (result.ok) return reserved;
    if (result.reason === "gone") throw requestClosed();
    if (result.reason === "files") throw filesRefused(result.request.maxFiles);
    // Another upload took bytes since the request was read: try again with what is left.
    request = result.request;
  }
  throw bytesRefused(0);
}

/**
 * Reserves one file of exactly `size` bytes (a chunked upload, whose size is
 * declared): 413 past the request's largest file or its bytes left.
 */
export async function reserveExactly(s: Services, open: OpenRequest, size: number) {
  const { request } = open;
  if (request.maxFileSize !== null && size > request.maxFileSize) {
    throw new ApiError(
      413,
      `File size is too large. Maximum file size is ${request.maxFileSize} bytes`,
    );
  }
  const result = await s.store.uploadRequests.reserve(request.id, size);
  if (result.ok) return;
  if (result.reason === "gone") throw requestClosed();
  if (result.reason === "files") throw filesRefused(result.request.maxFiles);
  const { maxBytes, bytes } = result.request;
  throw bytesRefused((maxBytes ?? 0) - bytes);
}

/** Gives back a failed file's reservation of `bytes` in request `requestId`. */
export async function releaseFile(s: Services, requestId: string, bytes: number): Promise<void> {
  await s.store.uploadRequests.release(requestId, 1, bytes).catch((error) =>
    s.logger.warn("could not release an upload request's reservation", {
      id: requestId,
      error: String(error),
    })
  );
}

/** Settles a stored file's reservation of `reserved` bytes to its measured `size`. */
export async function settleFile(
  s: Services,
  requestId: string,
  reserved: number,
  size: number,
): Promise<void> {
  if (reserved === size) return;
  await s.store.uploadRequests.release(requestId, 0, reserved - size).catch((error) =>
    s.logger.warn("could not settle an upload request's reservation", {
      id: requestId,
      error: String(error),
    })
  );
}
