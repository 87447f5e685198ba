/**
 * Password-protected files (spec §4.5). A correct password earns the cookie
 * `file_pw_<fileId>` holding that password, for 60 seconds. The browser drops
 * the cookie then; the server, too, honours it only for 60 seconds: the
 * verification leaves a grant in the store, keyed by an HMAC of the file, its
 * current hash, the password and the client's IP, that expires with the
 * cookie. Serving with the cookie (or the same `?pw=` again) checks the grant,
 * with no argon2 per request; a password change voids every grant, and a
 * grant serves only the address that earned it, so a cookie guessed from
 * elsewhere matches nothing. Each argon2 check and each cookie without a
 * grant is an attempt, limited and logged (`../password_attempts.ts`).
 */
import type { FileRecord } from "../../db/files.ts";
import { forbidden, notFound } from "../errors.ts";
import { verifyPassword } from "../passwords.ts";
import { type Attempt, refuseProof, tryPassword } from "../password_attempts.ts";
import { hmac } from "../secrets.ts";
import type { Services } from "../services.ts";

/** How long a verified password opens its file. */
export const ACCESS_SECONDS = 60;

/** The access cookie's name for a file. */
export function accessCookieName(fileId: string): string {
  return `file_pw_${fileId}`;
}

/**
 * Checks `password` for the file with this id or name (`POST
 * /api/user/files/:id/password`): 404 for a file that is missing or has no
 * password, 403 for a wrong one, 429 past the attempts' limit. Returns the
 * file, whose cookie the caller sets.
 */
export async function verifyFileAccess(
  s: Services,
  idOrName: string,
  password: string,
  attempt: Attempt,
): Promise<FileRecord> {
  const file = await s.store.files.get(idOrName) ?? await s.store.files.getByName(idOrName);
  if (!file || file.pending || !file.password) throw notFound();
  if (!(await checkAndGrant(s, file, password, attempt))) throw forbidden("Incorrect password");
  return file;
}

/**
 * Whether `?pw=` opens the file: a grant this address earned with the same
 * password within the minute, else a limited, logged check that leaves one.
 */
export async function passwordOpens(
  s: Services,
  file: FileRecord,
  password: string,
  attempt: Attempt,
): Promise<boolean> {
  return await hasGrant(s, file, password, attempt.ip) ||
    await checkAndGrant(s, file, password, attempt);
}

/**
 * Whether the access cookie's value holds a grant for this address; one that
 * holds none is a failed attempt (limited, logged), never an argon2 check.
 */
export async function cookieOpens(
  s: Services,
  file: FileRecord,
  cookie: string,
  attempt: Attempt,
): Promise<boolean> {
  if (await hasGrant(s, file, cookie, attempt.ip)) return true;
  await refuseProof(s, attemptTarget(file), attempt);
  return false;
}

/** The limited, logged argon2 check; a grant for a minute when it holds. */
async function checkAndGrant(
  s: Services,
  file: FileRecord,
  password: string,
  attempt: Attempt,
): Promise<boolean> {
  const hash = file.password!;
  const ok = await tryPassword(
    s,
    attemptTarget(file),
    attempt,
    () => verifyPassword(password, hash),
  );
  if (ok) {
    const now = s.clock.now();
    const expires = new Date(now + ACCESS_SECONDS * 1000);
    const key = grantKey(s, file, password, attempt.ip);
    await s.store.files.grantAccess(file.id, key, expires, new Date(now));
  }
  return ok;
}

async function hasGrant(s: Services, file: FileRecord, password: string, ip: string) {
  const now = new Date(s.clock.now());
  return await s.store.files.hasAccess(file.id, grantKey(s, file, password, ip), now);
}

function attemptTarget(file: FileRecord) {
  return { kind: "file" as const, id: file.id, name: file.name };
}

/** HMAC of file id, current hash, password and client IP under the server secret. */
function grantKey(s: Services, file: FileRecord, password: string, ip: string): string {
  return hmac(s.secret, `file\0${file.id}\0${file.password}\0${password}\0${ip}`);
}
