/**
 * Creating user records and the public shapes of a user. Every response that
 * carries a user goes through one of these views, which name the fields they
 * keep, so a secret can only leak by being added here on purpose.
 */
import type { QuotaRecord, Role, UserPatch, UserRecord } from "../db/users.ts";
import { UniqueError } from "../db/errors.ts";
import { checkAvatar, defaultAvatar } from "./avatars.ts";
import { newId } from "./clock.ts";
import { badRequest } from "./errors.ts";
import { checkNewPassword } from "./password_policy.ts";
import { hashPassword } from "./passwords.ts";
import { PREFERENCES_KEY } from "./preferences.ts";
import type { Services } from "./services.ts";
import { newStoredToken } from "./tokens.ts";

/** What creating a user takes. */
export interface NewUser {
  username: string;
  password: string | null;
  role: Role;
  avatar?: string | null;
}

/**
 * Builds a complete record for a new user: id, hashed password, fresh token.
 * 400 when the password breaks the policy (`password_policy.ts`).
 */
export async function buildUser(s: Services, input: NewUser): Promise<UserRecord> {
  if (input.password !== null) checkNewPassword(input.password);
  const now = new Date(s.clock.now());
  const id = newId(s.random, now.getTime());
  return {
    id,
    username: input.username,
    password: input.password === null ? null : await hashPassword(input.password, s.random),
    role: input.role,
    avatar: input.avatar ? checkAvatar(input.avatar) : null,
    token: newStoredToken(now.getTime(), s.random, id),
    totpSecret: null,
    view: {},
    quota: null,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * The change that gives user `userId` a new password: its hash and a fresh
 * API token, so that a token copied before the change stops working. The
 * caller ends the user's sessions once the change is stored. 400 when the
 * password breaks the policy (`password_policy.ts`).
 */
export async function newPasswordPatch(
  s: Services,
  userId: string,
  password: string,
): Promise<UserPatch> {
  checkNewPassword(password);
  return {
    password: await hashPassword(password, s.random),
    token: newStoredToken(s.clock.now(), s.random, userId),
  };
}

/** Maps a username clash from the store to 400 `Username already exists`. */
export function usernameTaken(error: unknown): unknown {
  return error instanceof UniqueError && error.field === "username"
    ? badRequest("Username already exists")
    : error;
}

/**
 * Stores a new user; a taken username is 400 `Username already exists`. A user
 * created without an avatar gets the server's default (`websiteDefaultAvatar`).
 */
export async function createUser(s: Services, input: NewUser): Promise<UserRecord> {
  const avatar = input.avatar === undefined ? await defaultAvatar(s) : input.avatar;
  const user = await buildUser(s, { ...input, avatar });
  try {
    await s.store.users.create(user);
  } catch (error) {
    throw usernameTaken(error);
  }
  return user;
}

/** A quota as the API shows it. */
export function quotaView(q: QuotaRecord | null) {
  return q && {
    id: q.id,
    filesQuota: q.filesQuota,
    maxBytes: q.maxBytes,
    maxFiles: q.maxFiles,
    maxUrls: q.maxUrls,
  };
}

/** The spec's user summary: list elements, create and update responses. */
export function summaryView(u: UserRecord) {
  return {
    id: u.id,
    username: u.username,
    role: u.role,
    avatar: u.avatar,
    createdAt: u.createdAt.toISOString(),
    quota: quotaView(u.quota),
  };
}

/** The spec's user detail: the summary plus `updatedAt` and `view` (without the dashboard preferences). */
export function detailView(u: UserRecord) {
  const { [PREFERENCES_KEY]: _preferences, ...view } = u.view;
  return {
    ...summaryView(u),
    updatedAt: u.updatedAt.toISOString(),
    view: {
      ...view,
      enabled: u.view.enabled === true,
      embedColor: typeof u.view.embedColor === "string" ? u.view.embedColor : null,
    },
  };
}

/** The spec's deletion response: the summary without the quota. */
export function deletedView(u: UserRecord) {
  const { quota: _quota, ...deleted } = summaryView(u);
  return deleted;
}

/**
 * What `totpSecret` holds in a user's own view while TOTP is on: a marker,
 * never the secret. Zipline's web client decides from that field whether to
 * offer turning TOTP on or off.
 */
export const TOTP_SECRET_MARKER = "********";

/**
 * The user as it sees itself: its detail and whether TOTP is on (`totp`, and
 * Zipline's `totpSecret` as {@link TOTP_SECRET_MARKER} or `null`); never a secret.
 */
export function selfView(u: UserRecord) {
  const totp = u.totpSecret !== null;
  return { ...detailView(u), totp, totpSecret: totp ? TOTP_SECRET_MARKER : null };
}
