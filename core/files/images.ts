/**
 * Image thumbnails in pure JavaScript (no native code, no WASM fetched at run
 * time, so `deno bundle`/`deno compile` keep working): PNG via `pngjs`, JPEG
 * via `jpeg-js`, the first frame of a GIF via `omggif`, scaled down with an
 * area average to at most {@link THUMBNAIL_SIZE} pixels on the long side
 * (WebP thumbnails are written by `codecs.ts`).
 */
import { Buffer } from "node:buffer";
import jpeg from "jpeg-js";
import { GifReader } from "omggif";
import { PNG } from "pngjs";

/** The longest side of a thumbnail, in pixels. */
export const THUMBNAIL_SIZE = 320;

/** The image types {@link makeThumbnail} reads. */
export const THUMBNAIL_SOURCES = ["image/png", "image/jpeg", "image/gif"];

/** The formats {@link encodeImage} writes in pure JavaScript. */
export type ThumbnailFormat = "jpg" | "png";

/** RGBA pixels. */
export interface Pixels {
  width: number;
  height: number;
  data: Uint8Array;
}

/** The refusal of a source (an image, a video) no thumbnail can be made of. */
export class UnreadableSourceError extends Error {
  constructor(readonly reason: string) {
    super(`no thumbnail: ${reason}`);
    this.name = "UnreadableSourceError";
  }
}

/** The largest image decoded, in pixels (a decompression bomb stops here). */
export const MAX_PIXELS = 50_000_000;

/**
 * Decodes PNG, JPEG or GIF `bytes` (told apart by their signature); of a GIF,
 * its first frame. One declaring more than {@link MAX_PIXELS} pixels is
 * refused before anything is inflated.
 */
export function decodeImage(bytes: Uint8Array): Pixels {
  try {
    if (bytes[0] === 0x89 && bytes[1] === 0x50) {
      if (pngArea(bytes) > MAX_PIXELS) throw new UnreadableSourceError("too many pixels");
      const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      return { width: png.width, height: png.height, data: new Uint8Array(png.data) };
    }
    if (bytes[0] === 0xff && bytes[1] === 0xd8) {
      const img = jpeg.decode(bytes, {
        useTArray: true,
        formatAsRGBA: true,
        maxResolutionInMP: MAX_PIXELS / 1_000_000,
        maxMemoryUsageInMB: 1024,
      });
      return { width: img.width, height: img.height, data: img.data };
    }
    if (bytes[0] === 0x47 && bytes[1] === 0x49 && bytes[2] === 0x46) return firstGifFrame(bytes);
  } catch (error) {
    if (error instanceof UnreadableSourceError) throw error;
    throw new UnreadableSourceError(error instanceof Error ? error.message : String(error));
  }
  throw new UnreadableSourceError("neither PNG, JPEG nor GIF");
}

/** The width × height a PNG's header (its first chunk, IHDR) declares; 0 when it is cut short. */
function pngArea(bytes: Uint8Array): number {
  if (bytes.length < 24) return 0;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return view.getUint32(16) * view.getUint32(20);
}

/** The first frame of a GIF, on the transparent canvas of the GIF's size. */
function firstGifFrame(bytes: Uint8Array): Pixels {
  const gif = new GifReader(bytes);
  const { width, height } = gif;
  if (width * height > MAX_PIXELS) throw new UnreadableSourceError("too many pixels");
  if (gif.numFrames() === 0) throw new UnreadableSourceError("a GIF without frames");
  const data = new Uint8Array(width * height * 4);
  gif.decodeAndBlitFrameRGBA(0, data);
  return { width, height, data };
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

/**
 * The PNG, JPEG or GIF `bytes` decoded and scaled down to thumbnail size;
 * throws {@link UnreadableSourceError}.
 */
export function thumbnailPixels(bytes: Uint8Array): Pixels {
  const img = decodeImage(bytes);
  if (img.width * img.height > MAX_PIXELS) throw new UnreadableSourceError("too many pixels");
  return scaleDown(img, THUMBNAIL_SIZE);
}
