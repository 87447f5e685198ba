/**
 * Private files and folders: a private file, or any file in a private folder,
 * is served at the public paths (`/raw`, the files route, `/view`, thumbnails,
 * public folders, embeds) to nobody but its owner signed in; to everyone else
 * it answers 404, exactly as a missing file. Share links (`../shares.ts`) open
 * it whatever its privacy. The owner's and its managers' own routes
 * (`/api/user/files/:id/raw`) are not public paths and are not concerned.
 */
import type { FileRecord } from "../../db/files.ts";
import { notFound } from "../errors.ts";
import type { Services } from "../services.ts";

/** Who asks for a public path: the id of the user signed in with the request's session, if any. */
export type Viewer = () => Promise<string | null>;

/** Whether `file` is private: its own flag, or its folder's. */
export async function isPrivate(s: Services, file: FileRecord): Promise<boolean> {
  if (file.private) return true;
  if (file.folderId === null) return false;
  return (await s.store.folders.getCached(file.folderId))?.private === true;
}

/**
 * 404 unless `viewer` may see `file` at a public path: a file that is not
 * private, or a private one to its owner signed in. The viewer is asked only
 * for a private file.
 */
export async function refusePrivate(
  s: Services,
  file: FileRecord,
  viewer: Viewer | undefined,
): Promise<void> {
  if (!await isPrivate(s, file)) return;
  if (file.userId !== null && viewer && await viewer() === file.userId) return;
  throw notFound();
}
