/**
 * What the dashboard's home shows of a user's files (reference §4.2): the
 * most recent ones and the totals. The totals are aggregated by the store;
 * no file or URL list is loaded for them.
 */
import type { UserRecord } from "../../db/store.ts";
import type { Services } from "../services.ts";
import { taggedViews } from "./manage.ts";

/** The caller's `take` newest complete files, newest first, as the files list shows them. */
export async function recentFiles(s: Services, caller: UserRecord, take: number) {
  const { files } = await s.store.files.list({
    userId: caller.id,
    offset: 0,
    limit: take,
    sortBy: "createdAt",
    order: "desc",
  });
  return await taggedViews(s, files);
}

/** The caller's totals, in Zipline's names; averages are per file (0 without files). */
export async function userStats(s: Services, caller: UserRecord) {
  const files = await s.store.files.stats(caller.id);
  const urls = await s.store.urls.statsByUser(caller.id);
  const average = (total: number) => files.files === 0 ? 0 : total / files.files;
  return {
    filesUploaded: files.files,
    favoriteFiles: files.favorites,
    views: files.views,
    avgViews: average(files.views),
    storageUsed: files.bytes,
    avgStorageUsed: average(files.bytes),
    urlsCreated: urls.urls,
    urlViews: urls.views,
    sortTypeCount: files.types,
  };
}
