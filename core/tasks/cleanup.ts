/**
 * The cleaning tasks (reference §10): expired files, short URLs expired
 * for longer than `urlsExpiredRetention`, files and URLs past
 * their max views, used-up or expired invites, and what interrupted uploads
 * leave: chunked uploads gone idle, pending file records of an upload that
 * never finished (a crash mid-stream), staged bytes of small uploads
 * (`settleStagedUploads`), user exports whose build stopped
 * (a restart) and those complete for a day. Each returns how many things it
 * removed and is safe to run on any instance, as often as wanted. The files'
 * tasks read their candidates from the store's indexes of them
 * (`FileStore.candidates`), a page at a time, and never the whole catalogue;
 * each stops between pages once its `signal` is aborted.
 */
import type { FileCandidates, FileRecord } from "../../db/files.ts";
import type { UrlRecord } from "../../db/urls.ts";
import { DELETE_BATCH, removeFilesById, yieldTurn } from "../files/bulk_delete.ts";
import { abandonUpload } from "../files/chunked.ts";
import { settleStagedUploads } from "../files/staged_uploads.ts";
import { removeOldExports } from "../files/user_export.ts";
import type { Services } from "../services.ts";
import { parseDuration } from "../units/duration.ts";
import { removeUrl } from "../urls.ts";

/** How long a chunked upload may wait for its next chunk, and a pending file for its bytes. */
export const ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * Removes every file, record and bytes, that `doomed` picks, reading every
 * file (an administrator's maintenance, not a task); returns how many. Stops,
 * what it picked so far removed, once `signal` is aborted.
 */
export async function removeFiles(
  s: Services,
  doomed: (file: FileRecord) => boolean,
  signal?: AbortSignal,
): Promise<number> {
  const picked: string[] = [];
  for await (const file of s.store.files.iterate()) {
    if (signal?.aborted) break;
    if (doomed(file)) picked.push(file.id);
  }
  return (await removeFilesById(s, picked)).length;
}

/**
 * Removes the files `which` names, read from the store's index a page of
 * {@link DELETE_BATCH} at a time, until none is left or `signal` is aborted;
 * returns how many went.
 */
export async function removeCandidates(
  s: Services,
  which: FileCandidates,
  signal?: AbortSignal,
): Promise<number> {
  let removed = 0;
  while (!signal?.aborted) {
    const page = await s.store.files.candidates(which, DELETE_BATCH);
    if (page.length === 0) break;
    const gone = await removeFilesById(s, page.map((f) => f.id), { signal });
    removed += gone.length;
    // A short page is the last; a page of which nothing went (another pass took it) too.
    if (page.length < DELETE_BATCH || gone.length === 0) break;
    await yieldTurn();
  }
  return removed;
}

/** Deletes the files whose `deletesAt` has come. */
export async function deleteExpiredFiles(s: Services, signal?: AbortSignal): Promise<number> {
  return await removeCandidates(s, { kind: "expired", by: new Date(s.clock.now()) }, signal);
}

/** Short URLs one read of a URL task takes at a time. */
const URLS_PAGE = 500;

/**
 * Removes the short URLs `read` answers (a page of at most {@link URLS_PAGE}
 * from an index of those it names), a page at a time, until none is left or
 * `signal` is aborted: a pass reads only what it removes. Returns how many went.
 */
async function removeUrlPages(
  s: Services,
  read: (limit: number) => Promise<UrlRecord[]>,
  signal?: AbortSignal,
): Promise<number> {
  let removed = 0;
  while (!signal?.aborted) {
    const page = await read(URLS_PAGE);
    const was = removed;
    for (const url of page) if (await removeUrl(s, url.id)) removed++;
    // A short page is the last; a page of which nothing went (another pass took it) too.
    if (page.length < URLS_PAGE || removed === was) break;
  }
  return removed;
}

/**
 * Deletes the short URLs whose `expiresAt` passed more than
 * `urlsExpiredRetention` ago (none when it is null), from the store's expiry index.
 */
export async function deleteExpiredUrls(s: Services): Promise<number> {
  const retention = s.settings.get("urlsExpiredRetention");
  if (retention === null) return 0;
  const before = new Date(s.clock.now() - (parseDuration(retention) ?? 0));
  return await removeUrlPages(s, (limit) => s.store.urls.expiredBy(before, limit));
}

/**
 * Deletes the files and URLs whose views reached their `maxViews`, when
 * `featuresDeleteOnMaxViews` is on (serving already refuses them either way),
 * each read from the store's index of them.
 */
export async function deleteMaxViews(s: Services, signal?: AbortSignal): Promise<number> {
  if (!s.settings.get("featuresDeleteOnMaxViews")) return 0;
  const files = await removeCandidates(s, { kind: "exhausted" }, signal);
  return files + await removeUrlPages(s, (limit) => s.store.urls.exhausted(limit), signal);
}

/** Deletes invites that expired or were used up. */
export async function clearInvites(s: Services): Promise<number> {
  const now = s.clock.now();
  let removed = 0;
  for (const invite of await s.store.invites.list()) {
    const expired = invite.expiresAt !== null && invite.expiresAt.getTime() <= now;
    const usedUp = invite.maxUses !== null && invite.uses >= invite.maxUses;
    if ((expired || usedUp) && await s.store.invites.delete(invite.id)) removed++;
  }
  return removed;
}

/**
 * Drops chunked uploads idle for {@link ABANDONED_AFTER_MS} (their parts and
 * progress, giving back their quota reservations), pending file records as
 * old (with whatever bytes they got), user exports whose build stopped and
 * those complete for a day; settles staged uploads.
 */
export async function cleanAbandonedUploads(s: Services, signal?: AbortSignal): Promise<number> {
  const before = s.clock.now() - ABANDONED_AFTER_MS;
  const idle = await s.store.chunks.listIdle(new Date(before));
  for (const upload of idle) await abandonUpload(s, upload);
  const pending = await removeCandidates(s, { kind: "abandoned", by: new Date(before) }, signal);
  const staged = await settleStagedUploads(s);
  return idle.length + pending + staged + await removeOldExports(s);
}
