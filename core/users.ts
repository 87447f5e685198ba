/**
 * Creating user records and the public shapes of a user. Every response that
 * carries a user goes through one of these views, which name the fields they
 * keep, so a secret can only leak by being added here on purpose.
 */
import { type Role, UniqueError, type UserRecord } from "../db/store.ts";
import { newId } from "./clock.ts";
import { badRequest } from "./errors.ts";
import { hashPassword } from "./passwords.ts";
import type { Services } from "./services.ts";
import { newStoredToken } from "./tokens.ts";

/** What creating a user takes. */
export interface NewUser {
  username: string;
  password: string | null;
  role: Role;
  avatar?: string | null;
}

/** Builds a complete record for a new user: id, hashed password, fresh token. */
export async function buildUser(s: Services, input: NewUser): Promise<UserRecord> {
  const now = new Date(s.clock.now());
  return {
    id: newId(s.random),
    username: input.username,
    password: input.password === null ? null : await hashPassword(input.password, s.random),
    role: input.role,
    avatar: input.avatar ?? null,
    token: newStoredToken(now.getTime(), s.random),
    totpSecret: null,
    view: {},
    quota: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** Stores a new user; a taken username is 400 `Username already exists`. */
export async function createUser(s: Services, input: NewUser): Promise<UserRecord> {
  const user = await buildUser(s, input);
  try {
    await s.store.createUser(user);
  } catch (error) {
    if (error instanceof UniqueError && error.field === "username") {
      throw badRequest("Username already exists");
    }
    throw error;
  }
  return user;
}

/** The user as the user sees itself: no password, token or TOTP secret. */
export function selfView(u: UserRecord) {
  return {
    id: u.id,
    username: u.username,
    role: u.role,
    avatar: u.avatar,
    view: u.view,
    totp: u.totpSecret !== null,
    quota: u.quota,
    createdAt: u.createdAt.toISOString(),
    updatedAt: u.updatedAt.toISOString(),
  };
}
