/**
 * User exports (reference §4.3): a zip of all of a user's files, built in the
 * background after `POST /api/user/export` answers, then listed, downloaded
 * and deleted by the user.
 *
 * The archive goes to the datasource, at `.exports/zexport_<userId>_<ms>_<files>.zip`,
 * not to a server's temp directory: any instance behind a load balancer can
 * then serve it, and a bucket holds it as well as a disk does. No file can be
 * named with a `/` or `.exports`, so the archive never shadows a file nor a
 * file the folder, and `/raw` serves only names with a file record. The record (`store.userExports`) says
 * whether the archive is complete. A build that fails removes its record and
 * object (logged). A build under way touches its record every
 * {@link TOUCH_EVERY_MS}; one cut short by a restart stops touching it, and
 * the `cleanuploads` task removes it once it has been still for
 * {@link STALLED_AFTER_MS}, so that the user can start another.
 *
 * Archives take disk outside the user's quota (a quota counting them would
 * keep a user past half of it from ever exporting), so a user has one export
 * at a time (409 for another) and the `cleanuploads` task removes a complete
 * one {@link KEPT_FOR_MS} after it completed: one archive per user, for a day.
 */
import type { UserRecord } from "../../db/users.ts";
import type { UserExportRecord } from "../../db/user_exports.ts";
import { newId } from "../clock.ts";
import { ApiError, badRequest, notFound } from "../errors.ts";
import type { Services } from "../services.ts";
import { zipStream } from "../zip.ts";
import { exportableFiles, flatEntries } from "./archive.ts";
import { EXPORTS_FOLDER } from "./naming.ts";

/** How often a build under way says so, by touching its record. */
export const TOUCH_EVERY_MS = 60_000;
/** An incomplete export untouched this long was cut short (a restart) and is removed. */
export const STALLED_AFTER_MS = 10 * 60_000;
/** How long a complete export is kept before the `cleanuploads` task removes it. */
export const KEPT_FOR_MS = 24 * 60 * 60_000;

const exportExists = () =>
  new ApiError(
    409,
    "You already have an export: delete it to start another " +
      "(an export is removed a day after it completes)",
  );

/**
 * Starts an export of the user's files (400 `No files to export` without
 * any, 409 while the user has one) and returns its record; the archive is
 * built after this returns.
 */
export async function startUserExport(s: Services, user: UserRecord): Promise<UserExportRecord> {
  if ((await s.store.userExports.listByUser(user.id)).length > 0) throw exportExists();
  // From the counters (issue #32): the archive then reads the files a page at a time.
  const count = (await s.store.files.stats(user.id)).files;
  if (count === 0) throw badRequest("No files to export");
  const now = new Date(s.clock.now());
  const record: UserExportRecord = {
    id: newId(s.random, now.getTime()),
    userId: user.id,
    path: `${EXPORTS_FOLDER}/zexport_${user.id}_${now.getTime()}_${count}.zip`,
    files: count,
    size: 0,
    completed: false,
    createdAt: now,
    updatedAt: now,
  };
  if (!await s.store.userExports.create(record)) throw exportExists();
  s.logger.info("user export started", { user: user.id, export: record.id, files: count });
  void build(s, record);
  return record;
}

/** Streams the archive into the datasource and completes the record; never rejects. */
async function build(s: Services, record: UserExportRecord): Promise<void> {
  const touching = setInterval(() => {
    s.store.userExports.touch(record.id, new Date(s.clock.now())).catch((error) =>
      s.logger.warn("user export touch failed", { export: record.id, error })
    );
  }, TOUCH_EVERY_MS);
  Deno.unrefTimer(touching);
  try {
    const archive = zipStream(flatEntries(s, exportableFiles(s, record.userId)));
    const size = await s.datasource.put(record.path, archive, { contentType: "application/zip" });
    if (await s.store.userExports.complete(record.id, size, new Date(s.clock.now()))) {
      s.logger.info("user export completed", { export: record.id, size });
      return;
    }
    // Deleted while it was being built.
    await s.datasource.delete(record.path);
  } catch (error) {
    s.logger.error("user export failed", { export: record.id, error });
    await Promise.allSettled([
      s.store.userExports.delete(record.id),
      s.datasource.delete(record.path),
    ]);
  } finally {
    clearInterval(touching);
  }
}

/**
 * Removes, records and archives, the exports whose build stopped (untouched
 * for {@link STALLED_AFTER_MS}) and those complete for {@link KEPT_FOR_MS};
 * returns how many.
 */
export async function removeOldExports(s: Services): Promise<number> {
  const now = s.clock.now();
  const old = (await s.store.userExports.listUpdatedBefore(new Date(now - STALLED_AFTER_MS)))
    .filter((e) => !e.completed || e.updatedAt.getTime() < now - KEPT_FOR_MS);
  await removeExports(s, old);
  for (const record of old) {
    const fields = { export: record.id, user: record.userId };
    if (record.completed) s.logger.info("user export kept a day removed", fields);
    else s.logger.warn("user export cut short removed", fields);
  }
  return old.length;
}

/** The user's exports, oldest first. */
export async function listUserExports(s: Services, user: UserRecord) {
  return await s.store.userExports.listByUser(user.id);
}

/** The user's export with this id; 404 for a missing one or someone else's. */
async function ownExport(s: Services, user: UserRecord, id: string): Promise<UserExportRecord> {
  const record = await s.store.userExports.get(id);
  if (!record || record.userId !== user.id) throw notFound();
  return record;
}

/** A finished export's download: its file name, size and bytes. */
export interface ExportDownload {
  name: string;
  size: number;
  stream: ReadableStream<Uint8Array>;
}

/** The archive of the user's export `id`; 400 `Export is not completed` while it is being built. */
export async function downloadUserExport(
  s: Services,
  user: UserRecord,
  id: string,
): Promise<ExportDownload> {
  const record = await ownExport(s, user, id);
  if (!record.completed) throw badRequest("Export is not completed");
  const stream = await s.datasource.get(record.path);
  if (!stream) throw notFound();
  return { name: record.path.slice(EXPORTS_FOLDER.length + 1), size: record.size, stream };
}

/** Deletes the user's export `id` (400 `No ID provided` without one), record and archive. */
export async function deleteUserExport(
  s: Services,
  user: UserRecord,
  id: string | undefined,
): Promise<void> {
  if (!id) throw badRequest("No ID provided");
  const record = await ownExport(s, user, id);
  await s.store.userExports.delete(record.id);
  await s.datasource.delete(record.path);
}

/** Deletes every export of a user, records and archives (the user is being deleted). */
export async function removeUserExports(s: Services, userId: string): Promise<void> {
  await removeExports(s, await s.store.userExports.listByUser(userId));
}

/** Deletes `records` and their archives. */
async function removeExports(s: Services, records: UserExportRecord[]): Promise<void> {
  for (const record of records) {
    await s.store.userExports.delete(record.id);
    await s.datasource.delete(record.path);
  }
}
