/**
 * Removing many files at once (issue #32): a bulk delete of the API, a
 * user's deletion with its content, the cleaning tasks. The records go a
 * batch at a time through `files.deleteMany` (a few writes a batch, its
 * owners' counters moved with it), then what a deletion of one file also
 * removes, for the whole batch: its visits, its share links, and its
 * thumbnail and bytes (a few at once). Between batches the loop gives the
 * event loop a turn, so requests are served meanwhile, and stops once its
 * `signal` is aborted (a server told to stop).
 */
import type { FileRecord } from "../../db/files.ts";
import type { Services } from "../services.ts";
import { dropFileVisits } from "../visits/record.ts";
import { removeThumbnail } from "./thumbnails.ts";

/** Files one batch removes. */
export const DELETE_BATCH = 200;

/** Files whose bytes are deleted at once. */
const BYTES_AT_ONCE = 8;

/** What a bulk removal also does besides the records. */
export interface RemovalOptions {
  /** `false` keeps the bytes (Zipline's `delete_datasourceFiles` unset); default `true`. */
  bytes?: boolean;
  /** Stops between batches once aborted. */
  signal?: AbortSignal;
}

/** Lets the requests that wait run before the next batch. */
export const yieldTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Removes the files `ids`, a batch of {@link DELETE_BATCH} at a time; returns
 * the records removed (missing ids are passed over).
 */
export async function removeFilesById(
  s: Services,
  ids: string[],
  options: RemovalOptions = {},
): Promise<FileRecord[]> {
  const removed: FileRecord[] = [];
  for (let i = 0; i < ids.length; i += DELETE_BATCH) {
    if (options.signal?.aborted) break;
    if (i > 0) await yieldTurn();
    removed.push(...await removeBatch(s, ids.slice(i, i + DELETE_BATCH), options.bytes ?? true));
  }
  return removed;
}

/** One batch: the records, then the visits, links, thumbnails and bytes of those removed. */
async function removeBatch(s: Services, ids: string[], bytes: boolean): Promise<FileRecord[]> {
  const gone = await s.store.files.deleteMany(ids);
  if (gone.length === 0) return gone;
  await dropFileVisits(s, gone);
  await s.store.shares.deleteByFiles(gone.map((f) => f.id));
  if (!bytes) return gone;
  for (let i = 0; i < gone.length; i += BYTES_AT_ONCE) {
    await Promise.all(gone.slice(i, i + BYTES_AT_ONCE).map((file) => removeBytes(s, file)));
  }
  return gone;
}

/** Deletes `file`'s thumbnail and bytes; a failure is logged (the record is gone already). */
export async function removeBytes(s: Services, file: FileRecord): Promise<void> {
  await removeThumbnail(s, file);
  try {
    await s.datasource.delete(file.name);
  } catch (error) {
    s.logger.error("could not delete file bytes", { name: file.name, error });
  }
}
