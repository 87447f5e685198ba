/**
 * What the dashboard's home shows of a user's files (reference §4.2): the
 * most recent ones and the totals. The files' totals are the store's
 * counters, kept with each write (`FileStore.stats`); no file or URL list is
 * loaded for them.
 */
import type { UserRecord } from "../../db/users.ts";
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

const DAY_MS = 24 * 60 * 60 * 1000;
/** How many files a page of the activity scan reads. */
const ACTIVITY_PAGE = 200;

/**
 * The caller's uploads and logins per UTC day over the last `days` days,
 * today included, oldest first, with their totals. Uploads are the files
 * still kept; logins the sessions still kept (Zipline counts the same).
 * Files are read newest first a page at a time, stopping at the window's
 * start, so older files are never loaded.
 */
export async function userActivity(s: Services, caller: UserRecord, days: number) {
  const today = Math.floor(s.clock.now() / DAY_MS) * DAY_MS;
  const start = today - (days - 1) * DAY_MS;
  const series = Array.from({ length: days }, (_, i) => ({
    date: new Date(start + i * DAY_MS),
    uploads: 0,
    logins: 0,
  }));
  /** Counts one `kind` on the day of `at`, when that day is in the window. */
  const count = (at: Date, kind: "uploads" | "logins") => {
    const day = series[Math.floor((at.getTime() - start) / DAY_MS)];
    if (day) day[kind]++;
  };
  for (let offset = 0;; offset += ACTIVITY_PAGE) {
    const { files } = await s.store.files.list({
      userId: caller.id,
      offset,
      limit: ACTIVITY_PAGE,
      sortBy: "createdAt",
      order: "desc",
    });
    for (const f of files) count(f.createdAt, "uploads");
    const last = files.at(-1);
    if (files.length < ACTIVITY_PAGE || !last || last.createdAt.getTime() < start) break;
  }
  for (const session of await s.store.sessions.listByUser(caller.id)) {
    count(session.createdAt, "logins");
  }
  return {
    days,
    series,
    totals: {
      uploads: series.reduce((n, d) => n + d.uploads, 0),
      logins: series.reduce((n, d) => n + d.logins, 0),
    },
  };
}
