/**
 * User administration (spec §4.1). Every role decision goes through
 * `roles.ts`: a caller creates or assigns roles at or below its own, manages
 * only users of lower roles, and never deletes itself. Every administrator
 * sees every user.
 */
import { deleteUserRequests } from "./upload_requests.ts";
import type { Role, UserPatch, UserRecord } from "../db/users.ts";
import { checkAvatar } from "./avatars.ts";
import { forbidden, notFound } from "./errors.ts";
import { dropUserUploads } from "./files/chunked.ts";
import { releaseUserFolders } from "./files/folders.ts";
import { releaseUserFiles } from "./files/manage.ts";
import { removeUserExports } from "./files/user_export.ts";
import { removeAllLinks } from "./oauth/accounts.ts";
import { applyQuota, type QuotaInput } from "./quotas.ts";
import { canAssign, canManage } from "./roles.ts";
import type { Services } from "./services.ts";
import { createUser, newPasswordPatch, summaryView, usernameTaken } from "./users.ts";
import { removeUserUrls } from "./urls.ts";

/** The summaries of cached user records, built once per record. */
const summaries = new WeakMap<UserRecord, ReturnType<typeof summaryView>>();

/**
 * Every user's summary, oldest first; without the caller when `noincl`. An
 * administrator sees them all: the role rules limit what it may change.
 * Read through the store's one-second cache: a dashboard polling the list
 * reads the users once a second at most (this process's changes show at once).
 */
export async function listUsers(s: Services, caller: UserRecord, noincl: boolean) {
  const users = await s.store.users.listCached();
  const listed = noincl ? users.filter((u) => u.id !== caller.id) : users;
  return listed.map((u) => {
    let summary = summaries.get(u);
    if (!summary) summaries.set(u, summary = summaryView(u));
    return summary;
  });
}

/** What one user's content takes up: files, their bytes, and short URLs. */
export interface UserUsage {
  id: string;
  files: number;
  storage: number;
  urls: number;
}

/**
 * The usage of every user, for the administrators' user list: the counters
 * the store keeps beside each user's files and URLs (no scan of the files).
 */
export async function usersUsage(s: Services): Promise<UserUsage[]> {
  const users = await s.store.users.listCached();
  return await Promise.all(users.map(async (u) => {
    const [files, urls] = await Promise.all([
      s.store.files.usage(u.id),
      s.store.urls.countByUser(u.id),
    ]);
    return { id: u.id, files: files.files, storage: files.bytes, urls };
  }));
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

/** Any user, by id; 404 `Not Found` when there is none. */
export async function adminGetUser(s: Services, id: string): Promise<UserRecord> {
  const user = await s.store.users.get(id);
  if (!user) throw notFound();
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

/**
 * Updates a user the caller manages; 403 for others or for a role above the
 * caller's. The change itself is {@link changeUser}.
 */
export async function adminUpdateUser(
  s: Services,
  caller: UserRecord,
  id: string,
  patch: AdminUserPatch,
): Promise<UserRecord> {
  const user = await s.store.users.get(id);
  if (!user) throw notFound();
  if (!canManage(caller.role, user.role)) throw forbidden("You cannot modify this user");
  if (patch.role && !canAssign(caller.role, patch.role)) {
    throw forbidden("You cannot assign this role");
  }
  return await changeUser(s, user, patch);
}

/**
 * Applies `patch` to `user`, whoever may make it: the administrators' update
 * once its role rules passed, and the operator's `set-user` on the shell.
 * The quota is merged and checked by `quotas.ts`. A new password is a reset,
 * the recovery of an account its owner may have lost: it also replaces the
 * user's API token, ends all its sessions (those a provider or a passkey
 * signed in included) and removes its linked provider accounts, so whoever
 * held the account in the meantime keeps no way back in.
 */
export async function changeUser(
  s: Services,
  user: UserRecord,
  patch: AdminUserPatch,
): Promise<UserRecord> {
  const { id } = user;
  const change: UserPatch = {
    username: patch.username,
    role: patch.role,
    avatar: patch.avatar === undefined ? undefined : patch.avatar && checkAvatar(patch.avatar),
    quota: patch.quota ? applyQuota(user.quota, patch.quota, s.random, s.clock.now()) : undefined,
    ...(patch.password === undefined ? {} : await newPasswordPatch(s, id, patch.password)),
  };
  let updated;
  try {
    updated = await s.store.users.update(id, change, new Date(s.clock.now()));
  } catch (error) {
    throw usernameTaken(error);
  }
  if (!updated) throw notFound();
  if (patch.password !== undefined) {
    await s.store.sessions.deleteByUser(id);
    await removeAllLinks(s, id);
  }
  return updated;
}

/**
 * Deletes a user the caller manages; never the caller itself. With
 * `deleteContent` the user's files and URLs go too (store and datasource);
 * without, they stay, orphaned. Its API keys, share links, upload requests
 * (their links answer 410), tags, folders, exports and
 * chunked uploads in progress always go; the files in its folders move to the root
 * first.
 */
export async function adminDeleteUser(
  s: Services,
  caller: UserRecord,
  id: string,
  deleteContent: boolean,
): Promise<UserRecord> {
  const user = await s.store.users.get(id);
  if (!user) throw notFound();
  if (user.id === caller.id) throw forbidden("You cannot delete yourself");
  if (!canManage(caller.role, user.role)) throw forbidden("You cannot delete this user");
  if (deleteContent) await removeUserUrls(s, id);
  else await s.store.urls.orphanByUser(id);
  await s.store.invites.deleteByInviter(id);
  await s.store.apiKeys.deleteByUser(id);
  await s.store.shares.deleteByUser(id);
  await deleteUserRequests(s, id);
  await s.store.tags.deleteByUser(id);
  // Files deleted first, a page at a time: the folders' release then has none to move.
  if (deleteContent) await releaseUserFiles(s, id, true);
  await releaseUserFolders(s, id);
  if (!deleteContent) await releaseUserFiles(s, id, false);
  await removeUserExports(s, id);
  await dropUserUploads(s, user);
  await s.store.visits.deleteOwner(id);
  const removed = await s.store.users.delete(id);
  if (!removed) throw notFound();
  s.logger.info("user deleted", { id, username: user.username, by: caller.username });
  return removed;
}
