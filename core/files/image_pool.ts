/**
 * Where images are decoded and encoded: the process's pool of image workers
 * (`image_worker.ts`, run by `../worker_pool.ts`), never the server's thread,
 * so a large image cannot stall other requests; and the caps that bound what
 * a worker is given, checked on the image's header before anything is
 * decoded, so a small file declaring a huge image costs nothing.
 *
 * The caps come from measurement (bench/images.ts, bench/results/images.md):
 * an image at its cap takes the workers' whole memory budget (about 250 MB
 * above the idle process, the file's copies included), and the pool runs
 * images together only while their shares of that budget add up to one at
 * most, so image work never grows the process by more than the budget.
 * Encoding takes more memory per pixel than decoding, and JPEG XL's encoder
 * far more than the others, so compression has lower caps than thumbnails.
 */
import { PoolBusyError, transferable, WorkerJobError, WorkerPool } from "../worker_pool.ts";
import type { EncodedFormat } from "./codecs.ts";
import { areaOf, type ImageHeader, imageHeader } from "./image_header.ts";
import { IMAGE_WORKER_NAME, type ImageJob, type ThumbnailOutput } from "./image_worker.ts";
import { type Pixels, UnreadableSourceError } from "./images.ts";

/** The most pixels decoded for a thumbnail. */
export const THUMBNAIL_PIXEL_CAP = 16_000_000;

/**
 * The most pixels compressed into each format: the sum over all the images of
 * one upload request, as each is also one job's.
 */
export const COMPRESSION_PIXEL_CAPS: Readonly<Record<EncodedFormat, number>> = {
  jpg: 12_000_000,
  png: 12_000_000,
  webp: 12_000_000,
  jxl: 2_000_000,
};

/** The largest image file decoded (its bytes are copied into the worker and its decoder). */
export const MAX_DECODED_BYTES = 32 * 1024 * 1024;

/** The per-request count of pixels compressed, against the format's cap. */
export class PixelBudget {
  #left: number;

  constructor(readonly cap: number) {
    this.#left = cap;
  }

  /** The pixels not taken yet. */
  get left(): number {
    return this.#left;
  }

  /** Takes `area` pixels from what is left; `false` (nothing taken) when they do not fit. */
  take(area: number): boolean {
    if (area > this.#left) return false;
    this.#left -= area;
    return true;
  }
}

/**
 * The workers' module: this folder's `image_worker.ts`, or, when this code
 * was bundled into one file (whose URL is then this module's), the bundle,
 * which serves image jobs when started as an image worker. (This module
 * imports `image_worker.ts`, so bundles and `deno compile` carry it.)
 */
const WORKER_URL = import.meta.url.endsWith("/image_pool.ts")
  ? new URL("./image_worker.ts", import.meta.url)
  : new URL(import.meta.url);

/** Workers at once: half the CPUs, at least one, so the server's thread keeps a CPU. */
export const IMAGE_WORKERS = Math.max(1, Math.floor(navigator.hardwareConcurrency / 2));

let pool: WorkerPool | null = null;

/** The process's image pool, made on first use. */
export function imagePool(): WorkerPool {
  return pool ??= new WorkerPool({
    url: WORKER_URL,
    name: IMAGE_WORKER_NAME,
    size: IMAGE_WORKERS,
    maxQueue: 64,
    timeoutMs: 120_000,
    // A worker that handled a tenth of a capped image ends, giving its memory back.
    recycleWeight: 0.1,
    idleMs: 5_000,
  });
}

/** The share of the pool's budget an image of `area` pixels (of `cap`) and `bytes` takes. */
const weightOf = (area: number, cap: number, bytes: number) =>
  Math.max(area / cap, bytes / MAX_DECODED_BYTES);

/**
 * `bytes`, an image whose header is `header` (within `cap` pixels), decoded
 * and written as `format` at `quality` by the image workers: decoded by one
 * worker and written by another, so the decoder's memory is gone before the
 * encoder's grows. Throws when it does not decode or encode
 * ({@link WorkerJobError}) or the pool is busy ({@link PoolBusyError}).
 */
export function compressInWorkers(
  bytes: Uint8Array,
  header: ImageHeader,
  cap: number,
  format: EncodedFormat,
  quality: number,
): Promise<Uint8Array> {
  const weight = weightOf(areaOf(header), cap, bytes.byteLength);
  return imagePool().run(weight, async (step) => {
    const decode: ImageJob = { kind: "decode", bytes, maxPixels: cap };
    const pixels = await step(decode) as Pixels;
    const encode: ImageJob = { kind: "encode", pixels, format, quality };
    return await step(encode, transferable(pixels.data)) as Uint8Array;
  });
}

/**
 * The thumbnail of the image `bytes` (PNG, JPEG or GIF), made by an image
 * worker; throws {@link UnreadableSourceError} when it is no such image, is
 * over {@link THUMBNAIL_PIXEL_CAP} pixels or {@link MAX_DECODED_BYTES}
 * (decided on its header, before a worker sees it), fails to decode, or the
 * pool is busy. `bytes` are moved to the worker (emptied here).
 */
export async function thumbnailInWorkers(
  bytes: Uint8Array,
  format: ThumbnailOutput,
): Promise<Uint8Array> {
  const header = imageHeader(bytes);
  if (header === null) throw new UnreadableSourceError("not a PNG, JPEG, WebP or GIF image");
  if (areaOf(header) > THUMBNAIL_PIXEL_CAP) throw new UnreadableSourceError("too many pixels");
  if (bytes.byteLength > MAX_DECODED_BYTES) throw new UnreadableSourceError("too large a file");
  const weight = weightOf(areaOf(header), THUMBNAIL_PIXEL_CAP, bytes.byteLength);
  try {
    return await imagePool().run(weight, async (step) => {
      const job: ImageJob = { kind: "thumbnail", bytes, maxPixels: THUMBNAIL_PIXEL_CAP, format };
      return await step(job, transferable(bytes)) as Uint8Array;
    });
  } catch (error) {
    if (error instanceof WorkerJobError) throw new UnreadableSourceError(error.message);
    if (error instanceof PoolBusyError) {
      throw new UnreadableSourceError("the image workers are busy");
    }
    throw error;
  }
}
