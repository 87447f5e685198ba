/**
 * Folders (reference §4.4, §5.7): a tree per user, and its views. A caller
 * acts on its own folders and an administrator on those of users it manages
 * (`canManage`); any other folder answers 404, like a missing one. A folder's
 * files are its owner's: an upload into a folder is stored as the folder
 * owner's. Removing a folder never removes a file unless asked
 * (`cascade-files`): its files move to the root or to the target folder, in
 * the same transaction as the folder change. Moving files into and out of
 * folders is in `folder_files.ts`; the public page of a folder in
 * `public_folder.ts`.
 */
import type { FileRecord, FileStore } from "../../db/files.ts";
import { type FolderRecord, type FolderRemoval, FolderTreeError } from "../../db/folders.ts";
import type { UserRecord } from "../../db/users.ts";
import { UniqueError } from "../../db/errors.ts";
import { newId } from "../clock.ts";
import { badRequest, forbidden, notFound } from "../errors.ts";
import { canManage } from "../roles.ts";
import type { Services } from "../services.ts";
import type { TagRecord } from "../../db/tags.ts";
import { type TaggedFileView, taggedView } from "./manage.ts";

/** Who owns an upload's files and where they go. */
export interface UploadTarget {
  owner: UserRecord;
  /** Who sent the upload (the webhooks' `user`); `null` without credentials. */
  uploader: UserRecord | null;
  folderId: string | null;
  anonymous: boolean;
}

/**
 * The target of an upload by `user` (`null`: no credentials) into `folderId`.
 * The folder's owner, or a user managing it, uploads as the owner; anyone
 * else, anonymous or not, only into a folder that allows uploads, and then
 * the files are the owner's, marked `anonymous`. Otherwise, and for an
 * unknown folder (so that nobody learns which ids exist), 403 `folder is not
 * open`.
 */
export async function uploadTarget(
  s: Services,
  user: UserRecord | null,
  folderId: string | null,
): Promise<UploadTarget> {
  if (folderId === null) {
    if (!user) throw forbidden("folder is not open");
    return { owner: user, uploader: user, folderId: null, anonymous: false };
  }
  const folder = await s.store.folders.get(folderId);
  const owner = folder && await s.store.users.get(folder.userId);
  if (!folder || !owner) throw forbidden("folder is not open");
  if (user && (user.id === owner.id || canManage(user.role, owner.role))) {
    return { owner, uploader: user, folderId, anonymous: false };
  }
  if (!folder.allowUploads) throw forbidden("folder is not open");
  return { owner, uploader: user, folderId, anonymous: true };
}

/** The folder with this id that `caller` may act on; 404 otherwise. */
export async function findFolder(
  s: Services,
  caller: UserRecord,
  id: string,
): Promise<FolderRecord> {
  const folder = await s.store.folders.get(id);
  if (!folder || !await mayManageUser(s, caller, folder.userId)) throw notFound();
  return folder;
}

/** Whether `caller` may act on the things of user `userId`: itself or a user it manages. */
async function mayManageUser(s: Services, caller: UserRecord, userId: string) {
  if (userId === caller.id) return true;
  const owner = await s.store.users.get(userId);
  return owner !== null && canManage(caller.role, owner.role);
}

/** A folder's parent, as the API shows it. */
export interface ParentView {
  id: string;
  name: string;
  parentId: string | null;
  /** The parent's own parent; only in a single folder's view. */
  parent?: ParentView | null;
}

/** A folder as the API shows it. */
export interface FolderView {
  id: string;
  name: string;
  public: boolean;
  allowUploads: boolean;
  /** Shown to nobody, its files served to nobody but the owner (`private.ts`). */
  private: boolean;
  parentId: string | null;
  userId: string;
  createdAt: string;
  updatedAt: string;
  _count: { children: number; files: number };
  parent: ParentView | null;
  files?: TaggedFileView[];
  children?: FolderView[];
}

/** A user's folders and complete files, to shape views from one read of each. */
export interface Tree {
  folders: FolderRecord[];
  /** How many complete files each folder holds, by folder id. */
  counts: Map<string, number>;
  /** The complete files of the folders shown, newest first. */
  files: FileRecord[];
  /** The tags of the files a view lists, by file id. */
  tags: Map<string, TagRecord[]>;
}

/**
 * The tree of `userId`: its folders, each one's count of files, and the
 * files (with their tags) of the folders `shown` names (`true`: every
 * folder), those whose files a view will list. Each folder is read through
 * the store's files list (its index and count, issue #32), never the owner's
 * whole catalogue.
 */
export async function treeOf(s: Services, userId: string, shown: string | boolean): Promise<Tree> {
  const folders = await s.store.folders.listByUser(userId);
  const counts = new Map<string, number>();
  const files: FileRecord[] = [];
  for (const folder of folders) {
    const listed = shown === true || shown === folder.id;
    const page = await s.store.files.list({
      userId,
      folderId: folder.id,
      sortBy: "createdAt",
      order: "desc",
      offset: 0,
      limit: listed ? Number.MAX_SAFE_INTEGER : 1,
    });
    counts.set(folder.id, page.total);
    if (listed) files.push(...page.files);
  }
  const tags = await s.store.tags.tagsOfFiles(files.map((f) => f.id));
  return { folders, counts, files, tags };
}

/** The view of `folder`; `chain` gives the whole parent chain instead of the parent alone. */
export function folderView(
  s: Services,
  tree: Tree,
  folder: FolderRecord,
  withFiles: boolean,
  chain = false,
): FolderView {
  const files = tree.files.filter((f) => f.folderId === folder.id);
  const settings = s.settings.all();
  return {
    id: folder.id,
    name: folder.name,
    public: folder.public,
    allowUploads: folder.allowUploads,
    private: folder.private === true,
    parentId: folder.parentId,
    userId: folder.userId,
    createdAt: folder.createdAt.toISOString(),
    updatedAt: folder.updatedAt.toISOString(),
    _count: {
      children: tree.folders.filter((f) => f.parentId === folder.id).length,
      files: tree.counts.get(folder.id) ?? 0,
    },
    parent: parentView(tree.folders, folder.parentId, chain),
    ...(withFiles ? { files: files.map((f) => taggedView(settings, f, tree.tags.get(f.id))) } : {}),
  };
}

/** The view of folder `id`'s entry in `folders`; `chain` adds its parents' up to the root. */
export function parentView(
  folders: FolderRecord[],
  id: string | null,
  chain: boolean,
): ParentView | null {
  const parent = folders.find((f) => f.id === id);
  if (!parent) return null;
  const view = { id: parent.id, name: parent.name, parentId: parent.parentId };
  return chain ? { ...view, parent: parentView(folders, parent.parentId, true) } : view;
}

/** What `GET /api/user/folders` asks for. */
export interface FolderListInput {
  /** Whose folders: another user's needs `canManage`. */
  userId?: string;
  parentId?: string;
  /** Only top-level folders. */
  root?: boolean;
  withFiles: boolean;
}

/** A user's folders, newest first, with their counts and (unless asked not to) files. */
export async function listFolders(
  s: Services,
  caller: UserRecord,
  input: FolderListInput,
): Promise<FolderView[]> {
  const userId = input.userId ?? caller.id;
  if (!await mayManageUser(s, caller, userId)) throw notFound();
  const tree = await treeOf(s, userId, input.withFiles);
  return tree.folders
    .filter((f) => !input.root || f.parentId === null)
    .filter((f) => input.parentId === undefined || f.parentId === input.parentId)
    .reverse()
    .map((f) => folderView(s, tree, f, input.withFiles));
}

/** One folder with its files, its subfolders and its whole parent chain. */
export async function getFolder(
  s: Services,
  caller: UserRecord,
  id: string,
  withFiles: boolean,
): Promise<FolderView> {
  const folder = await findFolder(s, caller, id);
  const tree = await treeOf(s, folder.userId, withFiles && folder.id);
  return {
    ...folderView(s, tree, folder, withFiles, true),
    children: tree.folders.filter((f) => f.parentId === folder.id)
      .map((f) => folderView(s, tree, f, false)),
  };
}

/** What a new folder is made of. */
export interface NewFolder {
  name: string;
  isPublic?: boolean;
  /** Files of the caller's to put into it at once. */
  files?: string[];
  parentId?: string | null;
}

/** Creates one of the caller's folders, optionally holding some of its files. */
export async function createFolder(
  s: Services,
  caller: UserRecord,
  input: NewFolder,
): Promise<FolderView> {
  const files = input.files ? await ownFiles(s, caller.id, input.files) : [];
  if (input.files && files.length === 0) throw badRequest("No files found for the given request");
  const parentId = input.parentId ?? null;
  if (parentId !== null) await checkParent(s, caller.id, parentId);
  const now = new Date(s.clock.now());
  const folder: FolderRecord = {
    id: newId(s.random, now.getTime()),
    name: input.name,
    public: input.isPublic ?? false,
    allowUploads: false,
    parentId,
    userId: caller.id,
    createdAt: now,
    updatedAt: now,
  };
  await treeChange(() => s.store.folders.create(folder));
  for (const file of files) await s.store.files.update(file.id, { folderId: folder.id }, now);
  return folderView(s, await treeOf(s, caller.id, folder.id), folder, true);
}

/** The complete files among `ids` that belong to `userId`. */
export async function ownFiles(s: Services, userId: string, ids: string[]): Promise<FileRecord[]> {
  const files: FileRecord[] = [];
  for (const id of new Set(ids)) {
    const file = await s.store.files.get(id);
    if (file && !file.pending && file.userId === userId) files.push(file);
  }
  return files;
}

/** 404 when the parent is missing, 403 when it is not a folder of `userId`. */
async function checkParent(s: Services, userId: string, parentId: string): Promise<void> {
  const parent = await s.store.folders.get(parentId);
  if (!parent) throw notFound("Parent folder not found");
  if (parent.userId !== userId) throw forbidden("Parent folder does not belong to you");
}

/** Runs a store change of a tree, answering its refusals as 400s. */
async function treeChange<T>(change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (error instanceof UniqueError) throw badRequest("A folder with this name already exists");
    if (error instanceof FolderTreeError) {
      throw badRequest(
        error.reason === "cycle"
          ? "Cannot move folder into one of its descendants"
          : "Parent folder not found",
      );
    }
    throw error;
  }
}

/** What `PATCH /api/user/folders/:id` may change; `parentId: null` moves it to the root. */
export interface FolderChange {
  name?: string;
  isPublic?: boolean;
  allowUploads?: boolean;
  /** Hides it and its files from everyone but the owner (`private.ts`). */
  private?: boolean;
  parentId?: string | null;
}

/** Renames, opens, closes or moves a folder. */
export async function updateFolder(
  s: Services,
  caller: UserRecord,
  id: string,
  change: FolderChange,
): Promise<FolderView> {
  const folder = await findFolder(s, caller, id);
  if (change.parentId === folder.id) throw badRequest("A folder cannot be its own parent");
  if (change.parentId) await checkParent(s, folder.userId, change.parentId);
  const updated = await treeChange(() =>
    s.store.folders.update(folder.id, {
      name: change.name,
      public: change.isPublic,
      allowUploads: change.allowUploads,
      private: change.private,
      parentId: change.parentId,
    }, new Date(s.clock.now()))
  );
  if (!updated) throw notFound();
  return folderView(s, await treeOf(s, folder.userId, folder.id), updated, true);
}

/**
 * What becomes of a deleted folder's subfolders and files: `root` (the
 * default) moves both to the root, `folder` into `targetFolderId`; `cascade`
 * deletes the subfolders too and moves all their files to the root;
 * `cascade-files` deletes the subfolders and every file in the tree.
 */
export type ChildrenAction = "root" | "folder" | "cascade" | "cascade-files";

/**
 * Deletes a folder; no file goes unless `cascade-files` asks for it. A file
 * that leaves a private folder this way stays private, and the links shared
 * to the removed folders (and files) go.
 */
export async function deleteFolder(
  s: Services,
  caller: UserRecord,
  id: string,
  action: ChildrenAction = "root",
  targetFolderId?: string,
): Promise<void> {
  const folder = await findFolder(s, caller, id);
  let moveTo: string | null = null;
  if (action === "folder") {
    if (!targetFolderId) throw badRequest("targetFolderId is required");
    const target = await s.store.folders.get(targetFolderId);
    if (!target || target.userId !== folder.userId) throw notFound("Target folder not found");
    moveTo = target.id;
  }
  const removal: FolderRemoval = { subtree: action.startsWith("cascade"), moveTo };
  const deleteFiles = action === "cascade-files";
  const now = new Date(s.clock.now());
  const deleted: FileRecord[] = [];
  await treeChange(() =>
    s.store.transaction(async (tx) => {
      const removed = await tx.folders.delete(folder.id, removal, now);
      if (!removed) throw notFound();
      const ids = new Set(removed.map((f) => f.id));
      const hidden = new Set(removed.filter((f) => f.private).map((f) => f.id));
      for (const id of ids) {
        await emptyFolder(tx.files, folder.userId, id, async (file) => {
          if (!deleteFiles) {
            const keepPrivate = hidden.has(id) ? { private: true } : {};
            await tx.files.update(file.id, { folderId: moveTo, ...keepPrivate }, now);
          } else if (await tx.files.delete(file.id)) {
            await tx.shares.deleteByTarget({ kind: "file", id: file.id });
            deleted.push(file);
          }
        });
      }
      for (const id of ids) await tx.shares.deleteByTarget({ kind: "folder", id });
    })
  );
  for (const file of deleted) {
    await s.datasource.delete(file.name).catch((error) =>
      s.logger.error("could not delete file bytes", { name: file.name, error })
    );
  }
}

/** The files a folder's removal reads at once. */
const EMPTYING_PAGE = 200;

/**
 * Takes every file of `userId` out of its folder `folderId` (pending ones
 * included): reads them a page at a time from the folder's index (issue #32:
 * never every file of the user) and hands each to `takeOut`, which must move
 * or delete it, as each page starts over. Stops when a page brings no file it
 * has not seen (one `takeOut` could not take out).
 */
async function emptyFolder(
  files: FileStore,
  userId: string,
  folderId: string,
  takeOut: (file: FileRecord) => Promise<void>,
): Promise<void> {
  const seen = new Set<string>();
  while (true) {
    const page = (await files.candidates({ kind: "foldered", userId, folderId }, EMPTYING_PAGE))
      .filter((file) => !seen.has(file.id));
    if (page.length === 0) return;
    for (const file of page) {
      seen.add(file.id);
      await takeOut(file);
    }
  }
}

/**
 * Before a user is deleted: its files leave its folders (to the root; those of
 * a private folder stay private), then the folders go, in one transaction.
 */
export async function releaseUserFolders(s: Services, userId: string): Promise<void> {
  const now = new Date(s.clock.now());
  await s.store.transaction(async (tx) => {
    for (const folder of await tx.folders.listByUser(userId)) {
      const keepPrivate = folder.private ? { private: true } : {};
      await emptyFolder(tx.files, userId, folder.id, async (file) => {
        await tx.files.update(file.id, { folderId: null, ...keepPrivate }, now);
      });
    }
    await tx.folders.deleteByUser(userId);
  });
}
