/// <reference lib="dom" />
/**
 * The dashboard's calls to the share link routes (`/api/user/files/{id}/shares`,
 * `/api/user/folders/{id}/shares`, `/api/user/shares`), typed from the
 * server's own zod schemas (type-only imports).
 */
import type { z } from "zod";
import type { ShareCreateBody, ShareSchema } from "../../routes/shares.ts";
import { api } from "../api.ts";

/** A share link as the API shows it. */
export type Share = z.infer<typeof ShareSchema>;
/** A new share link's expiry, view limit and password. */
export type NewShare = z.input<typeof ShareCreateBody>;
/** What a link opens: a file or a folder of the caller's. */
export type ShareTarget = Share["target"];

/** The links of `target`. */
export function listShares(target: Pick<ShareTarget, "kind" | "id">): Promise<Share[]> {
  const query = new URLSearchParams({ [`${target.kind}Id`]: target.id });
  return api<Share[]>("GET", `/api/user/shares?${query}`);
}

/** Makes a link to `target`. */
export function createShare(
  target: Pick<ShareTarget, "kind" | "id">,
  share: NewShare,
): Promise<Share> {
  return api<Share>(
    "POST",
    `/api/user/${target.kind}s/${encodeURIComponent(target.id)}/shares`,
    share,
  );
}

/** Revokes the link `id`. */
export function revokeShare(id: string): Promise<unknown> {
  return api("DELETE", `/api/user/shares/${encodeURIComponent(id)}`);
}
