/**
 * A user's files (reference §4.3): list, get, change, delete, and the bulk
 * favorite and delete. A caller acts on its own files, and an administrator
 * on those of users it manages (`canManage`) and on orphaned ones; any other
 * file answers 404, exactly as a missing one, so nobody learns it exists.
 * Moving files into folders is in `folder_files.ts`; tags are in `tags.ts`.
 */
import type {
  FilePatch,
  FileQuery,
  FileRecord,
  FileSearchField,
  FileSortKey,
} from "../../db/files.ts";
import type { UserRecord } from "../../db/users.ts";
import { UniqueError } from "../../db/errors.ts";
import type { TagRecord } from "../../db/tags.ts";
import { ApiError, badRequest, notFound } from "../errors.ts";
import { hashPassword } from "../passwords.ts";
import { canManage, isAdministrator } from "../roles.ts";
import type { Services } from "../services.ts";
import type { Settings } from "../settings/registry.ts";
import { routeLink } from "../links.ts";
import { linkedName } from "./extensionless.ts";
import { normalizeType, storedType } from "./media_type.ts";
import { sanitizeFilename } from "./naming.ts";
import { type BytesRequest, removeFile, type ServeAnswer, serveOwnedFile } from "./serve.ts";
import { DELETE_BATCH, removeFilesById, yieldTurn } from "./bulk_delete.ts";
import { checkTags, tagSummary } from "./tags.ts";
import { parseThumbnailName } from "./thumbnails.ts";

/**
 * The fields of a file record that the API's view and the export both show
 * as they are (dates as ISO strings). Each adds its own: the password, for
 * one, is only a flag in the view and the hash in the instance export.
 */
export function fileFields(f: FileRecord) {
  return {
    id: f.id,
    name: f.name,
    originalName: f.originalName,
    size: f.size,
    type: f.type,
    views: f.views,
    maxViews: f.maxViews,
    favorite: f.favorite,
    folderId: f.folderId,
    deletesAt: f.deletesAt?.toISOString() ?? null,
    createdAt: f.createdAt.toISOString(),
  };
}

/** A file as the API shows it: the password only as a flag. */
export function fileView(settings: Settings, f: FileRecord) {
  return {
    ...fileFields(f),
    type: storedType(f.type),
    password: f.password !== null,
    anonymous: f.anonymous,
    private: f.private === true,
    thumbnail: f.thumbnail ? { path: f.thumbnail } : null,
    updatedAt: f.updatedAt.toISOString(),
    url: routeLink("", settings.filesRoute, linkedName(settings, f.name)),
    ...(f.uploaderName ? { uploaderName: f.uploaderName } : {}),
  };
}

/** A file's API shape. */
export type FileView = ReturnType<typeof fileView>;

/** Types the dashboard filter keeps. */
const DASHBOARD_TYPES = ["image/", "video/", "audio/", "text/"];

/** A files list request, as `GET /api/user/files` takes it. */
export interface ListInput {
  page: number;
  perpage: number;
  filter: "dashboard" | "none" | "all";
  favorite?: boolean;
  sortBy: FileSortKey;
  order: "asc" | "desc";
  /** `tags`: files carrying all the comma-separated tag ids of `searchQuery`. */
  searchField: FileSearchField | "tags";
  searchQuery?: string;
  /** Whose files: another user's needs `canManage`. */
  userId?: string;
  folderId?: string;
}

/** One page of a user's files, with totals, and the search when there was one. */
export async function listFiles(s: Services, caller: UserRecord, input: ListInput) {
  const userId = input.userId ?? caller.id;
  if (userId !== caller.id) {
    const owner = await s.store.users.get(userId);
    if (!owner || !canManage(caller.role, owner.role)) throw notFound();
  }
  if (input.folderId !== undefined) {
    const folder = await s.store.folders.get(input.folderId);
    if (!folder || folder.userId !== userId) throw notFound();
  }
  const { searchField: field, searchQuery } = input;
  const tagIds = field === "tags" && searchQuery ? searchQuery.split(",").map((t) => t.trim()) : [];
  if (tagIds.length > 0) await checkTags(s, userId, tagIds);
  const query: FileQuery = {
    userId,
    offset: (input.page - 1) * input.perpage,
    limit: input.perpage,
    sortBy: input.sortBy,
    order: input.order,
    favorite: input.filter === "all" ? undefined : input.favorite,
    typePrefixes: input.filter === "dashboard" ? DASHBOARD_TYPES : undefined,
    folderId: input.folderId,
    tagIds: tagIds.length > 0 ? [...new Set(tagIds)] : undefined,
    search: searchQuery && field !== "tags" ? { field, query: searchQuery } : undefined,
  };
  const { files, total } = await s.store.files.list(query);
  return {
    page: await taggedViews(s, files),
    total,
    pages: Math.ceil(total / input.perpage),
    ...(searchQuery ? { search: { field, query: field === "tags" ? tagIds : searchQuery } } : {}),
  };
}

/** A file's view with its tags, as Zipline sends files in lists and folders. */
export function taggedView(settings: Settings, f: FileRecord, tags: TagRecord[] = []) {
  return { ...fileView(settings, f), tags: tags.map(tagSummary) };
}

/** A file's API shape with its tags. */
export type TaggedFileView = ReturnType<typeof taggedView>;

/** The views of `files`, each with its tags. */
export async function taggedViews(s: Services, files: FileRecord[]) {
  const tags = await s.store.tags.tagsOfFiles(files.map((f) => f.id));
  const settings = s.settings.all();
  return files.map((f) => taggedView(settings, f, tags.get(f.id)));
}

/** Whether `caller` may act on `file`: its own, a managed user's, or (administrators) an orphan. */
async function mayActOn(s: Services, caller: UserRecord, file: FileRecord): Promise<boolean> {
  if (file.pending) return false;
  if (file.userId === caller.id) return true;
  if (file.userId === null) return isAdministrator(caller.role);
  const owner = await s.store.users.get(file.userId);
  return owner !== null && canManage(caller.role, owner.role);
}

/** The file with this id or name that `caller` may act on; 404 otherwise. */
export async function findFile(
  s: Services,
  caller: UserRecord,
  idOrName: string,
): Promise<FileRecord> {
  const file = await s.store.files.get(idOrName) ?? await s.store.files.getByName(idOrName);
  if (!file || !await mayActOn(s, caller, file)) throw notFound();
  return file;
}

/**
 * `GET /api/user/files/:id/raw`: the bytes of the file `idOrPath` (its id or
 * name) of someone `caller` may act on or, given such a file's thumbnail path,
 * that thumbnail; 404 otherwise.
 */
export async function serveFileOfUser(
  s: Services,
  caller: UserRecord,
  idOrPath: string,
  req: BytesRequest,
): Promise<ServeAnswer> {
  const thumbnail = parseThumbnailName(idOrPath);
  const file = await findFile(s, caller, thumbnail?.fileId ?? idOrPath);
  return await serveOwnedFile(s, file, req, thumbnail ? idOrPath : undefined);
}

/** What `PATCH /api/user/files/:id` may change. */
export interface FileChange {
  favorite?: boolean;
  /** `0` or `null` removes the limit. */
  maxViews?: number | null;
  /** `""` or `null` removes the password. */
  password?: string | null;
  originalName?: string | null;
  type?: string;
  /** A new name: the stored object is renamed with it. */
  name?: string;
  /** Tag ids of the file owner's: they replace the file's tags. */
  tags?: string[];
  /** Served to nobody but the owner (`private.ts`). */
  private?: boolean;
}

/** Changes a file; a new name must be free and is applied to the stored bytes too. */
export async function updateFile(
  s: Services,
  caller: UserRecord,
  idOrName: string,
  change: FileChange,
): Promise<FileRecord> {
  const file = await findFile(s, caller, idOrName);
  const clean = (value: string, field: string) => {
    const name = sanitizeFilename(value);
    if (name === null) throw badRequest(`${field}: invalid file name`);
    return name;
  };
  const name = change.name === undefined ? undefined : clean(change.name, "name");
  const type = change.type === undefined ? undefined : normalizeType(change.type);
  if (type === null) throw badRequest("type: invalid file type");
  if (change.tags) {
    if (file.userId === null && change.tags.length > 0) throw badRequest("Invalid tag specified");
    if (file.userId !== null) await checkTags(s, file.userId, change.tags);
  }
  const now = new Date(s.clock.now());
  let updated: FileRecord | null;
  try {
    updated = await s.store.files.update(file.id, {
      favorite: change.favorite,
      maxViews: change.maxViews === undefined ? undefined : change.maxViews || null,
      password: change.password === undefined
        ? undefined
        : change.password
        ? await hashPassword(change.password, s.random)
        : null,
      originalName: change.originalName === undefined
        ? undefined
        : change.originalName && clean(change.originalName, "originalName"),
      type,
      name,
      private: change.private,
    }, now);
  } catch (error) {
    if (error instanceof UniqueError) throw badRequest("File with this name already exists");
    throw error;
  }
  if (!updated) throw notFound();
  if (name !== undefined && name !== file.name) await renameBytes(s, file, updated, now);
  if (change.tags) await s.store.tags.setFileTags(file.id, change.tags);
  return updated;
}

/** Moves the bytes after the record; puts the record's name back if the datasource fails. */
async function renameBytes(s: Services, before: FileRecord, after: FileRecord, now: Date) {
  try {
    await s.datasource.rename(before.name, after.name);
  } catch (error) {
    s.logger.error("datasource rename failed", { from: before.name, to: after.name, error });
    await s.store.files.update(before.id, { name: before.name }, now);
    throw new ApiError(500, "Failed to rename file in datasource");
  }
}

/** Deletes a file: the record, then its bytes. */
export async function deleteFile(
  s: Services,
  caller: UserRecord,
  idOrName: string,
): Promise<FileRecord> {
  const file = await findFile(s, caller, idOrName);
  await removeFile(s, file);
  return file;
}

/** Records one read of {@link actionable} asks for. */
const READ_BATCH = 500;

/**
 * The files among `ids` the caller may act on, read a batch at a time (each
 * owner asked about once); the others are passed over as missing.
 */
async function actionable(s: Services, caller: UserRecord, ids: string[]) {
  const wanted = [...new Set(ids)];
  const files: FileRecord[] = [];
  const mayActOnOwner = new Map<string | null, boolean>();
  for (let i = 0; i < wanted.length; i += READ_BATCH) {
    for (const file of await s.store.files.getMany(wanted.slice(i, i + READ_BATCH))) {
      if (file.pending) continue;
      let may = mayActOnOwner.get(file.userId);
      if (may === undefined) mayActOnOwner.set(file.userId, may = await mayActOn(s, caller, file));
      if (may) files.push(file);
    }
  }
  return files;
}

/** The flags a bulk change sets on files. */
export type FileFlags = Pick<FilePatch, "favorite" | "private">;

/** Sets `favorite` and/or `private` on the given files; returns how many were updated. */
export async function flagFiles(
  s: Services,
  caller: UserRecord,
  ids: string[],
  flags: FileFlags,
): Promise<number> {
  const now = new Date(s.clock.now());
  let count = 0;
  for (const file of await actionable(s, caller, ids)) {
    if (await s.store.files.update(file.id, flags, now)) count++;
  }
  return count;
}

/**
 * Deletes the given files' records, and their bytes only when `deleteBytes`
 * (Zipline's `delete_datasourceFiles`: the bytes may be kept for a re-import).
 */
export async function deleteFiles(
  s: Services,
  caller: UserRecord,
  ids: string[],
  deleteBytes: boolean,
): Promise<number> {
  const files = await actionable(s, caller, ids);
  return (await removeFilesById(s, files.map((f) => f.id), { bytes: deleteBytes })).length;
}

/**
 * What becomes of a deleted user's files: with `deleteContent` they go,
 * records and bytes; without, they stay, without an owner.
 */
export async function releaseUserFiles(
  s: Services,
  userId: string,
  deleteContent: boolean,
): Promise<void> {
  if (!deleteContent) return await s.store.files.disown(userId);
  // A page at a time, never the whole list: what a page removes leaves the next.
  while (true) {
    const page = await s.store.files.candidates({ kind: "owned", userId }, DELETE_BATCH);
    if (page.length === 0) return;
    const removed = await removeFilesById(s, page.map((f) => f.id));
    if (removed.length === 0) return;
    await yieldTurn();
  }
}
