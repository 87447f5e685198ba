/** Image bytes for tests, built by hand. */
import { deflateSync } from "node:zlib";

/**
 * Exif data as a 100-byte TIFF structure: IFD0 (orientation and the GPS
 * pointer) at offset 8, the GPS IFD at 38 with its latitude values at 68–91.
 */
export function tiffWithGps(little = true): Uint8Array {
  const tiff = new Uint8Array(100);
  const view = new DataView(tiff.buffer);
  const u16 = (at: number, v: number) => view.setUint16(at, v, little);
  const u32 = (at: number, v: number) => view.setUint32(at, v, little);
  tiff.set(little ? [0x49, 0x49] : [0x4d, 0x4d]);
  u16(2, 42);
  u32(4, 8);
  // IFD0 at 8: two entries, then next = 0.
  u16(8, 2);
  u16(10, 0x0112), u16(12, 3), u32(14, 1), u16(18, 6); // orientation
  u16(22, 0x8825), u16(24, 4), u32(26, 1), u32(30, 38); // GPS IFD at 38
  u32(34, 0);
  // GPS IFD at 38: latitude ref "N" inline, latitude 3 rationals at 68.
  u16(38, 2);
  u16(40, 1), u16(42, 2), u32(44, 2), tiff.set([0x4e, 0], 48);
  u16(52, 2), u16(54, 5), u32(56, 3), u32(60, 68);
  u32(64, 0);
  [52, 1, 31, 1, 4512, 100].forEach((v, i) => u32(68 + i * 4, v));
  return tiff;
}

/** A small JPEG whose one Exif segment ({@link tiffWithGps}) starts its TIFF data at byte 12. */
export function jpegWithGps(little = true): Uint8Array {
  const payload = [0x45, 0x78, 0x69, 0x66, 0, 0, ...tiffWithGps(little)];
  const length = payload.length + 2;
  return new Uint8Array([
    0xff,
    0xd8,
    0xff,
    0xe1,
    length >> 8,
    length & 0xff,
    ...payload,
    0xff,
    0xda,
    0,
    4,
    1,
    2,
    ...new Array(50).fill(7),
    0xff,
    0xd9,
  ]);
}

/** One PNG chunk: length, type, data and CRC. */
export function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const typed = new Uint8Array([...new TextEncoder().encode(type), ...data]);
  const out = new Uint8Array(data.byteLength + 12);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.byteLength);
  out.set(typed, 4);
  view.setUint32(8 + data.byteLength, crc32(typed));
  return out;
}

/**
 * A PNG (signature, IHDR, IDAT, IEND) with an `eXIf` chunk of
 * {@link tiffWithGps}, before the image data or after it; `exifAt` is where
 * the chunk starts.
 */
export function pngWithGps(little = true, afterData = false) {
  const ihdr = pngChunk("IHDR", new Uint8Array([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]));
  const idat = pngChunk("IDAT", new Uint8Array(40).fill(9));
  const exif = pngChunk("eXIf", tiffWithGps(little));
  const iend = pngChunk("IEND", new Uint8Array(0));
  const signature = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const order = afterData
    ? [signature, ihdr, idat, exif, iend]
    : [signature, ihdr, exif, idat, iend];
  const exifAt = order.slice(0, order.indexOf(exif)).reduce((n, c) => n + c.byteLength, 0);
  const bytes = new Uint8Array(order.reduce((n, c) => n + c.byteLength, 0));
  order.reduce((at, c) => (bytes.set(c, at), at + c.byteLength), 0);
  return { bytes, exifAt };
}

/** CRC-32 as PNG chunks carry it (written out here, apart from the code under test). */
export function crc32(bytes: Uint8Array): number {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  let crc = 0xffffffff;
  for (const byte of bytes) crc = table[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** A real, decodable PNG: a `side`×`side` red square. */
export function redSquare(side: number): Uint8Array {
  const header = new Uint8Array(13);
  new DataView(header.buffer).setUint32(0, side);
  new DataView(header.buffer).setUint32(4, side);
  header.set([8, 2, 0, 0, 0], 8);
  const row = [0, ...Array.from({ length: side }, () => [255, 0, 0]).flat()];
  const rows = Array.from({ length: side }, () => row).flat();
  const chunks = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", new Uint8Array(deflateSync(new Uint8Array(rows)))),
    pngChunk("IEND", new Uint8Array(0)),
  ];
  return new Uint8Array(chunks.flatMap((c) => [...c]));
}

/**
 * A PNG whose header declares `width` × `height` pixels (8-bit RGBA), followed by
 * a little zlib data of zeros: a decompression bomb by its header.
 */
export function pngDeclaring(width: number, height = width): Uint8Array {
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 6, 0, 0, 0], 8);
  const chunks = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", new Uint8Array(deflateSync(new Uint8Array(4096)))),
    pngChunk("IEND", new Uint8Array(0)),
  ];
  return new Uint8Array(chunks.flatMap((c) => [...c]));
}

/**
 * A baseline JPEG whose frame header declares `width` × `height` (at most
 * 65535 each), after a JFIF segment and before a scan of a few bytes.
 */
export function jpegDeclaring(width: number, height = width): Uint8Array {
  const jfif = [0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0];
  const sof = [
    ...[0xff, 0xc0, 0, 17, 8],
    ...[height >> 8, height & 0xff, width >> 8, width & 0xff],
    ...[3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1],
  ];
  const sos = [0xff, 0xda, 0, 12, 3, 1, 0, 2, 0x11, 3, 0x11, 0, 63, 0];
  return new Uint8Array([
    0xff,
    0xd8,
    ...jfif,
    ...sof,
    ...sos,
    ...new Array(64).fill(0x55),
    0xff,
    0xd9,
  ]);
}

/** A RIFF chunk: its tag, little-endian size, data and a pad byte when the size is odd. */
function riffChunk(tag: string, data: number[]): number[] {
  const size = [data.length & 0xff, (data.length >> 8) & 0xff, (data.length >> 16) & 0xff, 0];
  return [...new TextEncoder().encode(tag), ...size, ...data, ...(data.length & 1 ? [0] : [])];
}

/** A WebP file of `chunks`. */
function webpOf(chunks: number[][]): Uint8Array {
  const body = [...new TextEncoder().encode("WEBP"), ...chunks.flat()];
  const size = body.length;
  return new Uint8Array([
    ...new TextEncoder().encode("RIFF"),
    ...[size & 0xff, (size >> 8) & 0xff, (size >> 16) & 0xff, size >>> 24],
    ...body,
  ]);
}

/** A lossless (VP8L) bitstream chunk declaring `width` × `height` (at most 16384 each). */
function vp8l(width: number, height: number): number[] {
  const bits = ((width - 1) | ((height - 1) << 14) | (1 << 28)) >>> 0;
  return riffChunk("VP8L", [
    0x2f,
    bits & 0xff,
    (bits >> 8) & 0xff,
    (bits >> 16) & 0xff,
    bits >>> 24,
    ...new Array(40).fill(0x11),
  ]);
}

/**
 * A WebP whose header declares `width` × `height`: a lossless bitstream
 * (`vp8l`, at most 16384 a side), a lossy one (`vp8`, at most 16383), or an
 * extended file (`vp8x`) whose canvas declares it, over a 1×1 lossless bitstream.
 */
export function webpDeclaring(
  kind: "vp8l" | "vp8" | "vp8x",
  width: number,
  height = width,
): Uint8Array {
  if (kind === "vp8l") return webpOf([vp8l(width, height)]);
  if (kind === "vp8") {
    const frame = [
      0x50,
      0x42,
      0x00,
      0x9d,
      0x01,
      0x2a,
      width & 0xff,
      width >> 8,
      height & 0xff,
      height >> 8,
    ];
    return webpOf([riffChunk("VP8 ", [...frame, ...new Array(40).fill(0x11)])]);
  }
  const w = width - 1;
  const h = height - 1;
  const vp8x = [
    0x10,
    0,
    0,
    0,
    w & 0xff,
    (w >> 8) & 0xff,
    w >> 16,
    h & 0xff,
    (h >> 8) & 0xff,
    h >> 16,
  ];
  return webpOf([riffChunk("VP8X", vp8x), vp8l(1, 1)]);
}

/** A GIF whose logical screen declares `width` × `height` (at most 65535 each), with no frame. */
export function gifDeclaring(width: number, height = width): Uint8Array {
  return new Uint8Array([
    ...new TextEncoder().encode("GIF89a"),
    ...[width & 0xff, width >> 8, height & 0xff, height >> 8, 0, 0, 0],
    0x3b,
  ]);
}
