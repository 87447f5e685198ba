/**
 * Server maintenance for administrators (reference §4.8): clearing Ferry's
 * temporary files, finding and removing files recorded with no bytes, and
 * re-reading file sizes from the datasource. Each answers Zipline's status
 * sentence, word for word, so that its dashboard and scripts read them.
 */
import { join } from "node:path";
import type { FileRecord } from "../db/files.ts";
import { removeFile } from "./files/serve.ts";
import type { Services } from "./services.ts";
import { removeFiles } from "./tasks/cleanup.ts";

/** The prefix of every entry Ferry makes in `coreTempDirectory`; nothing else there is touched. */
export const TEMP_PREFIX = "ferry-";

/** Removes Ferry's entries (import spools) from the temp directory; returns the status. */
export async function clearTemp(s: Services): Promise<string> {
  const dir = s.settings.get("coreTempDirectory");
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.name.startsWith(TEMP_PREFIX)) names.push(entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return "Temp directory does not exist, so no files were cleared.";
    }
    throw error;
  }
  if (names.length === 0) return "No temporary zipline files found, so no files were cleared.";
  for (const name of names) await Deno.remove(join(dir, name), { recursive: true });
  return `Cleared ${names.length} temporary zipline files.`;
}

const isZero = (f: FileRecord) => !f.pending && f.size === 0;

/** The complete files recorded with a size of 0. */
export async function zeroSizeFiles(s: Services): Promise<{ id: string; name: string }[]> {
  const found: { id: string; name: string }[] = [];
  for await (const f of s.store.files.iterate()) {
    if (isZero(f)) found.push({ id: f.id, name: f.name });
  }
  return found;
}

/** Removes the files of {@link zeroSizeFiles}, records and objects; returns the status. */
export async function clearZeroSizeFiles(s: Services): Promise<string> {
  return `Cleared ${await removeFiles(s, isZero)} files with a size of 0.`;
}

/** The records {@link filePages} reads at once. */
const PAGE = 500;

/**
 * Every file, a page of records at a time in id order (issue #32: no list of
 * every file held), the store's reading closed while the caller handles a page.
 */
async function* filePages(s: Services): AsyncGenerator<FileRecord[]> {
  let after: string | undefined;
  while (true) {
    const page: FileRecord[] = [];
    for await (const file of s.store.files.iterate(after)) {
      page.push(file);
      if (page.length === PAGE) break;
    }
    if (page.length > 0) yield page;
    if (page.length < PAGE) return;
    after = page[PAGE - 1].id;
  }
}

/** What {@link requerySizes} re-reads and may do. */
export interface RequeryOptions {
  /** Remove the records of files whose bytes are gone. */
  forceDelete: boolean;
  /** Re-read every file's size, not only those recorded as 0. */
  forceUpdate: boolean;
}

/**
 * Sets the recorded size of complete files to the size of their bytes in the
 * datasource: those recorded as 0, or all with `forceUpdate`. A file whose
 * bytes are gone is removed with `forceDelete`, else left and reported.
 */
export async function requerySizes(s: Services, options: RequeryOptions): Promise<string> {
  let missing = false;
  for await (const page of filePages(s)) {
    for (const file of page) {
      if (file.pending || (!options.forceUpdate && file.size !== 0)) continue;
      const size = await s.datasource.size(file.name);
      if (size === null) {
        if (options.forceDelete) await removeFile(s, file);
        else missing = true;
      } else if (size !== file.size) {
        await s.store.files.resize(file.id, size, new Date(s.clock.now()));
      }
    }
  }
  return missing
    ? "At least one file did not exist within the datasource but was on the database, re run " +
      "the script with the force delete option on to remove these files."
    : "Finished requerying all files.";
}
