/**
 * Thumbnails: the `thumbnails` task makes one for each PNG, JPEG, GIF or video
 * file that has none (all of them on a rerun), stores its bytes in the
 * datasource as `.thumbnail.<fileId>.<ext>` and records that name on the
 * file; the `cleanthumbnails` task removes thumbnails whose file or bytes are
 * gone. Images are read, scaled and written by the image workers
 * (`image_pool.ts`), never on the server's thread, within their caps (an
 * image over them gets none, decided on its header); videos need the
 * system's `ffmpeg` (`video.ts`) and are skipped, with one log line a pass,
 * where there is none.
 */
import type { FileRecord } from "../../db/files.ts";
import { THUMBNAIL_SOURCES, UnreadableSourceError } from "./image_facts.ts";
import { MAX_DECODED_BYTES, movable, thumbnailInWorkers } from "./image_pool.ts";
import { inFfmpegTurn, videoThumbnail, type VideoThumbnailFormat } from "./video.ts";
import { notFound } from "../errors.ts";
import { THUMBNAIL_PREFIX } from "./naming.ts";
import { perServices, type Services } from "../services.ts";

/** The MIME type of each thumbnail extension. */
const THUMBNAIL_TYPES: Record<string, string> = {
  jpg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
};

/** The name of `fileId`'s thumbnail in `format`. */
function thumbnailName(fileId: string, format: VideoThumbnailFormat): string {
  return `${THUMBNAIL_PREFIX}${fileId}.${format}`;
}

/** The file id and MIME type a thumbnail name stands for, or `null` when it is not one. */
export function parseThumbnailName(name: string): { fileId: string; type: string } | null {
  if (!name.startsWith(THUMBNAIL_PREFIX)) return null;
  const rest = name.slice(THUMBNAIL_PREFIX.length);
  const dot = rest.lastIndexOf(".");
  const type = THUMBNAIL_TYPES[rest.slice(dot + 1)];
  return dot > 0 && type ? { fileId: rest.slice(0, dot), type } : null;
}

/** Whether `file` is a video ffmpeg is asked about. */
const isVideo = (file: FileRecord) => file.type.startsWith("video/");

/** Whether `file` is one a thumbnail is made of. */
function hasSource(file: FileRecord): boolean {
  if (file.pending || file.size === 0) return false;
  return isVideo(file) || (file.size <= MAX_DECODED_BYTES && THUMBNAIL_SOURCES.includes(file.type));
}

/** The thumbnail of `body`, the bytes of `file`; throws {@link UnreadableSourceError}. */
async function render(
  s: Services,
  file: FileRecord,
  body: ReadableStream<Uint8Array>,
  format: VideoThumbnailFormat,
): Promise<Uint8Array> {
  if (!isVideo(file)) {
    const parts: Uint8Array[] = [];
    for await (const chunk of body) if (chunk.byteLength > 0) parts.push(movable(chunk));
    return await thumbnailInWorkers(parts, format);
  }
  if (!s.ffmpeg) {
    await body.cancel();
    throw new UnreadableSourceError("ffmpeg is not available");
  }
  return await videoThumbnail(s.ffmpeg, body, format, s.settings.get("coreTempDirectory"));
}

/**
 * Makes and records `file`'s thumbnail; `false` when its bytes are missing or
 * unreadable. A video waits for its ffmpeg turn before it is opened.
 */
function thumbnailFile(s: Services, file: FileRecord): Promise<boolean> {
  if (isVideo(file) && s.ffmpeg) return inFfmpegTurn(() => makeThumbnailOf(s, file));
  return makeThumbnailOf(s, file);
}

/** {@link thumbnailFile}'s work. */
async function makeThumbnailOf(s: Services, file: FileRecord): Promise<boolean> {
  const body = await s.datasource.get(file.name);
  if (body === null) return false;
  const format = s.settings.get("featuresThumbnailsFormat");
  let bytes: Uint8Array;
  try {
    bytes = await render(s, file, body, format);
  } catch (error) {
    if (!(error instanceof UnreadableSourceError)) throw error;
    s.logger.warn("no thumbnail", { id: file.id, type: file.type, reason: error.reason });
    return false;
  }
  const name = thumbnailName(file.id, format);
  await s.datasource.put(name, ReadableStream.from([bytes]));
  const updated = await s.store.files.update(file.id, { thumbnail: name }, new Date(s.clock.now()));
  if (updated === null) {
    await s.datasource.delete(name);
    return false;
  }
  if (file.thumbnail && file.thumbnail !== name) await removeThumbnail(s, file);
  return true;
}

/** The pass under way in each process, so that two never overlap. */
const passes = new WeakMap<Services, Promise<unknown>>();
/** Where each process's scheduled passes stopped reading: the last file id read. */
const reached = new WeakMap<Services, string>();
/** Files one scheduled pass reads at most; the next pass goes on from there (issue #32). */
export const THUMBNAIL_SCAN = 20_000;

/**
 * The `thumbnails` task: thumbnails for the files without one (every file
 * they can be made of when `rerun`), while `featuresThumbnailsEnabled`,
 * `featuresThumbnailsNumberThreads` at a time; returns how many it made.
 * A pass asked for while one runs starts when that one ends.
 */
export function generateThumbnails(
  s: Services,
  rerun = false,
  signal?: AbortSignal,
  scan = THUMBNAIL_SCAN,
): Promise<number> {
  const pass = (passes.get(s) ?? Promise.resolve()).catch(() => {}).then(() =>
    runPass(s, rerun, scan, signal)
  );
  passes.set(s, pass);
  return pass;
}

/**
 * One pass: reads the files in id order and thumbnails those that need one,
 * `featuresThumbnailsNumberThreads` at a time as they are read (no list of
 * them is gathered). A rerun reads every file; any other pass reads at most
 * `scan` files ({@link THUMBNAIL_SCAN}) after where the last one stopped, starting over
 * after the last file, so no pass reads the whole catalogue of a large
 * instance.
 */
async function runPass(
  s: Services,
  rerun: boolean,
  scan: number,
  signal?: AbortSignal,
): Promise<number> {
  if (!s.settings.get("featuresThumbnailsEnabled")) return 0;
  let videos = 0;
  let made = 0;
  let read = 0;
  const threads = s.settings.get("featuresThumbnailsNumberThreads");
  const running = new Set<Promise<void>>();
  const after = rerun ? undefined : reached.get(s);
  let last: string | undefined;
  for await (const file of s.store.files.iterate(after)) {
    if (signal?.aborted) break;
    if (!rerun && ++read > scan) break;
    last = file.id;
    if (!hasSource(file) || (!rerun && file.thumbnail)) continue;
    if (isVideo(file) && !s.ffmpeg) {
      videos++;
      continue;
    }
    const job = thumbnailFile(s, file).then(
      (done) => void (done && made++),
      (error) => s.logger.error("thumbnail failed", { id: file.id, error }),
    ).finally(() => running.delete(job));
    running.add(job);
    if (running.size >= threads) await Promise.race(running);
  }
  await Promise.all(running);
  if (!rerun) {
    // Read to the end: the next pass starts over; else it goes on after the last file read.
    if (read <= scan && !signal?.aborted) reached.delete(s);
    else if (last !== undefined) reached.set(s, last);
  }
  if (videos > 0) {
    s.logger.info("video thumbnails skipped: ffmpeg is not installed, or may not be run", {
      videos,
    });
  }
  return made;
}

/**
 * `POST /api/server/thumbnails`: starts a pass in the background and answers
 * Zipline's status sentence at once (the pass logs what it made); 404 when
 * `featuresThumbnailsEnabled` is off.
 */
export function runThumbnails(s: Services, rerun: boolean): string {
  if (!s.settings.get("featuresThumbnailsEnabled")) throw notFound("Thumbnails task not found");
  generateThumbnails(s, rerun).then(
    (made) => s.logger.info("thumbnails made", { made, rerun }),
    (error) => s.logger.error("thumbnails failed", { rerun, error }),
  );
  return `Thumbnails are being generated${
    rerun ? " (rerun)" : ""
  }. This may take a while, check your logs for progress.`;
}

/** Thumbnails for freshly uploaded `files` when `featuresThumbnailsInstantaneous` is on. */
export async function thumbnailUploads(s: Services, files: FileRecord[]): Promise<void> {
  if (!s.settings.get("featuresThumbnailsEnabled")) return;
  if (!s.settings.get("featuresThumbnailsInstantaneous")) return;
  for (const file of files) {
    if (!hasSource(file) || (isVideo(file) && !s.ffmpeg)) continue;
    try {
      await thumbnailFile(s, file);
    } catch (error) {
      s.logger.error("thumbnail failed", { id: file.id, error });
    }
  }
}

/** Thumbnail names one read of their files takes, and files with a thumbnail one page holds. */
const CLEAN_PAGE = 200;
/**
 * Thumbnail objects, and files with a thumbnail, one `cleanthumbnails` pass
 * checks at most of each; the next goes on from there.
 */
export const THUMBNAIL_CHECKS = 5_000;
/**
 * Where this process's `cleanthumbnails` passes stand: the last thumbnail
 * object and the last file id checked.
 */
const cleanedUpTo = perServices((_: Services) => ({
  object: undefined as string | undefined,
  after: undefined as string | undefined,
}));

/**
 * The `cleanthumbnails` task: deletes the thumbnail objects no file records
 * (listed a page of names at a time, their files read by id) and forgets the
 * thumbnails whose object is gone (files read from the store's index of
 * them), checking at most {@link THUMBNAIL_CHECKS} of each a pass, going on
 * where the last pass stopped; returns how many of both. Each is checked
 * again before it goes, so a thumbnail made meanwhile stays.
 */
export async function cleanThumbnails(s: Services, signal?: AbortSignal): Promise<number> {
  const at = cleanedUpTo(s);
  let cleaned = 0;
  // One listing a pass (a directory is read through once), its names checked a page at a time.
  const names = await s.datasource.listAfter(THUMBNAIL_PREFIX, at.object, THUMBNAIL_CHECKS);
  for (let i = 0; i < names.length && !signal?.aborted; i += CLEAN_PAGE) {
    const page = names.slice(i, i + CLEAN_PAGE);
    cleaned += await removeOrphans(s, page);
    at.object = page.at(-1);
  }
  // All listed and checked: the next pass starts over.
  if (names.length < THUMBNAIL_CHECKS && !signal?.aborted) at.object = undefined;
  for (let checks = 0; checks < THUMBNAIL_CHECKS && !signal?.aborted;) {
    const page = await s.store.files.candidates(
      { kind: "thumbnailed", after: at.after },
      CLEAN_PAGE,
    );
    for (const file of page) {
      if (signal?.aborted) break;
      at.after = file.id;
      checks++;
      if (await s.datasource.size(file.thumbnail!) !== null) continue;
      const now = new Date(s.clock.now());
      const fresh = await s.store.files.get(file.id);
      if (fresh?.thumbnail !== file.thumbnail) continue;
      await s.store.files.update(file.id, { thumbnail: null }, now);
      cleaned++;
    }
    if (page.length < CLEAN_PAGE) {
      at.after = undefined; // all checked: the next pass starts over
      break;
    }
  }
  return cleaned;
}

/** Deletes those of the thumbnail objects `names` whose file is gone or records another. */
async function removeOrphans(s: Services, names: string[]): Promise<number> {
  const ids = names.flatMap((name) => parseThumbnailName(name)?.fileId ?? []);
  const files = new Map((await s.store.files.getMany(ids)).map((f) => [f.id, f]));
  let removed = 0;
  for (const name of names) {
    const fileId = parseThumbnailName(name)?.fileId;
    if (fileId !== undefined && files.get(fileId)?.thumbnail === name) continue;
    // Read again: a thumbnail made since the page was read stays.
    if (fileId !== undefined && (await s.store.files.get(fileId))?.thumbnail === name) continue;
    await s.datasource.delete(name);
    removed++;
  }
  return removed;
}

/** Deletes `file`'s thumbnail bytes, if it has any (the record goes with the file). */
export async function removeThumbnail(s: Services, file: FileRecord): Promise<void> {
  if (!file.thumbnail) return;
  try {
    await s.datasource.delete(file.thumbnail);
  } catch (error) {
    s.logger.error("could not delete thumbnail bytes", { name: file.thumbnail, error });
  }
}

/**
 * `file`'s thumbnail as a record to serve: its name, size and type, with the
 * file's id and dates; `null` when it has none or its bytes are gone.
 */
export async function thumbnailRecord(s: Services, file: FileRecord): Promise<FileRecord | null> {
  const parsed = file.thumbnail ? parseThumbnailName(file.thumbnail) : null;
  if (!parsed) return null;
  const size = await s.datasource.size(file.thumbnail!);
  if (size === null) return null;
  return {
    ...file,
    id: file.thumbnail!,
    name: file.thumbnail!,
    originalName: null,
    size,
    type: parsed.type,
    createdAt: file.updatedAt,
  };
}
