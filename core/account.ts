/**
 * The current user's own account: profile changes, the API token and the
 * sessions it is logged in with.
 */
import type { SessionRecord } from "../db/sessions.ts";
import type { UserPatch, UserRecord } from "../db/users.ts";
import { checkAvatar } from "./avatars.ts";
import { ApiError, badRequest, notFound } from "./errors.ts";
import { confirmOwner } from "./confirm.ts";
import type { Services } from "./services.ts";
import { clientToken, newStoredToken } from "./tokens.ts";
import { newPasswordPatch, usernameTaken } from "./users.ts";

/** What a user may change about itself. */
export interface SelfPatch {
  username?: string;
  password?: string;
  /** `null` or `""` removes the avatar. */
  avatar?: string | null;
  /** Merged into the stored view settings. */
  view?: Record<string, unknown>;
  /** Proof for a new password or username (`confirm.ts`). */
  currentPassword?: string;
}

/**
 * Applies the user's own changes; a taken username is 400 `Username already
 * exists`. A new password or username needs proof of the owner (`confirm.ts`). A new
 * password also replaces the API token and ends every session but `current`.
 */
export async function updateSelf(
  s: Services,
  user: UserRecord,
  current: SessionRecord | null,
  patch: SelfPatch,
): Promise<UserRecord> {
  const renames = patch.username !== undefined && patch.username !== user.username;
  if (renames || patch.password !== undefined) {
    await confirmOwner(
      user,
      { currentPassword: patch.currentPassword, session: current },
      s.clock.now(),
    );
  }
  const change: UserPatch = {
    username: patch.username,
    avatar: patch.avatar === undefined
      ? undefined
      : patch.avatar
      ? checkAvatar(patch.avatar)
      : null,
    view: patch.view ? { ...user.view, ...patch.view } : undefined,
    ...(patch.password === undefined ? {} : await newPasswordPatch(s, user.id, patch.password)),
  };
  let updated;
  try {
    updated = await s.store.users.update(user.id, change, new Date(s.clock.now()));
  } catch (error) {
    throw usernameTaken(error);
  }
  if (!updated) throw new ApiError(401, "not logged in");
  if (patch.password !== undefined) await s.store.sessions.deleteByUser(user.id, current?.id);
  return updated;
}

/** The user's avatar as stored (a data URI or an http(s) URL); 404 when it has none. */
export function avatarOf(user: UserRecord): string {
  if (user.avatar === null) throw notFound();
  return user.avatar;
}

/** The token the user puts in its `Authorization` header. */
export function tokenFor(s: Services, user: UserRecord): string {
  return clientToken(user.token, s.clock.now(), s.secret, s.random);
}

/** Replaces the user's token: every token issued before stops working at once. */
export async function regenerateToken(s: Services, user: UserRecord): Promise<UserRecord> {
  const now = s.clock.now();
  const updated = await s.store.users.update(
    user.id,
    { token: newStoredToken(now, s.random, user.id) },
    new Date(now),
  );
  if (!updated) throw new ApiError(401, "not logged in");
  return updated;
}

/** A session as its owner sees it. */
export function sessionView(session: SessionRecord) {
  return {
    id: session.id,
    createdAt: session.createdAt.toISOString(),
    lastSeenAt: session.lastSeenAt.toISOString(),
    client: session.client,
    device: session.device,
    ua: session.ua,
  };
}

/** The user's live sessions, split into the current one and the others. */
export async function listSessions(
  s: Services,
  user: UserRecord,
  current: SessionRecord | null,
) {
  const now = s.clock.now();
  const live = (await s.store.sessions.listByUser(user.id)).filter((x) =>
    x.expiresAt.getTime() > now
  );
  return {
    current: current && sessionView(current),
    other: live.filter((x) => x.id !== current?.id).map(sessionView),
  };
}

/** Ends one other session (`sessionId`) or all others (`all`); never the current one. */
export async function revokeSessions(
  s: Services,
  user: UserRecord,
  current: SessionRecord | null,
  target: { sessionId?: string; all?: boolean },
) {
  if (target.all) {
    await s.store.sessions.deleteByUser(user.id, current?.id);
  } else if (target.sessionId) {
    if (target.sessionId === current?.id) {
      throw badRequest("Cannot delete current session, use log out instead.");
    }
    const session = await s.store.sessions.get(target.sessionId);
    if (!session || session.userId !== user.id) {
      throw badRequest("Session not found in logged in sessions");
    }
    await s.store.sessions.delete(session.id);
  } else {
    throw badRequest("Give sessionId or all: true");
  }
  return await listSessions(s, user, current);
}
