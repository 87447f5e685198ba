/**
 * Share links (`core/shares.ts`): a user's revocable links to one of its
 * files or folders, each found by its unguessable code, with an optional
 * password (an argon2 hash), expiry and view limit of its own.
 */
import type { ViewResult } from "./files.ts";

/** One share link as stored. Exactly one of `fileId` and `folderId` is set. */
export interface ShareRecord {
  id: string;
  /** The link's secret, URL-safe part (`/s/<code>`); unique. */
  code: string;
  userId: string;
  fileId: string | null;
  folderId: string | null;
  /** An argon2 hash; never leaves the server but in the instance export. */
  password: string | null;
  /** `null`: never expires. */
  expiresAt: Date | null;
  /** `null`: no limit. */
  maxViews: number | null;
  views: number;
  createdAt: Date;
}

/** What a share points at. */
export type ShareTarget = { kind: "file" | "folder"; id: string };

/** Share links, as each backend stores them. */
export interface ShareStore {
  /** Adds a link; throws `UniqueError("code")` when its code (or id) is taken. */
  create(share: ShareRecord): Promise<void>;
  /** The link with this id, or `null`. */
  get(id: string): Promise<ShareRecord | null>;
  /** The link with this code, or `null`: the lookup of every visit. */
  getByCode(code: string): Promise<ShareRecord | null>;
  /** A user's links, oldest first. */
  listByUser(userId: string): Promise<ShareRecord[]>;
  /**
   * Counts one view unless the link is missing or already at its `maxViews`;
   * atomic, so concurrent visitors never pass `maxViews`.
   */
  addView(id: string): Promise<ViewResult>;
  /** Removes link `id`; the removed record, or `null`. */
  delete(id: string): Promise<ShareRecord | null>;
  /** Removes every link to `target`; how many there were. */
  deleteByTarget(target: ShareTarget): Promise<number>;
  /** Removes every link to the files `fileIds` (a bulk delete); how many there were. */
  deleteByFiles(fileIds: string[]): Promise<number>;
  /** Removes every link of the user; how many there were. */
  deleteByUser(userId: string): Promise<number>;
  /** Every link of the instance, read a page at a time (exports). */
  iterate(): AsyncIterable<ShareRecord>;
}

/** The target of `share`. */
export function targetOf(share: ShareRecord): ShareTarget {
  return share.fileId !== null
    ? { kind: "file", id: share.fileId }
    : { kind: "folder", id: share.folderId! };
}
