/// <reference lib="dom" />
/**
 * The dashboard's calls to the invite routes (`/api/auth/invites`), typed
 * from the server's own zod schemas (type-only imports).
 */
import type { z } from "zod";
import type { InviteCreateBody, InviteWithInviter } from "../../routes/invites.ts";
import { api } from "../api.ts";

/** An invite with its inviter. */
export type Invite = z.infer<typeof InviteWithInviter>;
/** A new invite: expiry (`never`, `7d`…) and uses. */
export type NewInvite = z.input<typeof InviteCreateBody>;

/** The instance's invites. */
export function listInvites(): Promise<Invite[]> {
  return api<Invite[]>("GET", "/api/auth/invites");
}

/** Creates an invite. */
export function createInvite(invite: NewInvite): Promise<Invite> {
  return api<Invite>("POST", "/api/auth/invites", invite);
}

/** Deletes the invite `id`. */
export function deleteInvite(id: string): Promise<unknown> {
  return api("DELETE", `/api/auth/invites/${encodeURIComponent(id)}`);
}
