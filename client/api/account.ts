/// <reference lib="dom" />
/**
 * The dashboard's calls about the signed-in account (`/api/user`, its
 * totals, token, exports and preferences), typed from the server's own zod
 * schemas (type-only imports: nothing of the server is bundled).
 */
import type { z } from "zod";
import type { FileSchema } from "../../routes/files.ts";
import type { PreferencesSchema, SelfPatchBody, TokenReply, UserReply } from "../../routes/user.ts";
import type { ThemesSchema } from "../../routes/server.ts";
import type { UserExportSchema } from "../../routes/user_export.ts";
import type { UserStatsSchema } from "../../routes/user_files.ts";
import { api } from "../api.ts";

/** The signed-in user as it sees itself. */
export type Me = z.infer<typeof UserReply>["user"];
/** A change to the signed-in user. */
export type MeChange = z.input<typeof SelfPatchBody>;
/** Totals over the user's files and short URLs. */
export type UserStats = z.infer<typeof UserStatsSchema>;
/** A file as the API lists it. */
export type RecentFile = z.infer<typeof FileSchema>;
/** One export of the user's files. */
export type UserExport = z.infer<typeof UserExportSchema>;
/** The dashboard preferences; `null` theme fields follow the server's default. */
export type Preferences = z.infer<typeof PreferencesSchema>;
/** The dashboard themes and the server's default choice. */
export type Themes = z.infer<typeof ThemesSchema>;

/** The signed-in user. */
export async function getMe(): Promise<Me> {
  return (await api<z.infer<typeof UserReply>>("GET", "/api/user")).user;
}

/** Changes the signed-in user (username, password, avatar, view settings). */
export async function updateMe(change: MeChange): Promise<Me> {
  return (await api<z.infer<typeof UserReply>>("PATCH", "/api/user", change)).user;
}

/** Totals over the user's files and short URLs, and its files per type. */
export function getUserStats(): Promise<UserStats> {
  return api<UserStats>("GET", "/api/user/stats");
}

/** The user's `take` newest files. */
export function recentFiles(take: number): Promise<RecentFile[]> {
  return api<RecentFile[]>("GET", `/api/user/recent?take=${take}`);
}

/** The API token. */
export async function getToken(): Promise<string> {
  return (await api<z.infer<typeof TokenReply>>("GET", "/api/user/token")).token;
}

/** Replaces the API token; the new one. */
export async function regenerateToken(): Promise<string> {
  return (await api<z.infer<typeof TokenReply>>("PATCH", "/api/user/token")).token;
}

/** The user's exports. */
export function listExports(): Promise<UserExport[]> {
  return api<UserExport[]>("GET", "/api/user/export");
}

/** Starts an export of all the user's files. */
export function startExport(): Promise<unknown> {
  return api("POST", "/api/user/export");
}

/** Deletes the export `id` and its archive. */
export function deleteExport(id: string): Promise<unknown> {
  return api("DELETE", `/api/user/export?id=${encodeURIComponent(id)}`);
}

/** Where the finished export `id` is downloaded. */
export function exportLink(id: string): string {
  return `/api/user/export?id=${encodeURIComponent(id)}`;
}

/** The dashboard themes and the server's default choice. */
export function getThemes(): Promise<Themes> {
  return api<Themes>("GET", "/api/server/themes");
}

/** The user's dashboard preferences. */
export function getPreferences(): Promise<Preferences> {
  return api<Preferences>("GET", "/api/user/preferences");
}

/** Changes the user's dashboard preferences; all of them after. */
export function updatePreferences(change: Partial<Preferences>): Promise<Preferences> {
  return api<Preferences>("PATCH", "/api/user/preferences", change);
}
