/**
 * Password-protected files (spec §4.5). A correct password earns the cookie
 * `file_pw_<fileId>` holding that password, for 60 seconds. The browser drops
 * the cookie then; the server, too, honours it only for 60 seconds: the
 * verification leaves a grant in the store, keyed by an HMAC of the file, its
 * current hash and the password, that expires with the cookie. Serving with
 * the cookie checks the grant (no argon2 per request), and a password change
 * voids every grant.
 */
import type { FileRecord } from "../../db/files.ts";
import { forbidden, notFound } from "../errors.ts";
import { verifyPassword } from "../passwords.ts";
import type { Services } from "../services.ts";

/** How long a verified password opens its file. */
export const ACCESS_SECONDS = 60;

/** The access cookie's name for a file. */
export function accessCookieName(fileId: string): string {
  return `file_pw_${fileId}`;
}

/** Who tried a password, for the log. */
export interface Attempt {
  ip: string;
  ua: string;
}

/**
 * Checks `password` for the file with this id or name. Logs the attempt
 * either way; 404 for a file that is missing or has no password, 403 for a
 * wrong one. Returns the file, whose cookie the caller sets.
 */
export async function verifyFileAccess(
  s: Services,
  idOrName: string,
  password: string,
  attempt: Attempt,
): Promise<FileRecord> {
  const file = await s.store.files.get(idOrName) ?? await s.store.files.getByName(idOrName);
  if (!file || file.pending || !file.password) throw notFound();
  const success = await verifyPassword(password, file.password);
  const now = s.clock.now();
  s.logger.info("file password attempt", {
    file: file.name,
    ip: attempt.ip,
    ua: attempt.ua,
    at: new Date(now).toISOString(),
    success,
  });
  if (!success) throw forbidden("Incorrect password");
  const expires = new Date(now + ACCESS_SECONDS * 1000);
  await s.store.files.grantAccess(file.id, await grantKey(s, file, password), expires);
  return file;
}

/** Whether `password` (from the access cookie) was verified for `file` within the last minute. */
export async function hasFileAccess(s: Services, file: FileRecord, password: string) {
  return await s.store.files.hasAccess(
    file.id,
    await grantKey(s, file, password),
    new Date(s.clock.now()),
  );
}

/** HMAC-SHA-256 of file id, current hash and password under the server secret. */
async function grantKey(s: Services, file: FileRecord, password: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(s.secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign(
    "HMAC",
    key,
    encoder.encode(`${file.id}\0${file.password}\0${password}`),
  );
  return Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, "0")).join("");
}
