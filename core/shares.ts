/**
 * Share links (issue #34 part 2): a user hands out a revocable link,
 * `/s/<code>`, to one of its files or folders, with an optional password,
 * expiry and view limit of its own. The code is 128 random bits (base64url),
 * so links cannot be guessed; the link opens its target whether or not the
 * target is private (`files/private.ts`), and stops at once when it is
 * revoked, expires or has had its views. Visiting one is `shared.ts`.
 */
import { newId } from "./clock.ts";
import type { FileRecord } from "../db/files.ts";
import type { FolderRecord } from "../db/folders.ts";
import type { ShareRecord, ShareTarget } from "../db/shares.ts";
import type { UserRecord } from "../db/users.ts";
import { targetOf } from "../db/shares.ts";
import { badRequest, notFound } from "./errors.ts";
import { linkOrigin } from "./links.ts";
import { hashPassword } from "./passwords.ts";
import { base64url } from "./secrets.ts";
import type { Services } from "./services.ts";

/** Random bytes in a share code: 128 bits. */
export const SHARE_CODE_BYTES = 16;

/** The most links one user may hold. */
export const MAX_SHARES_PER_USER = 1000;

/** What a new link may set. */
export interface ShareInput {
  /** `null` or absent: never expires; must lie ahead. */
  expiresAt?: Date | null;
  /** `null`, `0` or absent: no limit. */
  maxViews?: number | null;
  /** `""`, `null` or absent: none. */
  password?: string | null;
}

/** A link as its owner sees it: never its password, only whether it has one. */
export interface ShareView {
  id: string;
  code: string;
  url: string;
  createdAt: string;
  expiresAt: string | null;
  maxViews: number | null;
  views: number;
  password: boolean;
  /** What it opens: the file or folder, by id and name. */
  target: { kind: "file" | "folder"; id: string; name: string };
}

/** The file or folder `target` of `caller`'s own; 404 for any other (as a missing one). */
async function ownTarget(
  s: Services,
  caller: UserRecord,
  target: ShareTarget,
): Promise<FileRecord | FolderRecord> {
  const found = target.kind === "file"
    ? await s.store.files.get(target.id)
    : await s.store.folders.get(target.id);
  if (!found || found.userId !== caller.id) throw notFound();
  if ("pending" in found && found.pending) throw notFound();
  return found;
}

/** The view of `share`, whose target's name is `name`, with its link on `origin`. */
export function shareView(share: ShareRecord, name: string, origin: string): ShareView {
  return {
    id: share.id,
    code: share.code,
    url: `${origin}/s/${share.code}`,
    createdAt: share.createdAt.toISOString(),
    expiresAt: share.expiresAt?.toISOString() ?? null,
    maxViews: share.maxViews,
    views: share.views,
    password: share.password !== null,
    target: { ...targetOf(share), name },
  };
}

/** A name to show for a file: the name it was uploaded with, else its stored name. */
const shownName = (t: FileRecord | FolderRecord) =>
  "originalName" in t ? t.originalName ?? t.name : t.name;

/**
 * Makes a link to `caller`'s own file or folder `target` (404 for anything
 * else): 400 for an expiry not ahead or a bad view limit, past
 * {@link MAX_SHARES_PER_USER}.
 */
export async function createShare(
  s: Services,
  caller: UserRecord,
  target: ShareTarget,
  input: ShareInput,
  host: string,
): Promise<ShareView> {
  const found = await ownTarget(s, caller, target);
  const now = s.clock.now();
  if (input.expiresAt && input.expiresAt.getTime() <= now) {
    throw badRequest("expiresAt: must be in the future");
  }
  const existing = await s.store.shares.listByUser(caller.id);
  if (existing.length >= MAX_SHARES_PER_USER) {
    throw badRequest(`A user may hold at most ${MAX_SHARES_PER_USER} share links`);
  }
  const share: ShareRecord = {
    id: newId(s.random, now),
    code: base64url(s.random.bytes(SHARE_CODE_BYTES)),
    userId: caller.id,
    fileId: target.kind === "file" ? found.id : null,
    folderId: target.kind === "folder" ? found.id : null,
    password: input.password ? await hashPassword(input.password, s.random) : null,
    expiresAt: input.expiresAt ?? null,
    maxViews: input.maxViews || null,
    views: 0,
    createdAt: new Date(now),
  };
  await s.store.shares.create(share);
  s.logger.info("share link created", {
    id: share.id,
    target: targetOf(share),
    by: caller.username,
  });
  return shareView(share, shownName(found), linkOrigin(s, undefined, host));
}

/**
 * `caller`'s links, oldest first, each with its target's name; with
 * `target`, only the links to it. A link whose target is gone (a store
 * without cascades, a file removed around the core) is removed and left out.
 */
export async function listShares(
  s: Services,
  caller: UserRecord,
  host: string,
  target?: ShareTarget,
): Promise<ShareView[]> {
  const origin = linkOrigin(s, undefined, host);
  const views: ShareView[] = [];
  for (const share of await s.store.shares.listByUser(caller.id)) {
    const t = targetOf(share);
    if (target && (t.kind !== target.kind || t.id !== target.id)) continue;
    const found = await targetRecord(s, share);
    if (!found) {
      await s.store.shares.delete(share.id);
      continue;
    }
    views.push(shareView(share, shownName(found), origin));
  }
  return views;
}

/** The file or folder `share` opens, while it is its owner's; `null` once gone. */
export async function targetRecord(
  s: Services,
  share: ShareRecord,
): Promise<FileRecord | FolderRecord | null> {
  const found = share.fileId !== null
    ? await s.store.files.get(share.fileId)
    : await s.store.folders.get(share.folderId!);
  return found && found.userId === share.userId ? found : null;
}

/** Revokes `caller`'s link `id`, at once; 404 for another's or a missing one. */
export async function revokeShare(
  s: Services,
  caller: UserRecord,
  id: string,
  host: string,
): Promise<ShareView> {
  const share = await s.store.shares.get(id);
  if (!share || share.userId !== caller.id) throw notFound();
  const found = await targetRecord(s, share);
  await s.store.shares.delete(share.id);
  s.logger.info("share link revoked", { id: share.id, by: caller.username });
  return shareView(share, found ? shownName(found) : "", linkOrigin(s, undefined, host));
}
