/// <reference lib="dom" />
/**
 * The files, folders and tags calls of the dashboard, typed from the server's
 * zod schemas (type-only imports of routes/): the pages hold no URL and no
 * hand-written answer type.
 */
import type { z } from "zod";
import type { FilePatchBody, FilesDeleteBody, FilesPatchBody } from "../../routes/files.ts";
import type {
  FolderCreateBody,
  FolderDeleteBody,
  FolderPatchBody,
  FolderSchema,
  PublicFolderPageSchema,
} from "../../routes/folders.ts";
import type { TagCreateBody, TagPatchBody, TagSchema } from "../../routes/tags.ts";
import { api, type ApiFile, failureOf, type FilePage } from "../api.ts";

export type { ApiFile, FilePage };

/** A folder (`FolderSchema` of routes/folders.ts). */
export type Folder = z.infer<typeof FolderSchema>;
/** A tag (`TagSchema` of routes/tags.ts). */
export type Tag = z.infer<typeof TagSchema>;

/** The keys a list sorts by. */
export type SortKey = "createdAt" | "name" | "size" | "views" | "type";
/** Where a search looks. */
export type SearchField = "name" | "originalName" | "type" | "id" | "tags";

/** What `GET /api/user/files` is asked. */
export interface FileListQuery {
  page: number;
  perpage: number;
  sortBy: SortKey;
  order: "asc" | "desc";
  searchField?: SearchField;
  searchQuery?: string;
  favorite?: boolean;
  folder?: string | null;
  /** Another user's files (an administrator's view). */
  user?: string | null;
}

/** A change of one file (`PATCH /api/user/files/{id}`, `FilePatchBody`). */
export type FileChange = z.input<typeof FilePatchBody>;
/** A change of many files (`FilesPatchBody`), without the ids. */
export type FilesChange = Omit<z.input<typeof FilesPatchBody>, "files">;
/** A new folder (`FolderCreateBody`). */
export type NewFolder = z.input<typeof FolderCreateBody>;
/** A change of a folder (`FolderPatchBody`). */
export type FolderChange = z.input<typeof FolderPatchBody>;
/** Deleting a folder (`FolderDeleteBody`, `delete: "folder"`). */
export type FolderDeletion = Omit<z.input<typeof FolderDeleteBody>, "delete" | "id">;
/** A new tag (`TagCreateBody`). */
export type NewTag = z.input<typeof TagCreateBody>;
/** A change of a tag (`TagPatchBody`). */
export type TagChange = z.input<typeof TagPatchBody>;

const one = (id: string) => `/api/user/files/${encodeURIComponent(id)}`;

/** The query string of `query`. */
export function listParams(query: FileListQuery): URLSearchParams {
  const params = new URLSearchParams({
    page: String(query.page),
    perpage: String(query.perpage),
    sortBy: query.sortBy,
    order: query.order,
  });
  if (query.searchField && query.searchQuery) {
    params.set("searchField", query.searchField);
    params.set("searchQuery", query.searchQuery);
  }
  if (query.favorite) params.set("favorite", "true");
  if (query.folder) params.set("folder", query.folder);
  if (query.user) params.set("id", query.user);
  return params;
}

/** A page of files. */
export function listFiles(query: FileListQuery): Promise<FilePage> {
  return api<FilePage>("GET", `/api/user/files?${listParams(query)}`);
}

/** The largest page the list answers (and the most files a bulk change takes at once). */
export const MAX_PAGE = 1000;

/** Every file matching `query` (all its pages), for a bulk action across pages. */
export async function allMatching(query: FileListQuery): Promise<ApiFile[]> {
  const found: ApiFile[] = [];
  for (let page = 1;; page++) {
    const reply = await listFiles({ ...query, page, perpage: MAX_PAGE });
    found.push(...reply.page);
    if (page >= reply.pages) return found;
  }
}

/** Changes one file. */
export function changeFile(id: string, change: FileChange): Promise<ApiFile> {
  return api<ApiFile>("PATCH", one(id), change);
}

/** Deletes one file. */
export function deleteFile(id: string): Promise<ApiFile> {
  return api<ApiFile>("DELETE", one(id));
}

/** Runs `each` on `ids` in batches the bulk routes take. */
async function inBatches(ids: string[], each: (batch: string[]) => Promise<unknown>) {
  for (let i = 0; i < ids.length; i += MAX_PAGE) await each(ids.slice(i, i + MAX_PAGE));
}

/** Favourites (or not), makes private (or not) or moves files to a folder, in batches. */
export function changeFiles(
  ids: string[],
  change: FilesChange,
): Promise<void> {
  return inBatches(ids, (files) => {
    const body: z.input<typeof FilesPatchBody> = { files, ...change };
    return api("PATCH", "/api/user/files/transaction", body);
  });
}

/** Deletes files, record and bytes, in batches. */
export function deleteFiles(ids: string[]): Promise<void> {
  return inBatches(ids, (files) => {
    const body: z.input<typeof FilesDeleteBody> = { files, delete_datasourceFiles: true };
    return api("DELETE", "/api/user/files/transaction", body);
  });
}

/** Takes a file out of its folder. */
export function removeFromFolder(folderId: string, fileId: string): Promise<unknown> {
  const body: z.input<typeof FolderDeleteBody> = { delete: "file", id: fileId };
  return api("DELETE", folderPath(folderId), body);
}

const folderPath = (id: string) => `/api/user/folders/${encodeURIComponent(id)}`;

/** The address of a zip of `ids`. */
export function zipUrl(ids: string[]): string {
  return `/api/user/files/zip?files=${ids.map(encodeURIComponent).join(",")}`;
}

/** The owner's address of a file's bytes (`download`: as an attachment). */
export function rawUrl(file: ApiFile, download = false): string {
  return `${one(file.id)}/raw${download ? "?download=true" : ""}`;
}

/** The public address of a file's bytes, `/raw/<name>`, absolute. */
export function publicRawUrl(file: ApiFile): string {
  return new URL(`/raw/${encodeURIComponent(file.name)}`, location.origin).href;
}

/** The caller's folders (without their files). */
export function listFolders(): Promise<Folder[]> {
  return api<Folder[]>("GET", "/api/user/folders?noincl=true");
}

/** Creates a folder of the caller's. */
export function createFolder(folder: NewFolder): Promise<Folder> {
  return api<Folder>("POST", "/api/user/folders", folder);
}

/** Changes the folder `id`. */
export function changeFolder(id: string, change: FolderChange): Promise<Folder> {
  return api<Folder>("PATCH", folderPath(id), change);
}

/** Deletes the folder `id`; what becomes of its contents is `how`. */
export function deleteFolder(id: string, how: FolderDeletion = {}): Promise<unknown> {
  const body: z.input<typeof FolderDeleteBody> = { delete: "folder", ...how };
  return api("DELETE", folderPath(id), body);
}

/** The address of a zip of the folder `id`. */
export function folderZipUrl(id: string): string {
  return `${folderPath(id)}/export`;
}

/** The caller's tags. */
export function listTags(): Promise<Tag[]> {
  return api<Tag[]>("GET", "/api/user/tags");
}

const tagPath = (id: string) => `/api/user/tags/${encodeURIComponent(id)}`;

/** Creates a tag. */
export function createTag(tag: NewTag): Promise<Tag> {
  return api<Tag>("POST", "/api/user/tags", tag);
}

/** Changes the tag `id`. */
export function changeTag(id: string, change: TagChange): Promise<Tag> {
  return api<Tag>("PATCH", tagPath(id), change);
}

/** Deletes the tag `id`. */
export function deleteTag(id: string): Promise<unknown> {
  return api("DELETE", tagPath(id));
}

/** A public folder's page of files. */
export type PublicFolderPage = z.infer<typeof PublicFolderPageSchema>;

/** Page `page` of the public folder `id` (its id, or its name), asked without the cookie. */
export async function publicFolder(
  id: string,
  page: number,
  perpage: number,
): Promise<PublicFolderPage> {
  const query = new URLSearchParams({ page: String(page), perpage: String(perpage) });
  const res = await fetch(`/api/server/folder/${encodeURIComponent(id)}?${query}`, {
    credentials: "omit",
  });
  if (!res.ok) throw await failureOf(res);
  return await res.json() as PublicFolderPage;
}
