/**
 * Image compression on upload (reference §5.2, §5.3): an uploaded PNG, JPEG
 * or WebP is decoded and written again as JPEG, PNG, WebP or JPEG XL at the
 * quality the `image-compression-percent` header asks for; the file's
 * extension and type follow the format. An image that cannot be decoded or
 * written is kept as it came (as Zipline keeps it).
 */
import { decodeImage, MAX_PIXELS } from "./images.ts";
import { decodeWebp, type EncodedFormat, encodePixels } from "./codecs.ts";

/** The values the `image-compression-type` header and `filesDefaultCompressionFormat` take. */
export const COMPRESSION_TYPES = ["jpg", "jpeg", "png", "webp", "jxl"] as const;

/** What one upload asks compression for. */
export interface Compression {
  /** 0–100. */
  quality: number;
  format: EncodedFormat;
}

/** The MIME type of each format written. */
const TYPES: Record<EncodedFormat, string> = {
  jpg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  jxl: "image/jxl",
};

/** The types that are decoded to be compressed. */
const SOURCES = ["image/png", "image/jpeg", "image/webp"];

/**
 * The compression `percent` and `type` (header values, `null` when absent)
 * ask for; `fallback` is the format when no type is given. Compression is
 * asked for by the percent alone (a type without it does nothing). Throws
 * `Error` with Zipline's message when a value is bad.
 */
export function parseCompression(
  percent: string | null,
  type: string | null,
  fallback: string | null,
): Compression | null {
  if (percent === null) return null;
  const quality = Number(percent);
  if (Number.isNaN(quality)) throw new CompressionOptionError("percent", "Invalid percent (NaN)");
  if (quality < 0 || quality > 100) {
    throw new CompressionOptionError("percent", "Invalid percent (must be between 0 and 100)");
  }
  const format = (type ?? fallback ?? "jpg").toLowerCase();
  if (!(COMPRESSION_TYPES as readonly string[]).includes(format)) {
    throw new CompressionOptionError(
      "type",
      `Invalid compression type (must be one of: ${COMPRESSION_TYPES.join(", ")})`,
    );
  }
  return {
    quality: Math.round(quality),
    format: format === "jpeg" ? "jpg" : format as EncodedFormat,
  };
}

/** A bad compression header: which one (`percent` or `type`), and why. */
export class CompressionOptionError extends Error {
  constructor(readonly header: "percent" | "type", message: string) {
    super(message);
    this.name = "CompressionOptionError";
  }
}

/**
 * The extension (dotted) and type a file of `type` is stored under once
 * compressed as `compression` asks; `null` when it is not compressed.
 */
export function compressedAs(
  compression: Compression | null,
  type: string,
): { extension: string; type: string } | null {
  if (compression === null || !SOURCES.includes(type)) return null;
  return { extension: `.${compression.format}`, type: TYPES[compression.format] };
}

/**
 * The PNG, JPEG or WebP `bytes` written as `compression` asks; `null` when
 * they do not decode or cannot be written (the original is kept then).
 */
export async function compressImage(
  bytes: Uint8Array,
  compression: Compression,
): Promise<Uint8Array | null> {
  try {
    const webp = new TextDecoder().decode(bytes.subarray(8, 12)) === "WEBP";
    const pixels = webp ? await decodeWebp(bytes) : decodeImage(bytes);
    if (pixels.width * pixels.height > MAX_PIXELS) return null;
    return await encodePixels(pixels, compression.format, compression.quality);
  } catch {
    return null;
  }
}
