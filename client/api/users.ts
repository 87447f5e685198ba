/// <reference lib="dom" />
/**
 * The dashboard's calls to the user administration routes (`/api/users`),
 * typed from the server's own zod schemas (type-only imports: nothing of the
 * server is bundled).
 */
import type { z } from "zod";
import type { UserDetailSchema, UserSummarySchema } from "../../routes/schemas.ts";
import type {
  UserCreateBody,
  UserDeleteBody,
  UserPatchBody,
  UserUsageSchema,
} from "../../routes/users.ts";
import { api } from "../api.ts";

/** A user as the list shows it. */
export type AdminUser = z.infer<typeof UserSummarySchema>;
/** A user's detail, as a create or change answers it. */
export type AdminUserDetail = z.infer<typeof UserDetailSchema>;
/** One user's files, storage and short URLs. */
export type UserUsage = z.infer<typeof UserUsageSchema>;
/** A new user. */
export type NewUser = z.input<typeof UserCreateBody>;
/** A change to a user; `avatar: null` removes the avatar. */
export type UserChange = z.input<typeof UserPatchBody>;

const one = (id: string) => `/api/users/${encodeURIComponent(id)}`;

/** Every user. */
export function listUsers(): Promise<AdminUser[]> {
  return api<AdminUser[]>("GET", "/api/users");
}

/** Every user's files, storage and short URLs. */
export function usersUsage(): Promise<UserUsage[]> {
  return api<UserUsage[]>("GET", "/api/users/usage");
}

/** Creates a user. */
export function createUser(user: NewUser): Promise<AdminUserDetail> {
  return api<AdminUserDetail>("POST", "/api/users", user);
}

/** Changes the user `id`. */
export function updateUser(id: string, change: UserChange): Promise<AdminUserDetail> {
  return api<AdminUserDetail>("PATCH", one(id), change);
}

/** Deletes the user `id`, with its files and URLs when `content`. */
export function deleteUser(id: string, content: boolean): Promise<unknown> {
  const body: z.input<typeof UserDeleteBody> = { delete: content };
  return api("DELETE", one(id), body);
}
