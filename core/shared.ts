/**
 * Visiting a share link (`shares.ts`): `/s/<code>` shows what it opens (a
 * file, or the files directly in a folder), `/s/<code>/raw` a file link's
 * bytes, `/s/<code>/files/<fileId>` those of a file in a folder link and
 * `/s/<code>/zip` a folder link's files as one archive. A link that is
 * unknown, revoked, expired, used up, or whose target is gone is a 404, as a
 * missing file is. A view is counted when bytes are read (as `/raw` counts a
 * file's), on the link alone: the file's own password, view limit and privacy
 * do not apply through it. A link's password is given on its page (`POST
 * /api/shares/:code/password`), which sets the cookie `share_pw_<shareId>`
 * holding a grant (`password_grants.ts`) for {@link SHARE_ACCESS_SECONDS};
 * every check and every cookie holding no live grant is an attempt, limited
 * and logged as files' are (`password_attempts.ts`).
 */
import type { FileRecord } from "../db/files.ts";
import type { FolderRecord } from "../db/folders.ts";
import type { ShareRecord } from "../db/shares.ts";
import { type Archive, flatEntries } from "./files/archive.ts";
import { type BytesRequest, type ServeAnswer, serveThroughLink } from "./files/serve.ts";
import { forbidden, notFound } from "./errors.ts";
import { verifyPassword } from "./passwords.ts";
import { grantHolds, type GrantSubject, issueGrant } from "./password_grants.ts";
import { type Attempt, type AttemptTarget, refuseProof, tryPassword } from "./password_attempts.ts";
import type { Services } from "./services.ts";
import { targetRecord } from "./shares.ts";
import { zipStream } from "./zip.ts";

/** How long a verified link password opens the link: an hour. */
export const SHARE_ACCESS_SECONDS = 60 * 60;

/** The most files a folder link shows and zips. */
export const SHARED_FOLDER_FILES = 1000;

/** The access cookie of a link's password. */
export const shareCookieName = (shareId: string) => `share_pw_${shareId}`;

/** How a visitor proves a link's password, and who it is. */
export interface ShareProof extends Attempt {
  /** The `share_pw_<shareId>` cookie, read once the link is known. */
  cookie: (shareId: string) => string | undefined;
}

/** What a live link opens, and whether its password is still to be given. */
export type ShareVisit =
  & { share: ShareRecord; locked: boolean }
  & (
    | { kind: "file"; file: FileRecord }
    | { kind: "folder"; folder: FolderRecord; files: FileRecord[] }
  );

/** Whether `file` may be served: complete and not expired. */
function live(s: Services, file: FileRecord): boolean {
  return !file.pending && (file.deletesAt === null || file.deletesAt.getTime() > s.clock.now());
}

/** The link with this code while it opens anything, and what it opens; 404 otherwise. */
async function liveShare(s: Services, code: string) {
  const share = await s.store.shares.getByCode(code);
  if (!share) throw notFound();
  if (share.expiresAt && share.expiresAt.getTime() <= s.clock.now()) throw notFound();
  if (share.maxViews !== null && share.views >= share.maxViews) throw notFound();
  const target = await targetRecord(s, share);
  if (!target) {
    await s.store.shares.delete(share.id);
    throw notFound();
  }
  if ("pending" in target && !live(s, target)) throw notFound();
  return { share, target };
}

/** The complete, unexpired files directly in `folder`, newest first. */
async function folderFiles(s: Services, folder: FolderRecord): Promise<FileRecord[]> {
  const { files } = await s.store.files.list({
    userId: folder.userId,
    folderId: folder.id,
    offset: 0,
    limit: SHARED_FOLDER_FILES,
    sortBy: "createdAt",
    order: "desc",
  });
  return files.filter((f) => live(s, f));
}

/** What `/s/<code>` shows, without counting a view; 404 for a link that opens nothing. */
export async function visitShare(
  s: Services,
  code: string,
  proof: ShareProof,
): Promise<ShareVisit> {
  const { share, target } = await liveShare(s, code);
  const locked = !await opens(s, share, proof);
  if ("pending" in target) return { kind: "file", share, locked, file: target };
  const files = locked ? [] : await folderFiles(s, target);
  return { kind: "folder", share, locked, folder: target, files };
}

/**
 * The bytes a link serves: a file link's file (`fileId` absent), or file
 * `fileId` of a folder link's folder; 403 `Password protected` without the
 * password's cookie, 404 for anything else.
 */
export async function serveShared(
  s: Services,
  code: string,
  fileId: string | null,
  req: BytesRequest,
  proof: ShareProof,
): Promise<ServeAnswer> {
  const { share, target } = await liveShare(s, code);
  if (!await opens(s, share, proof)) throw forbidden("Password protected");
  let file: FileRecord | null;
  if ("pending" in target) file = fileId === null ? target : null;
  else {
    const found = fileId === null ? null : await s.store.files.get(fileId);
    file = found && found.folderId === target.id && found.userId === target.userId ? found : null;
  }
  if (!file || !live(s, file)) throw notFound();
  return await serveThroughLink(s, file, req, viewerKey(share, proof), () => {
    return s.store.shares.addView(share.id);
  });
}

/** A folder link's files as one zip, counting one view; 403 or 404 as {@link serveShared}. */
export async function sharedArchive(
  s: Services,
  code: string,
  proof: ShareProof,
): Promise<Archive> {
  const { share, target } = await liveShare(s, code);
  if ("pending" in target) throw notFound();
  if (!await opens(s, share, proof)) throw forbidden("Password protected");
  if (await s.store.shares.addView(share.id) !== "counted") throw notFound();
  const files = await folderFiles(s, target);
  return { name: target.name, stream: zipStream(flatEntries(s, files)) };
}

/**
 * Checks a link's password (`POST /api/shares/:code/password`): 404 for a
 * link that opens nothing or has no password, 403 for a wrong one, 429 past
 * the attempts' limit. Returns the link and the grant its cookie holds.
 */
export async function verifySharePassword(
  s: Services,
  code: string,
  password: string,
  attempt: Attempt,
): Promise<{ share: ShareRecord; grant: string }> {
  const { share } = await liveShare(s, code);
  const hash = share.password;
  if (!hash) throw notFound();
  const ok = await tryPassword(
    s,
    attemptTarget(share),
    attempt,
    () => verifyPassword(password, hash),
  );
  if (!ok) throw forbidden("Incorrect password");
  return { share, grant: issueGrant(s, subject(share), attempt.ip, SHARE_ACCESS_SECONDS) };
}

/** Whether the visitor may open `share`: no password, or a live grant in its cookie. */
async function opens(s: Services, share: ShareRecord, proof: ShareProof): Promise<boolean> {
  if (!share.password) return true;
  const cookie = proof.cookie(share.id);
  if (cookie === undefined) return false;
  if (grantHolds(s, subject(share), cookie, proof.ip)) return true;
  await refuseProof(s, attemptTarget(share), proof);
  return false;
}

/** One viewer of a link, for counting its views once per window. */
function viewerKey(share: ShareRecord, proof: Attempt): string {
  return `share\0${share.id}\0${proof.ip}\0${proof.ua}`;
}

function subject(share: ShareRecord): GrantSubject {
  return { kind: "share", id: share.id, hash: share.password };
}

function attemptTarget(share: ShareRecord): AttemptTarget {
  return { kind: "share", id: share.id, name: share.id };
}
