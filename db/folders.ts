/**
 * Folders: a tree per user. A folder's name is unique among its owner's
 * folders (as Zipline's import rule has it), its parent is one of its owner's
 * folders, and no folder lies below itself. The store enforces all three
 * atomically: every change to a user's folders is checked against that
 * user's whole tree as it stands at the change, with the helpers below, by
 * both backends. Files point at folders by `FileRecord.folderId`; moving them
 * is the caller's business (`core/files/folders.ts`, `folder_files.ts`), in the same
 * {@link Store.transaction}.
 */
import { UniqueError } from "./errors.ts";

/** A folder as stored. */
export interface FolderRecord {
  id: string;
  name: string;
  /** Anyone may see it and its files at `/api/server/folder/:id`. */
  public: boolean;
  /** Anyone may upload into it without an account (the files are the owner's). */
  allowUploads: boolean;
  /** `null` at the root. */
  parentId: string | null;
  userId: string;
  /**
   * Its page is shown to nobody (as if not public) and its files are served to
   * nobody but the owner (and through share links); absent means `false`.
   */
  private?: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** The fields {@link FolderStore.update} may change. */
export type FolderPatch = Partial<
  Pick<FolderRecord, "name" | "public" | "allowUploads" | "parentId" | "private">
>;

/** What becomes of a removed folder's subfolders. */
export interface FolderRemoval {
  /** `true`: every folder below it is removed too; `false`: its subfolders move to `moveTo`. */
  subtree: boolean;
  /** The new parent of the kept subfolders: one of the owner's folders, or `null` (the root). */
  moveTo: string | null;
}

/** Thrown when a change would break the tree; nothing was written. */
export class FolderTreeError extends Error {
  constructor(
    /** `parent`: the parent is missing or another user's; `cycle`: it lies below the folder. */
    readonly reason: "parent" | "cycle",
  ) {
    super(reason === "parent" ? "no such parent folder" : "a folder cannot be below itself");
    this.name = "FolderTreeError";
  }
}

/** Folder records. */
export interface FolderStore {
  /** Adds `folder`; {@link UniqueError} (`name`) or {@link FolderTreeError} (`parent`). */
  create(folder: FolderRecord): Promise<void>;
  /** The folder with this id, or `null`. */
  get(id: string): Promise<FolderRecord | null>;
  /** Every folder of any user with exactly this name, oldest first. */
  listByName(name: string): Promise<FolderRecord[]>;
  /** Every folder of a user, oldest first. */
  listByUser(userId: string): Promise<FolderRecord[]>;
  /**
   * Applies `patch`, bumping `updatedAt`; `null` when missing. Throws
   * {@link UniqueError} (`name`) or {@link FolderTreeError}.
   */
  update(id: string, patch: FolderPatch, now: Date): Promise<FolderRecord | null>;
  /**
   * Removes the folder (and, with `subtree`, every folder below it; else its
   * subfolders move to `moveTo`) in one atomic change. Returns the removed
   * folders, this one first, or `null` when missing. Throws
   * {@link FolderTreeError} when `moveTo` is missing, another user's, or the
   * folder itself or below it.
   */
  delete(id: string, removal: FolderRemoval, now: Date): Promise<FolderRecord[] | null>;
  /** Removes every folder of a user. */
  deleteByUser(userId: string): Promise<void>;
  /** Every folder of the instance, read a page at a time (exports). */
  iterate(): AsyncIterable<FolderRecord>;
}

/**
 * Folders as the service reads them: a {@link FolderStore} behind the serving
 * store (`serving.ts`), which adds public serving's cached read.
 */
export interface ServingFolderStore extends FolderStore {
  /**
   * {@link FolderStore.get} as answered at most a second ago (every folder
   * write through this store clears it): whether a file's folder is private.
   */
  getCached(id: string): Promise<FolderRecord | null>;
  /** What {@link getCached} holds for `id` now, without loading; `undefined` when nothing. */
  peekCached(id: string): FolderRecord | null | undefined;
}

/** The ids of folder `id` and of every folder below it among `folders`. */
export function subtreeIds(folders: FolderRecord[], id: string): string[] {
  const ids = [id];
  for (let i = 0; i < ids.length; i++) {
    for (const f of folders) if (f.parentId === ids[i] && !ids.includes(f.id)) ids.push(f.id);
  }
  return ids;
}

/**
 * Checks `next` (a new or changed folder) against its owner's other folders:
 * name free, parent among them and not below `next`. Both stores call it
 * while holding the owner's tree.
 */
export function checkFolder(folders: FolderRecord[], next: FolderRecord): void {
  if (folders.some((f) => f.id !== next.id && f.name === next.name)) {
    throw new UniqueError("name");
  }
  if (next.parentId === null) return;
  if (!folders.some((f) => f.id === next.parentId && f.userId === next.userId)) {
    throw new FolderTreeError("parent");
  }
  if (subtreeIds(folders, next.id).includes(next.parentId)) throw new FolderTreeError("cycle");
}

/**
 * What removing `id` from its owner's `folders` does: the removed folders
 * (`id` first) and the kept subfolders, reparented at `now`.
 */
export function planRemoval(
  folders: FolderRecord[],
  id: string,
  removal: FolderRemoval,
  now: Date,
): { removed: FolderRecord[]; moved: FolderRecord[] } {
  const ids = removal.subtree ? subtreeIds(folders, id) : [id];
  const { moveTo } = removal;
  if (moveTo !== null) {
    if (!folders.some((f) => f.id === moveTo)) throw new FolderTreeError("parent");
    if (subtreeIds(folders, id).includes(moveTo)) throw new FolderTreeError("cycle");
  }
  const removed = ids.map((i) => folders.find((f) => f.id === i)!);
  const moved = removal.subtree ? [] : folders
    .filter((f) => f.parentId === id)
    .map((f) => ({ ...f, parentId: moveTo, updatedAt: now }));
  return { removed, moved };
}
