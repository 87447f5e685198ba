/**
 * Thumbnails of image files: the `thumbnails` task makes one for each PNG or
 * JPEG file that has none (all of them on a rerun), stores its bytes in the
 * datasource as `.thumbnail.<fileId>.<ext>` and records that name on the
 * file. `/raw/.thumbnail…` serves it while its file has no password.
 * Zipline makes thumbnails of videos (with ffmpeg); Ferry of images.
 */
import type { FileRecord } from "../../db/files.ts";
import {
  makeThumbnail,
  THUMBNAIL_SOURCES,
  type ThumbnailFormat,
  UnreadableImageError,
} from "./images.ts";
import { notFound } from "../errors.ts";
import type { Services } from "../services.ts";

/** The prefix of every thumbnail's datasource name. */
export const THUMBNAIL_PREFIX = ".thumbnail.";

/** The largest source read, in bytes; bigger images get no thumbnail. */
const MAX_SOURCE_BYTES = 64 * 1024 * 1024;

/** The name of `fileId`'s thumbnail in `format`. */
export function thumbnailName(fileId: string, format: ThumbnailFormat): string {
  return `${THUMBNAIL_PREFIX}${fileId}.${format}`;
}

/**
 * The configured format. No pure-JavaScript WebP encoder is available, so
 * `webp` is written as PNG.
 */
function thumbnailFormat(s: Services): ThumbnailFormat {
  return s.settings.get("featuresThumbnailsFormat") === "jpg" ? "jpg" : "png";
}

/** Whether `file` is one a thumbnail is made of. */
function hasSource(file: FileRecord): boolean {
  return !file.pending && file.size > 0 && file.size <= MAX_SOURCE_BYTES &&
    THUMBNAIL_SOURCES.includes(file.type);
}

/** Makes and records `file`'s thumbnail; `false` when its bytes are missing or unreadable. */
export async function thumbnailFile(s: Services, file: FileRecord): Promise<boolean> {
  const body = await s.datasource.get(file.name);
  if (body === null) return false;
  const format = thumbnailFormat(s);
  let bytes: Uint8Array;
  try {
    bytes = makeThumbnail(await new Response(body).bytes(), format);
  } catch (error) {
    if (!(error instanceof UnreadableImageError)) throw error;
    s.logger.warn("no thumbnail: unreadable image", { id: file.id, reason: error.reason });
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

/**
 * The `thumbnails` task: thumbnails for the image files without one (every
 * image file when `rerun`), while `featuresThumbnailsEnabled`; returns how many it made.
 */
export async function generateThumbnails(s: Services, rerun = false): Promise<number> {
  if (!s.settings.get("featuresThumbnailsEnabled")) return 0;
  const todo: FileRecord[] = [];
  for await (const file of s.store.files.iterate()) {
    if (hasSource(file) && (rerun || !file.thumbnail)) todo.push(file);
  }
  let made = 0;
  for (const file of todo) if (await thumbnailFile(s, file)) made++;
  return made;
}

/**
 * `POST /api/server/thumbnails`: runs the task now and answers Zipline's
 * status sentence; 404 when `featuresThumbnailsEnabled` is off.
 */
export async function runThumbnails(s: Services, rerun: boolean): Promise<string> {
  if (!s.settings.get("featuresThumbnailsEnabled")) throw notFound("Thumbnails task not found");
  const made = await generateThumbnails(s, rerun);
  s.logger.info("thumbnails made", { made, rerun });
  return `Thumbnails are being generated${
    rerun ? " (rerun)" : ""
  }. This may take a while, check your logs for progress.`;
}

/** Thumbnails for freshly uploaded `files` when `featuresThumbnailsInstantaneous` is on. */
export async function thumbnailUploads(s: Services, files: FileRecord[]): Promise<void> {
  if (!s.settings.get("featuresThumbnailsEnabled")) return;
  if (!s.settings.get("featuresThumbnailsInstantaneous")) return;
  for (const file of files) {
    if (!hasSource(file)) continue;
    try {
      await thumbnailFile(s, file);
    } catch (error) {
      s.logger.error("thumbnail failed", { id: file.id, error });
    }
  }
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
 * The bytes of the thumbnail `name` (`.thumbnail.<fileId>.<ext>`) with their
 * type, or `null` when no file records it or that file has a password.
 */
export async function thumbnailBytes(
  s: Services,
  name: string,
): Promise<{ body: ReadableStream<Uint8Array>; type: string } | null> {
  const rest = name.slice(THUMBNAIL_PREFIX.length);
  const dot = rest.lastIndexOf(".");
  if (!name.startsWith(THUMBNAIL_PREFIX) || dot <= 0) return null;
  const file = await s.store.files.get(rest.slice(0, dot));
  if (!file || file.pending || file.password !== null || file.thumbnail !== name) return null;
  const body = await s.datasource.get(name);
  if (body === null) return null;
  return { body, type: rest.slice(dot + 1) === "jpg" ? "image/jpeg" : "image/png" };
}
