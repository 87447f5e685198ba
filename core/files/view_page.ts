/**
 * What a file's page (`/view/<name>`) shows around the file, from its
 * owner's view settings (`PATCH /api/user {view}`, Zipline's "view routes",
 * reference §6.4): the card a chat shows for the link (`embed.ts`), and, as
 * Zipline draws them whether or not links lead to the page, the file's type
 * (`showMimetype`), its tags (`showTags`), its folder (`showFolder`: a link
 * when the folder's page is public), and the owner's own text under the file
 * (`content`, Markdown, with Zipline's placeholders filled in and escaped)
 * aligned as `align` says.
 */
import type { FileRecord } from "../../db/files.ts";
import type { UserRecord } from "../../db/users.ts";
import { escapeMarkdown, fillPlaceholders } from "../placeholders.ts";
import type { Services } from "../services.ts";
import { routeLink } from "../links.ts";
import { embedOf, type FileEmbed, fileValues } from "./embed.ts";
import { linkedName } from "./extensionless.ts";
import { storedType } from "./media_type.ts";

/** How the owner's text is aligned. */
export type ViewAlign = "left" | "center" | "right";

/** What the owner chose to show on their files' pages. */
export interface ViewExtras {
  align: ViewAlign;
  /** The file's type, or `null` when not shown. */
  type: string | null;
  /** The file's tags (name and colour), or `null` when not shown. */
  tags: { name: string; color: string }[] | null;
  /** The file's folder, when shown and the file is in one; `link` when its page is public. */
  folder: { name: string; link: string | null } | null;
  /** The owner's text (Markdown, placeholders filled in), or `null`. */
  content: string | null;
}

/** What a file's page shows besides the file. */
export interface ViewPageExtras {
  embed: FileEmbed | null;
  /** `null` for a file without an owner. */
  extras: ViewExtras | null;
}

/** The page of `file` at `origin`: the card and the owner's extras (read once). */
export async function viewPageOf(
  s: Services,
  file: FileRecord,
  origin: string,
): Promise<ViewPageExtras> {
  const owner = file.userId ? await s.store.users.get(file.userId) : null;
  if (!owner) return { embed: null, extras: null };
  const links = {
    returned: routeLink(
      origin,
      s.settings.get("filesRoute"),
      linkedName(s.settings.all(), file.name),
    ),
    raw: `${origin}/raw/${encodeURIComponent(file.name)}`,
  };
  const values = fileValues(file, owner.username, links);
  return {
    embed: embedOf(owner, file, origin, values),
    extras: await extrasOf(s, owner, file, values),
  };
}

/** `value` when it is one of the alignments, else Zipline's default, left. */
function alignOf(value: unknown): ViewAlign {
  return value === "center" || value === "right" ? value : "left";
}

/** What `owner` shows on `file`'s page, its text filled with the file's placeholder `values`. */
async function extrasOf(
  s: Services,
  owner: UserRecord,
  file: FileRecord,
  values: Record<string, string>,
): Promise<ViewExtras> {
  const view = owner.view;
  const [tags, folder] = await Promise.all([
    view.showTags === true ? s.store.tags.tagsOfFiles([file.id]) : null,
    view.showFolder === true && file.folderId ? s.store.folders.get(file.folderId) : null,
  ]);
  const content = typeof view.content === "string" && view.content.trim() !== ""
    ? fillPlaceholders(view.content, values, escapeMarkdown)
    : null;
  return {
    align: alignOf(view.align),
    type: view.showMimetype === true ? storedType(file.type) : null,
    tags: tags ? (tags.get(file.id) ?? []).map((t) => ({ name: t.name, color: t.color })) : null,
    folder: folder
      ? {
        name: folder.name,
        link: folder.public && !folder.private ? `/folder/${encodeURIComponent(folder.id)}` : null,
      }
      : null,
    content,
  };
}
