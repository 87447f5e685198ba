/**
 * The image pool's own worker: it holds the pool of codec workers
 * (`image_worker.ts`, run by `../worker_pool.ts`) and starts and ends them,
 * so that the server's thread never does. Starting a worker blocks the thread
 * that starts it until the new worker's runtime is built (a few tens of
 * milliseconds, several times that on a busy machine); done here, that wait
 * falls on this thread, and the server's thread starts one worker only, this
 * one, once (`image_pool.ts`).
 *
 * It answers each task (`{id, task}`) with `{id, ok, value}` or
 * `{id, ok: false, name, message}`, in the order the tasks finish. It
 * imports no codec: it only schedules.
 */
import type { EncodedFormat } from "./codecs.ts";
import type { Pixels } from "./image_facts.ts";
import { inWorkerNamed, transferable, workerModule, WorkerPool } from "../worker_pool.ts";

/** The formats thumbnails are written in. */
export type ThumbnailOutput = "jpg" | "png" | "webp";

/** One job for a codec worker (`image_worker.ts`). */
export type ImageJob =
  /** Decode an image of at most `maxPixels` pixels; answers its {@link Pixels}. */
  | { kind: "decode"; bytes: Uint8Array; maxPixels: number }
  /** Encode pixels as `format` at `quality`; answers the file's bytes. */
  | { kind: "encode"; pixels: Pixels; format: EncodedFormat; quality: number }
  /** Decode, scale down to thumbnail size and encode; answers the thumbnail's bytes. */
  | { kind: "thumbnail"; bytes: Uint8Array; maxPixels: number; format: ThumbnailOutput };

/** The name of the pool's own worker. */
export const IMAGE_POOL_WORKER_NAME = "ferry-image-pool";
/** The name of the codec workers. */
export const IMAGE_WORKER_NAME = "ferry-images";

/** Codec workers at once: half the CPUs, at least one, so the server's thread keeps a CPU. */
export const IMAGE_WORKERS = Math.max(1, Math.floor(navigator.hardwareConcurrency / 2));

/**
 * One task for the pool: compress an image, or make its thumbnail. The
 * image's bytes come as the chunks they were read in, moved rather than
 * copied: joining them, and copying a buffer, are this worker's work, not
 * the server thread's (30 MB cost that thread about a second on a busy
 * machine, measured).
 */
export type ImageTask =
  | {
    kind: "compress";
    parts: Uint8Array[];
    maxPixels: number;
    format: EncodedFormat;
    quality: number;
    /** Its share of the pool's memory budget (`WorkerPool.run`). */
    weight: number;
  }
  | {
    kind: "thumbnail";
    parts: Uint8Array[];
    maxPixels: number;
    format: ThumbnailOutput;
    weight: number;
  };

/** A task as the server's thread sends it. */
export interface TaskMessage {
  id: number;
  task: ImageTask;
}

/**
 * What the pool's worker answers: the bytes made, or the failure; a failed
 * compression hands the image back as it came (`original`), to be stored so.
 */
export type TaskAnswer =
  | { id: number; ok: true; value: Uint8Array }
  | { id: number; ok: false; name: string; message: string; original?: Uint8Array };

/** `parts` in one array (the one part itself when there is one). */
export function joinParts(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/**
 * Runs `task`, whose image is `bytes`, on `pool`: a compression is decoded
 * by one codec worker (given a copy: `bytes` stay to be handed back should it
 * fail) and written by another, so a large image's decoder has ended before
 * its encoder grows; a thumbnail is one step, given `bytes` themselves.
 */
export function runTask(pool: WorkerPool, task: ImageTask, bytes: Uint8Array): Promise<Uint8Array> {
  return pool.run(task.weight, async (step) => {
    if (task.kind === "thumbnail") {
      const job: ImageJob = {
        kind: "thumbnail",
        bytes,
        maxPixels: task.maxPixels,
        format: task.format,
      };
      return await step(job, transferable(bytes)) as Uint8Array;
    }
    const copy = bytes.slice();
    const decode: ImageJob = { kind: "decode", bytes: copy, maxPixels: task.maxPixels };
    const pixels = await step(decode, transferable(copy)) as Pixels;
    const encode: ImageJob = { kind: "encode", pixels, format: task.format, quality: task.quality };
    return await step(encode, transferable(pixels.data)) as Uint8Array;
  });
}

/** Serves tasks from the server's thread on a pool of codec workers. */
function servePool(): void {
  const pool = new WorkerPool({
    url: workerModule(import.meta.url, "/core/files/image_pool_worker.ts", "./image_worker.ts"),
    name: IMAGE_WORKER_NAME,
    size: IMAGE_WORKERS,
    maxQueue: 64,
    timeoutMs: 120_000,
    // A codec worker that handled a tenth of a capped image ends, giving its memory back.
    recycleWeight: 0.1,
    idleMs: 5_000,
  });
  const scope = self as unknown as {
    onmessage: ((event: MessageEvent<TaskMessage>) => void) | null;
    postMessage(message: TaskAnswer, transfer?: Transferable[]): void;
  };
  scope.onmessage = async ({ data: { id, task } }) => {
    const bytes = joinParts(task.parts);
    task.parts = [];
    try {
      const value = await runTask(pool, task, bytes);
      scope.postMessage({ id, ok: true, value }, transferable(value));
    } catch (error) {
      const { name, message } = error instanceof Error ? error : new Error(String(error));
      const original = task.kind === "compress" ? bytes : undefined;
      scope.postMessage(
        { id, ok: false, name, message, original },
        original ? transferable(original) : [],
      );
    }
  };
}

if (inWorkerNamed(IMAGE_POOL_WORKER_NAME)) servePool();
