/**
 * Where images are decoded and encoded: the process's pool of image workers,
 * never the server's thread, so a large image cannot stall other requests;
 * and the caps that bound what a worker is given, checked on the image's
 * header before anything is decoded, so a small file declaring a huge image
 * costs nothing. The server's thread sends each task to one long-lived
 * worker (`image_pool_worker.ts`), which runs them on codec workers
 * (`image_worker.ts`) through `../worker_pool.ts`: with a queue, within one
 * memory budget, ending a codec worker after a large image.
 *
 * The caps come from measurement (bench/images.ts, bench/results/images.md):
 * an image at its cap takes the workers' whole memory budget (about 250 MB
 * above the idle process, the file's copies included), and the pool runs
 * images together only while their shares of that budget add up to one at
 * most, so image work never grows the process by more than the budget.
 * Encoding takes more memory per pixel than decoding, and JPEG XL's encoder
 * far more than the others, so compression has lower caps than thumbnails.
 */
import { transferable, workerModule } from "../worker_pool.ts";
import type { EncodedFormat } from "./codecs.ts";
import { areaOf, type ImageHeader, MAX_HEADER_BYTES, readHeader } from "./image_header.ts";
import {
  IMAGE_POOL_WORKER_NAME,
  type ImageTask,
  joinParts,
  type TaskAnswer,
  type TaskMessage,
  type ThumbnailOutput,
} from "./image_pool_worker.ts";
// Imported so that bundles and `deno compile` carry the codec worker's code.
import "./image_worker.ts";
import { UnreadableSourceError } from "./image_facts.ts";

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

/** The task counts of {@link ImagePool}, for tests and benchmarks. */
export interface ImagePoolStats {
  /** Tasks sent to the pool since the process started. */
  tasks: number;
  /** Tasks not answered yet. */
  pending: number;
  /** Whether the pool's worker is running. */
  running: boolean;
}

/**
 * The server thread's side of the pool: one worker (`image_pool_worker.ts`),
 * started on first use (or by {@link start}) and kept
 * until {@link close}, which starts and ends the codec workers. Tasks are
 * answered as they finish.
 */
class ImagePool {
  #worker: Worker | null = null;
  #pending = new Map<number, { resolve(value: Uint8Array): void; reject(error: unknown): void }>();
  #next = 0;
  #tasks = 0;

  /**
   * Starts the pool's worker now rather than on first use; where no worker
   * can be started, each task fails instead (its image is kept as it came).
   */
  start(): void {
    try {
      this.#worker ??= this.#start();
    } catch {
      // Reported by the first task.
    }
  }

  /** Sends `task` (moving `transfer`); resolves with its answer's bytes. */
  run(task: ImageTask, transfer: Transferable[] = []): Promise<Uint8Array> {
    this.#tasks++;
    return new Promise((resolve, reject) => {
      const id = this.#next++;
      try {
        const worker = this.#worker ??= this.#start();
        this.#pending.set(id, { resolve, reject });
        worker.postMessage({ id, task } satisfies TaskMessage, transfer);
      } catch (error) {
        this.#pending.delete(id);
        reject(error);
      }
    });
  }

  /** Ends the pool's worker, and with it the codec workers; tasks under way fail. */
  close(): void {
    this.#worker?.terminate();
    this.#worker = null;
    this.#failAll("the image pool was closed");
  }

  /** The counts. */
  stats(): ImagePoolStats {
    return { tasks: this.#tasks, pending: this.#pending.size, running: this.#worker !== null };
  }

  #start(): Worker {
    const worker = new Worker(
      workerModule(import.meta.url, "/core/files/image_pool.ts", "./image_pool_worker.ts"),
      { type: "module", name: IMAGE_POOL_WORKER_NAME },
    );
    worker.onmessage = ({ data }: MessageEvent<TaskAnswer>) => {
      const waiting = this.#pending.get(data.id);
      if (!waiting) return;
      this.#pending.delete(data.id);
      if (data.ok) return waiting.resolve(data.value);
      const message = data.name === "PoolBusyError" ? "the image workers are busy" : data.message;
      waiting.reject(new ImageTaskError(message, data.original ?? null));
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      worker.terminate();
      if (this.#worker === worker) this.#worker = null;
      this.#failAll(`the image pool failed: ${event.message}`);
    };
    return worker;
  }

  #failAll(message: string) {
    for (const { reject } of this.#pending.values()) reject(new ImageTaskError(message, null));
    this.#pending.clear();
  }
}

/** A task that failed; a compression's image comes back as it came (`original`). */
export class ImageTaskError extends Error {
  constructor(message: string, readonly original: Uint8Array | null) {
    super(message);
    this.name = "ImageTaskError";
  }
}

const pool = new ImagePool();

/** The process's image pool. */
export function imagePool(): ImagePool {
  return pool;
}

/** The share of the pool's budget an image of `area` pixels (of `cap`) and `bytes` takes. */
const weightOf = (area: number, cap: number, bytes: number) =>
  Math.max(area / cap, bytes / MAX_DECODED_BYTES);

/** The header of the image whose first chunks are `parts`, read as {@link readHeader} does. */
export function headerOf(parts: Uint8Array[]): ImageHeader | null {
  // Joined at 64 KiB, then at each doubling: a JPEG's frame header may follow its metadata.
  let size = 0;
  let check = 64 * 1024;
  for (let i = 0; i < parts.length; i++) {
    size += parts[i].byteLength;
    if (size < check && i < parts.length - 1) continue;
    const header = readHeader(joinParts(parts.slice(0, i + 1)));
    if (header !== "more") return header;
    if (size >= MAX_HEADER_BYTES) return null;
    check = Math.max(check * 2, size + 1);
  }
  return null;
}

/** `parts` as they can be moved to a worker: each filling its own buffer (copied if not). */
export const movable = (part: Uint8Array): Uint8Array =>
  part.byteOffset === 0 && part.byteLength === part.buffer.byteLength &&
    part.buffer instanceof ArrayBuffer
    ? part
    : part.slice();

/** What {@link compressInWorkers} gives: the bytes to store, and why they are the image as it came. */
export interface Compressed {
  bytes: Uint8Array;
  /** `null` when `bytes` are the compressed image; else why they are the upload as it came. */
  kept: string | null;
}

/**
 * The image read as `parts` (non-empty chunks, each filling its buffer:
 * {@link movable}), whose header is `header` (within `cap` pixels), decoded
 * and written as `format` at `quality` by the image workers; the image as it
 * came, and why, when it does not decode or encode or the pool is busy. The
 * parts are moved to the pool (emptied here). Throws only when the pool's
 * worker died holding them.
 */
export async function compressInWorkers(
  parts: Uint8Array[],
  header: ImageHeader,
  cap: number,
  format: EncodedFormat,
  quality: number,
): Promise<Compressed> {
  const size = parts.reduce((n, part) => n + part.byteLength, 0);
  const weight = weightOf(areaOf(header), cap, size);
  const task: ImageTask = { kind: "compress", parts, maxPixels: cap, format, quality, weight };
  try {
    return { bytes: await pool.run(task, transferable(...parts)), kept: null };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof ImageTaskError && error.original) {
      return { bytes: error.original, kept: reason };
    }
    // Not sent (no worker could start), the parts are still here.
    if (parts.every((part) => part.byteLength > 0)) {
      return { bytes: joinParts(parts), kept: reason };
    }
    throw new Error(`the image pool failed with an upload's bytes: ${reason}`);
  }
}

/**
 * The thumbnail of the image read as `parts` (PNG, JPEG or GIF; non-empty
 * chunks each filling its buffer, {@link movable}), made by an image worker;
 * throws {@link UnreadableSourceError} when it is no such image, is over
 * {@link THUMBNAIL_PIXEL_CAP} pixels or {@link MAX_DECODED_BYTES} (decided on
 * its header, before a worker sees it), fails to decode, or the pool is busy
 * or cannot start. The parts are moved to the pool (emptied here).
 */
export async function thumbnailInWorkers(
  parts: Uint8Array[],
  format: ThumbnailOutput,
): Promise<Uint8Array> {
  const header = headerOf(parts);
  if (header === null) throw new UnreadableSourceError("not a PNG, JPEG, WebP or GIF image");
  const area = areaOf(header);
  if (area > THUMBNAIL_PIXEL_CAP) throw new UnreadableSourceError("too many pixels");
  const size = parts.reduce((n, part) => n + part.byteLength, 0);
  if (size > MAX_DECODED_BYTES) throw new UnreadableSourceError("too large a file");
  const weight = weightOf(area, THUMBNAIL_PIXEL_CAP, size);
  const task: ImageTask = {
    kind: "thumbnail",
    parts,
    maxPixels: THUMBNAIL_PIXEL_CAP,
    format,
    weight,
  };
  try {
    return await pool.run(task, transferable(...parts));
  } catch (error) {
    throw new UnreadableSourceError(error instanceof Error ? error.message : String(error));
  }
}
