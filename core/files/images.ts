/**
 * Image work in pure JavaScript (no native code, no WASM fetched at run time,
 * so `deno bundle`/`deno compile` keep working): the first frame of a GIF
 * read via `omggif`, pixels scaled down with an area average to at most
 * a thumbnail's size (`image_facts.ts`) on the long side, thumbnails written as JPEG
 * (`jpeg-js`) or PNG (`pngjs`). PNG, JPEG and WebP are read, and WebP
 * thumbnails written, by the WebAssembly codecs (`codecs.ts`); all of it runs
 * in the image workers (`image_worker.ts`).
 */
import { Buffer } from "node:buffer";
import jpeg from "jpeg-js";
import { GifReader } from "omggif";
import { PNG } from "pngjs";
import { type Pixels, UnreadableSourceError } from "./image_facts.ts";

/** The formats {@link encodeImage} writes in pure JavaScript. */
export type ThumbnailFormat = "jpg" | "png";

/**
 * The first frame of a GIF, on the transparent canvas of the GIF's size;
 * throws {@link UnreadableSourceError} when the canvas or the frame has more
 * than `maxPixels` pixels (checked before the frame is decoded).
 */
export function decodeGif(bytes: Uint8Array, maxPixels: number): Pixels {
  try {
    const gif = new GifReader(bytes);
    const { width, height } = gif;
    if (gif.numFrames() === 0) throw new UnreadableSourceError("a GIF without frames");
    const frame = gif.frameInfo(0);
    if (width * height > maxPixels || frame.width * frame.height > maxPixels) {
      throw new UnreadableSourceError("too many pixels");
    }
    const data = new Uint8Array(width * height * 4);
    gif.decodeAndBlitFrameRGBA(0, data);
    return { width, height, data };
  } catch (error) {
    if (error instanceof UnreadableSourceError) throw error;
    throw new UnreadableSourceError(error instanceof Error ? error.message : String(error));
  }
}

/** `img` scaled down (never up) so its long side is at most `max`, averaging each pixel's area. */
export function scaleDown(img: Pixels, max: number): Pixels {
  const ratio = Math.min(1, max / Math.max(img.width, img.height));
  const width = Math.max(1, Math.round(img.width * ratio));
  const height = Math.max(1, Math.round(img.height * ratio));
  if (width === img.width && height === img.height) return img;
  const data = new Uint8Array(width * height * 4);
  const sum = new Float64Array(4);
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor(y * img.height / height);
    const y1 = Math.max(y0 + 1, Math.floor((y + 1) * img.height / height));
    for (let x = 0; x < width; x++) {
      const x0 = Math.floor(x * img.width / width);
      const x1 = Math.max(x0 + 1, Math.floor((x + 1) * img.width / width));
      sum.fill(0);
      for (let sy = y0; sy < y1; sy++) {
        for (let sx = x0; sx < x1; sx++) {
          const i = (sy * img.width + sx) * 4;
          for (let c = 0; c < 4; c++) sum[c] += img.data[i + c];
        }
      }
      const n = (y1 - y0) * (x1 - x0);
      const o = (y * width + x) * 4;
      for (let c = 0; c < 4; c++) data[o + c] = Math.round(sum[c] / n);
    }
  }
  return { width, height, data };
}

/** Encodes `img` as `format` (JPEG at quality 80; transparency is lost there). */
export function encodeImage(img: Pixels, format: ThumbnailFormat): Uint8Array {
  if (format === "jpg") return new Uint8Array(jpeg.encode({ ...img, data: img.data }, 80).data);
  const png = new PNG({ width: img.width, height: img.height });
  png.data = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
  return new Uint8Array(PNG.sync.write(png));
}
