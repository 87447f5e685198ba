/**
 * Files in a folder: a folder owner's file put into one of its folders or
 * taken out to the root, one at a time (`PUT`/`DELETE /api/user/folders/:id`)
 * or several at once (`PATCH /api/user/files/transaction`). A file moves
 * only into its owner's folders.
 */
import type { UserRecord } from "../../db/users.ts";
import { badRequest, notFound } from "../errors.ts";
import type { Services } from "../services.ts";
import { findFolder, type FolderView, folderView, ownFiles, treeOf } from "./folders.ts";

/**
 * Puts one of the folder owner's files into folder `id` (`add`) or takes it
 * out of the folder to the root (`remove`); the folder's view afterwards.
 */
export async function changeFolderFile(
  s: Services,
  caller: UserRecord,
  id: string,
  fileId: string,
  change: "add" | "remove",
): Promise<FolderView> {
  const folder = await findFolder(s, caller, id);
  const [file] = await ownFiles(s, folder.userId, [fileId]);
  if (!file) throw notFound("File not found");
  const add = change === "add";
  if ((file.folderId === folder.id) === add) {
    throw badRequest(add ? "File already in folder" : "File not in folder");
  }
  const folderId = add ? folder.id : null;
  await s.store.files.update(file.id, { folderId }, new Date(s.clock.now()));
  return folderView(s, await treeOf(s, folder.userId, folder.id), folder, true);
}

/**
 * Moves the caller's own files among `ids` into one of its folders (the
 * files transaction); returns how many moved and the folder's name.
 */
export async function moveFiles(
  s: Services,
  caller: UserRecord,
  ids: string[],
  folderId: string,
): Promise<{ count: number; name: string }> {
  const folder = await s.store.folders.get(folderId);
  if (!folder || folder.userId !== caller.id) throw notFound("Folder not found");
  const now = new Date(s.clock.now());
  let count = 0;
  for (const file of await ownFiles(s, caller.id, ids)) {
    if (await s.store.files.update(file.id, { folderId: folder.id }, now)) count++;
  }
  if (count === 0) throw notFound("No files were moved.");
  return { count, name: folder.name };
}
