/**
 * What a link to a file's page shows when pasted in a chat: OpenGraph and
 * Twitter card values from the owner's embed settings (`view.embed*` of
 * `PATCH /api/user`), with Zipline's placeholders filled in (`{file.name}`,
 * `{file.originalName}`, `{file.size}`, `{file.type}`, `{file.views}`,
 * `{user.username}`). `null` when the owner has embeds off, or the file has a
 * password (nothing of it is shown to those who do not have it).
 */
import type { FileRecord } from "../../db/files.ts";
import type { Services } from "../services.ts";
import { formatSize } from "../units/size.ts";

/** The card of a file's page. */
export interface FileEmbed {
  title: string | null;
  description: string | null;
  siteName: string | null;
  color: string | null;
  /** The file itself as the card's media (`og:image`/`og:video`), when it is one. */
  media: { kind: "image" | "video" | "audio"; url: string; type: string } | null;
}

/** The owner's text with the placeholders of `file` filled in. */
function fill(template: unknown, file: FileRecord, username: string): string | null {
  if (typeof template !== "string" || template.trim() === "") return null;
  const values: Record<string, string> = {
    "file.name": file.name,
    "file.originalName": file.originalName ?? file.name,
    "file.size": formatSize(file.size),
    "file.type": file.type,
    "file.views": String(file.views),
    "user.username": username,
  };
  return template.replace(/\{([a-zA-Z.]+)\}/g, (whole, key) => values[key] ?? whole);
}

/** The embed of `file` for a page at `origin`; `null` when there is none to show. */
export async function fileEmbed(
  s: Services,
  file: FileRecord,
  origin: string,
): Promise<FileEmbed | null> {
  if (file.password || !file.userId) return null;
  const owner = await s.store.users.get(file.userId);
  if (!owner || owner.view.embed !== true) return null;
  const view = owner.view;
  const kind = (["image", "video", "audio"] as const).find((k) => file.type.startsWith(`${k}/`));
  const media = kind && file.type !== "image/svg+xml"
    ? { kind, url: `${origin}/raw/${encodeURIComponent(file.name)}`, type: file.type }
    : null;
  return {
    title: fill(view.embedTitle, file, owner.username),
    description: view.embedMediaOnly ? null : fill(view.embedDescription, file, owner.username),
    siteName: fill(view.embedSiteName, file, owner.username),
    color: typeof view.embedColor === "string" ? view.embedColor : null,
    media,
  };
}
