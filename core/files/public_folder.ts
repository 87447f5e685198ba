/**
 * The public page of a folder (`/api/server/folder/:id`, reference §5.7):
 * what anyone may see of a public folder, or of one that accepts uploads.
 */
import type { FolderRecord } from "../../db/folders.ts";
import { notFound } from "../errors.ts";
import type { Services } from "../services.ts";
import { type ParentView, parentView } from "./folders.ts";
import { type FileView, fileView } from "./manage.ts";

/** A folder as anyone sees it at `/api/server/folder/:id`. */
export interface PublicFolderView {
  id: string;
  name: string;
  public: boolean;
  allowUploads: boolean;
  /** Public folders only: its public subfolders and public parent chain. */
  children?: { id: string; name: string }[];
  parent?: ParentView | null;
}

/** One page of the public view's files. */
export interface PublicFolderPage {
  folder: PublicFolderView;
  page: FileView[];
  total: number;
  pages: number;
}

/** What the public view's page asks for. */
export interface PublicPageInput {
  page: number;
  perpage: number;
  sortBy: "createdAt" | "name" | "size" | "views";
  order: "asc" | "desc";
}

/**
 * The public view of a folder, by id, or by name only when it is public (a
 * name is easy to guess, an id is not: a folder that accepts uploads but is
 * not public is found by its id alone, which its owner hands out): a public
 * folder shows its files a page at a time; a folder that only accepts
 * uploads shows just itself (Zipline also lists an upload-only folder's
 * files when asked for a page; Ferry keeps them private). A private folder
 * is treated as one that is not public, and private files are left out of
 * the page. Any other folder is 404.
 */
export async function publicFolder(
  s: Services,
  idOrName: string,
  input: PublicPageInput,
): Promise<PublicFolderPage> {
  const shown = (f: FolderRecord) => f.public && !f.private;
  const open = (f: FolderRecord | null): f is FolderRecord => !!f && (shown(f) || f.allowUploads);
  const byId = await s.store.folders.get(idOrName);
  const folder = open(byId) ? byId : (await s.store.folders.listByName(idOrName)).find(shown);
  if (!folder) throw notFound();
  const summary = {
    id: folder.id,
    name: folder.name,
    public: shown(folder),
    allowUploads: folder.allowUploads,
  };
  if (!shown(folder)) return { folder: summary, page: [], total: 0, pages: 0 };
  const folders = (await s.store.folders.listByUser(folder.userId)).filter(shown);
  const { files, total } = await s.store.files.list({
    userId: folder.userId,
    folderId: folder.id,
    private: false,
    offset: (input.page - 1) * input.perpage,
    limit: input.perpage,
    sortBy: input.sortBy,
    order: input.order,
  });
  const settings = s.settings.all();
  return {
    folder: {
      ...summary,
      children: folders.filter((f) => f.parentId === folder.id)
        .map((f) => ({ id: f.id, name: f.name })),
      parent: parentView(folders, folder.parentId, true),
    },
    page: files.map((f) => fileView(settings, f)),
    total,
    pages: Math.ceil(total / input.perpage),
  };
}
