/**
 * The codec worker: the module each worker of the image pool runs (started by
 * the pool's own worker, `image_pool_worker.ts`). It decodes, scales and
 * encodes off the server's thread, one job at a time; a job checks the
 * image's header against the pixel cap it is given before it decodes
 * anything, as the server's thread did before sending it (`image_pool.ts`).
 *
 * When Ferry runs from a bundle (`deno bundle` of main.ts), the bundle itself
 * is the workers' module: this file is in it, and serves jobs when the
 * bundle is started as a worker of this name (main.ts then does nothing).
 */
import { inWorkerNamed, serveJobs, transferable } from "../worker_pool.ts";
import { type Pixels, THUMBNAIL_SIZE } from "./image_facts.ts";
import { IMAGE_WORKER_NAME, type ImageJob } from "./image_pool_worker.ts";

/**
 * The codecs, loaded by a worker's first job: the server's thread imports this
 * module (so that bundles carry it) but never runs a job, so it never holds
 * them (their WebAssembly bytes and pure-JavaScript libraries, some 10 MiB:
 * bench/results/memory.md). Literal specifiers: bundles and `deno compile`
 * still carry them.
 */
const codecs = () => import("./codecs.ts");
const pureJs = () => import("./images.ts");

/** The quality WebP thumbnails are written at (as JPEG ones are). */
const WEBP_THUMBNAIL_QUALITY = 80;

/** Runs `job` (in this thread: the workers call it, and tests may). */
export async function runImageJob(
  job: ImageJob,
): Promise<{ value: Pixels | Uint8Array; transfer: Transferable[] }> {
  switch (job.kind) {
    case "decode": {
      const { decodePixels } = await codecs();
      const pixels = await decodePixels(job.bytes, job.maxPixels);
      return { value: pixels, transfer: transferable(pixels.data) };
    }
    case "encode": {
      const { encodePixels } = await codecs();
      const bytes = await encodePixels(job.pixels, job.format, job.quality);
      return { value: bytes, transfer: transferable(bytes) };
    }
    case "thumbnail": {
      const [{ decodePixels, encodePixels }, { encodeImage, scaleDown }] = await Promise.all([
        codecs(),
        pureJs(),
      ]);
      const small = scaleDown(await decodePixels(job.bytes, job.maxPixels), THUMBNAIL_SIZE);
      const bytes = job.format === "webp"
        ? await encodePixels(small, "webp", WEBP_THUMBNAIL_QUALITY)
        : encodeImage(small, job.format);
      return { value: bytes, transfer: transferable(bytes) };
    }
  }
}

if (inWorkerNamed(IMAGE_WORKER_NAME)) serveJobs((message) => runImageJob(message as ImageJob));
