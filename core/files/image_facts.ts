/**
 * What the server's thread knows of images without their codecs: the
 * thumbnail's size, the types thumbnails are made of, the pixel shape and the
 * refusal of a source. The codecs (`images.ts`: jpeg-js, pngjs, omggif;
 * `codecs.ts`: WebAssembly) are loaded by the image workers only, so a server
 * at rest does not hold them (measured: bench/results/memory.md).
 */

/** The longest side of a thumbnail, in pixels. */
export const THUMBNAIL_SIZE = 320;

/** The image types thumbnails are made of (`thumbnails.ts`). */
export const THUMBNAIL_SOURCES = ["image/png", "image/jpeg", "image/gif"];

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
