/**
 * `filesExtensionlessUrls` (Zipline's setting of that name): while it is on,
 * the links Ferry returns for files leave the extension out
 * (`/u/abc123` for `abc123.png`), and the public routes find a file by its
 * name without the extension when no file has that exact name.
 */
import type { FileRecord } from "../../db/files.ts";
import type { Services } from "../services.ts";
import type { Settings } from "../settings/registry.ts";
import { extensionOf } from "./naming.ts";

/** How many files sharing a stem {@link fileByLinkName} looks at. */
const STEM_CANDIDATES = 50;

/** The stored `name` without its extension (a double one such as `.tar.gz` whole). */
function stemOf(name: string): string {
  return name.slice(0, name.length - extensionOf(name).length);
}

/** The name a returned link carries for the file `name`: without its extension while the setting is on. */
export function linkedName(
  settings: Pick<Settings, "filesExtensionlessUrls">,
  name: string,
): string {
  if (!settings.filesExtensionlessUrls) return name;
  return stemOf(name) || name;
}

/**
 * The file a public link names: the file of exactly that name; else, while
 * the setting is on, the newest complete file whose name is the link's plus
 * an extension. `null` when there is none. With `cached`, the exact name is
 * looked up through the store's one-second cache (`db/cached_files.ts`).
 */
export async function fileByLinkName(
  s: Services,
  name: string,
  options: { cached?: boolean } = {},
): Promise<FileRecord | null> {
  const exact = options.cached
    ? await s.store.files.resolve(name)
    : await s.store.files.getByName(name);
  if (exact !== null || !s.settings.get("filesExtensionlessUrls")) return exact;
  const candidates = await s.store.files.namedWithPrefix(`${name}.`, STEM_CANDIDATES);
  const matching = candidates.filter((f) => !f.pending && stemOf(f.name) === name);
  matching.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  return matching[0] ?? null;
}
