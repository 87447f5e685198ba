/**
 * The width and height an image declares, read from its header without
 * decoding anything: a PNG's IHDR chunk, a JPEG's frame header (SOF), a GIF's
 * logical screen, a WebP's VP8, VP8L or VP8X header. The image pipeline
 * (`image_pool.ts`) measures every image here before it is decoded, so a
 * small file declaring a huge image (a decompression bomb) is turned away by
 * its size alone. A header that does not parse is no image the pipeline
 * reads.
 */

/** The formats whose headers are read. */
export type HeaderFormat = "png" | "jpeg" | "gif" | "webp";

/** What an image's header declares. */
export interface ImageHeader {
  format: HeaderFormat;
  width: number;
  height: number;
}

/**
 * The most bytes read while looking for a header: a JPEG's frame header
 * follows its metadata segments (Exif, ICC profile, XMP), which are seldom
 * longer than this; an image whose header is further in is not read.
 */
export const MAX_HEADER_BYTES = 1024 * 1024;

/** `more`: the bytes end before the header does; `null`: they are no image of a known format. */
export type HeaderResult = ImageHeader | "more" | null;

/** The header of the image `bytes` begin with (they may be the first bytes only). */
export function readHeader(bytes: Uint8Array): HeaderResult {
  if (startsWith(bytes, PNG_SIGNATURE)) return pngHeader(bytes);
  if (startsWith(bytes, [0xff, 0xd8])) return jpegHeader(bytes);
  if (startsWith(bytes, GIF87) || startsWith(bytes, GIF89)) return gifHeader(bytes);
  if (startsWith(bytes, RIFF) && (bytes.length < 12 || tag(bytes, 8) === "WEBP")) {
    return webpHeader(bytes);
  }
  return bytes.length < 12 ? "more" : null;
}

/** The header of the whole image `bytes`; `null` when it is not there or does not parse. */
export function imageHeader(bytes: Uint8Array): ImageHeader | null {
  const header = readHeader(bytes);
  return header === "more" ? null : header;
}

/** Its area in pixels. */
export const areaOf = (header: ImageHeader): number => header.width * header.height;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const GIF87 = [0x47, 0x49, 0x46, 0x38, 0x37, 0x61];
const GIF89 = [0x47, 0x49, 0x46, 0x38, 0x39, 0x61];
const RIFF = [0x52, 0x49, 0x46, 0x46];

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  const n = Math.min(bytes.length, prefix.length);
  for (let i = 0; i < n; i++) if (bytes[i] !== prefix[i]) return false;
  return bytes.length > 0;
}

const tag = (bytes: Uint8Array, at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** A header with both sides at least one pixel, else `null`. */
function sized(format: HeaderFormat, width: number, height: number): ImageHeader | null {
  return width > 0 && height > 0 ? { format, width, height } : null;
}

/** IHDR, which must be the first chunk: length 13, then width and height (big-endian). */
function pngHeader(bytes: Uint8Array): HeaderResult {
  if (bytes.length < 24) return "more";
  const v = view(bytes);
  if (v.getUint32(8) !== 13 || tag(bytes, 12) !== "IHDR") return null;
  return sized("png", v.getUint32(16), v.getUint32(20));
}

/**
 * The first frame header (SOF0–SOF15 but DHT, JPG and DAC) among the
 * segments before the scan; a second one, or none before the scan, is `null`
 * (the decoder reads one frame), and so are bytes that end before the scan.
 */
function jpegHeader(bytes: Uint8Array): HeaderResult {
  const v = view(bytes);
  let at = 2;
  let found: ImageHeader | null = null;
  while (true) {
    if (at + 2 > bytes.length) return "more";
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1];
    if (marker === 0xff) { // fill byte
      at++;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { // no length
      at += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return found; // the scan, or the end
    if (at + 4 > bytes.length) return "more";
    const length = v.getUint16(at + 2);
    if (length < 2) return null;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (found) return null;
      if (at + 9 > bytes.length) return "more";
      // length, precision, height, width
      found = sized("jpeg", v.getUint16(at + 7), v.getUint16(at + 5));
      if (!found) return null;
    }
    at += 2 + length;
  }
}

/** The logical screen's width and height (little-endian) after the signature. */
function gifHeader(bytes: Uint8Array): HeaderResult {
  if (bytes.length < 10) return "more";
  const v = view(bytes);
  return sized("gif", v.getUint16(6, true), v.getUint16(8, true));
}

/**
 * A WebP's size: the canvas of an extended file (VP8X), else its one
 * bitstream's (VP8 lossy, VP8L lossless). Of an extended file, the
 * bitstream's chunk is read too when it lies within `bytes`, and the larger
 * of the two counts.
 */
function webpHeader(bytes: Uint8Array): HeaderResult {
  if (bytes.length < 30) return "more";
  const first = chunkSize(bytes, 12);
  if (first === null) return null;
  if (tag(bytes, 12) !== "VP8X") return bitstreamHeader(bytes, 12);
  const u24 = (at: number) => bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16);
  const canvas = sized("webp", u24(24) + 1, u24(27) + 1);
  if (!canvas) return null;
  // The chunks after VP8X: ICCP, ANIM, ALPH, … then the bitstream, when it is within reach.
  for (let at = 20 + first; at + 30 <= bytes.length;) {
    const size = chunkSize(bytes, at);
    if (size === null) return canvas;
    const kind = tag(bytes, at);
    if (kind === "VP8 " || kind === "VP8L") {
      const stream = bitstreamHeader(bytes, at);
      if (stream === "more" || stream === null) return stream === null ? null : canvas;
      return areaOf(stream) > areaOf(canvas) ? stream : canvas;
    }
    at += 8 + size;
  }
  return canvas;
}

/** A RIFF chunk's payload size, padded to even; `null` when it is cut short. */
function chunkSize(bytes: Uint8Array, at: number): number | null {
  if (at + 8 > bytes.length) return null;
  const size = view(bytes).getUint32(at + 4, true);
  return size + (size & 1);
}

/** The size a VP8 or VP8L chunk at `at` declares. */
function bitstreamHeader(bytes: Uint8Array, at: number): HeaderResult {
  const data = at + 8;
  if (data + 10 > bytes.length) return "more";
  const v = view(bytes);
  switch (tag(bytes, at)) {
    case "VP8 ": {
      // A key frame: 3 bytes of frame tag, the start code 9d 01 2a, then 14-bit sides.
      if (bytes[data + 3] !== 0x9d || bytes[data + 4] !== 0x01 || bytes[data + 5] !== 0x2a) {
        return null;
      }
      return sized(
        "webp",
        v.getUint16(data + 6, true) & 0x3fff,
        v.getUint16(data + 8, true) & 0x3fff,
      );
    }
    case "VP8L": {
      if (bytes[data] !== 0x2f) return null;
      const bits = v.getUint32(data + 1, true);
      return sized("webp", (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
    }
  }
  return null;
}
