/**
 * User administration (spec §4.1). Every role decision goes through
 * `roles.ts`: a caller creates or assigns roles at or below its own, manages
 * only users of lower roles, and never deletes itself.
 */
import type { Role, UserPatch, UserRecord } from "../db/store.ts";
import { checkAvatar } from "./avatars.ts";
import { ApiError, forbidden } from "./errors.ts";
import { dropUserUploads } from "./files/chunked.ts";
import { releaseUserFolders } from "./files/folders.ts";
import { releaseUserFiles } from "./files/manage.ts";
import { removeUserExports } from "./files/user_export.ts";
import { hashPassword } from "./passwords.ts";
import { applyQuota, type QuotaInput } from "./quotas.ts";
import { canAssign, canManage } from "./roles.ts";
import type { Services } from "./services.ts";
import { createUser, usernameTaken } from "./users.ts";

const userNotFound = () => new ApiError(404, "User not found");

/** The users a caller manages, plus itself unless `noincl`; oldest first. */
export async function listManagedUsers(
  s: Services,
  caller: UserRecord,
  noincl: boolean,
): Promise<UserRecord[]> {
  return (await s.store.listUsers()).filter((u) =>
    u.id === caller.id ? !noincl : canManage(caller.role, u.role)
  );
}

/** Creates a user with a role at or below the caller's. */
export async function adminCreateUser(
  s: Services,
  caller: UserRecord,
  input: { username: string; password: string; role?: Role; avatar?: string },
): Promise<UserRecord> {
  const role = input.role ?? "USER";
  if (!canAssign(caller.role, role)) throw forbidden("You cannot create this role");
  return await createUser(s, { ...input, role });
}

/** A user the caller may see: itself or one it manages; 404 otherwise. */
export async function adminGetUser(
  s: Services,
  caller: UserRecord,
  id: string,
): Promise<UserRecord> {
  const user = await s.store.getUser(id);
  if (!user || (user.id !== caller.id && !canManage(caller.role, user.role))) {
    throw userNotFound();
  }
  return user;
}

/** What an administrator may change on a user. */
export interface AdminUserPatch {
  username?: string;
  password?: string;
  avatar?: string | null;
  role?: Role;
  quota?: QuotaInput;
}

/** Updates a user the caller manages; 403 for others or for a role above the caller's. */
export async function adminUpdateUser(
  s: Services,
  caller: UserRecord,
  id: string,
  patch: AdminUserPatch,
): Promise<UserRecord> {
  const user = await s.store.getUser(id);
  if (!user) throw userNotFound();
  if (!canManage(caller.role, user.role)) throw forbidden("You cannot modify this user");
  if (patch.role && !canAssign(caller.role, patch.role)) {
    throw forbidden("You cannot assign this role");
  }
  const change: UserPatch = {
    username: patch.username,
    role: patch.role,
    avatar: patch.avatar === undefined ? undefined : patch.avatar && checkAvatar(patch.avatar),
    quota: patch.quota ? applyQuota(user.quota, patch.quota, s.random) : undefined,
    password: patch.password === undefined
      ? undefined
      : await hashPassword(patch.password, s.random),
  };
  try {
    const updated = await s.store.updateUser(id, change, new Date(s.clock.now()));
    if (!updated) throw userNotFound();
    return updated;
  } catch (error) {
    throw usernameTaken(error);
  }
}

/**
 * Deletes a user the caller manages; never the caller itself. With
 * `deleteContent` the user's files and URLs go too (store and datasource);
 * without, they stay, orphaned. Its tags, folders, exports and chunked
 * uploads in progress always go; the files in its folders move to the root
 * first.
 */
export async function adminDeleteUser(
  s: Services,
  caller: UserRecord,
  id: string,
  deleteContent: boolean,
): Promise<UserRecord> {
  const user = await s.store.getUser(id);
  if (!user) throw userNotFound();
  if (user.id === caller.id) throw forbidden("You cannot delete yourself");
  if (!canManage(caller.role, user.role)) throw forbidden("You cannot delete this user");
  if (deleteContent) await s.store.urls.deleteByUser(id);
  else await s.store.urls.orphanByUser(id);
  await s.store.invites.deleteByInviter(id);
  await s.store.tags.deleteByUser(id);
  await releaseUserFolders(s, id);
  await releaseUserFiles(s, id, deleteContent);
  await removeUserExports(s, id);
  await dropUserUploads(s, user);
  const removed = await s.store.deleteUser(id);
  if (!removed) throw userNotFound();
  s.logger.info("user deleted", { id, username: user.username, by: caller.username });
  return removed;
}
