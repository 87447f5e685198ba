/**
 * Where an upload's files go. Folders arrive with their own store; until then
 * an authenticated upload keeps the `folder` header's id as an opaque
 * `folderId`, and an anonymous upload (a folder id and no credentials, which
 * only a folder that accepts uploads allows) is refused.
 */
import type { UserRecord } from "../../db/store.ts";
import { forbidden } from "../errors.ts";
import type { Services } from "../services.ts";

/** Who owns an upload's files and where they go. */
export interface UploadTarget {
  owner: UserRecord;
  folderId: string | null;
  anonymous: boolean;
}

/** The target of an upload by `user` (`null`: anonymous) into `folderId`. */
export function uploadTarget(
  _s: Services,
  user: UserRecord | null,
  folderId: string | null,
): Promise<UploadTarget> {
  if (!user) return Promise.reject(forbidden("folder is not open"));
  return Promise.resolve({ owner: user, folderId, anonymous: false });
}
