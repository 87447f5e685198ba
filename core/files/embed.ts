/**
 * What a link to a file's page shows when pasted in a chat: OpenGraph and
 * Twitter card values from the owner's embed settings (`view.embed*` of
 * `PATCH /api/user`), with Zipline's placeholders filled in ({@link fileValues}).
 * None when the owner has embeds off, or the file has a
 * password (nothing of it is shown to those who do not have it).
 */
import type { FileRecord } from "../../db/files.ts";
import type { UserRecord } from "../../db/users.ts";
import { fillPlaceholders } from "../placeholders.ts";
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

/** `template` with the file's placeholders filled in; `null` when it is empty or not text. */
function fill(template: unknown, values: Record<string, string>): string | null {
  if (typeof template !== "string" || template.trim() === "") return null;
  return fillPlaceholders(template, values);
}

/**
 * The card of `file`'s page at `origin`, from its `owner`'s embed settings
 * with the file's placeholder `values` ({@link fileValues}); `null` when the
 * owner has embeds off, or the file has a password.
 */
export function embedOf(
  owner: UserRecord,
  file: FileRecord,
  origin: string,
  values: Record<string, string>,
): FileEmbed | null {
  if (file.password || owner.view.embed !== true) return null;
  const view = owner.view;
  const kind = (["image", "video", "audio"] as const).find((k) => file.type.startsWith(`${k}/`));
  const media = kind && file.type !== "image/svg+xml"
    ? { kind, url: `${origin}/raw/${encodeURIComponent(file.name)}`, type: file.type }
    : null;
  return {
    title: fill(view.embedTitle, values),
    description: view.embedMediaOnly ? null : fill(view.embedDescription, values),
    siteName: fill(view.embedSiteName, values),
    color: typeof view.embedColor === "string" ? view.embedColor : null,
    media,
  };
}

/**
 * The values of a file's placeholders: `{file.name}`, `{file.originalName}`,
 * `{file.size}`, `{file.type}`, `{file.views}`, `{file.id}`,
 * `{user.username}`, `{link.returned}` (its link) and `{link.raw}`.
 */
export function fileValues(
  file: FileRecord,
  username: string,
  links: { returned: string; raw: string },
): Record<string, string> {
  return {
    "file.name": file.name,
    "file.originalName": file.originalName ?? file.name,
    "file.size": formatSize(file.size),
    "file.type": file.type,
    "file.views": String(file.views),
    "file.id": file.id,
    "user.username": username,
    "link.returned": links.returned,
    "link.raw": links.raw,
  };
}
