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
import { inWorkerNamed, PoolBusyError, transferable, WorkerJobError } from "../worker_pool.ts";
import type { EncodedFormat } from "./codecs.ts";
import { areaOf, type ImageHeader, imageHeader } from "./image_header.ts";
import {
  IMAGE_POOL_WORKER_NAME,
  IMAGE_WORKER_NAME,
  type ImageTask,
  type TaskAnswer,
  type TaskMessage,
  workerModule,
} from "./image_pool_worker.ts";
// Imported so that bundles and `deno compile` carry the codec worker's code.
import "./image_worker.ts";
import type { ThumbnailOutput } from "./image_worker.ts";
import { UnreadableSourceError } from "./images.ts";

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
 * started on first use (or by {@link start}: `serve` does at once) and kept
 * until {@link close}, which starts and ends the codec workers. Tasks are
 * answered as they finish.
 */
class ImagePool {
  #worker: Worker | null = null;
  #pending = new Map<number, { resolve(value: Uint8Array): void; reject(error: Error): void }>();
  #next = 0;
  #tasks = 0;

  /** Starts the pool's worker now rather than on first use. */
  start(): void {
    this.#worker ??= this.#start();
  }

  /** Sends `task` (moving `transfer`); resolves with its answer's bytes. */
  run(task: ImageTask, transfer: Transferable[] = []): Promise<Uint8Array> {
    const worker = this.#worker ??= this.#start();
    const id = this.#next++;
    this.#tasks++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      try {
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
      waiting.reject(
        data.name === "PoolBusyError"
          ? new PoolBusyError()
          : new WorkerJobError(data.message, data.name === "WorkerJobError"),
      );
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
    for (const { reject } of this.#pending.values()) reject(new WorkerJobError(message, false));
    this.#pending.clear();
  }
}

const pool = new ImagePool();

/** The process's image pool. */
export function imagePool(): ImagePool {
  return pool;
}

/** Whether this code runs in one of the image workers (a bundled main.ts then does nothing). */
export function inImageWorker(): boolean {
  return inWorkerNamed(IMAGE_POOL_WORKER_NAME) || inWorkerNamed(IMAGE_WORKER_NAME);
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
 * `bytes` stay the caller's (the pool is sent a copy).
 */
export function compressInWorkers(
  bytes: Uint8Array,
  header: ImageHeader,
  cap: number,
  format: EncodedFormat,
  quality: number,
): Promise<Uint8Array> {
  const weight = weightOf(areaOf(header), cap, bytes.byteLength);
  return pool.run({ kind: "compress", bytes, maxPixels: cap, format, quality, weight });
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
  const area = areaOf(header);
  if (area > THUMBNAIL_PIXEL_CAP) throw new UnreadableSourceError("too many pixels");
  if (bytes.byteLength > MAX_DECODED_BYTES) throw new UnreadableSourceError("too large a file");
  const weight = weightOf(area, THUMBNAIL_PIXEL_CAP, bytes.byteLength);
  const task: ImageTask = {
    kind: "thumbnail",
    bytes,
    maxPixels: THUMBNAIL_PIXEL_CAP,
    format,
    weight,
  };
  try {
    return await pool.run(task, transferable(bytes));
  } catch (error) {
    if (error instanceof WorkerJobError) throw new UnreadableSourceError(error.message);
    if (error instanceof PoolBusyError) {
      throw new UnreadableSourceError("the image workers are busy");
    }
    throw error;
  }
}
