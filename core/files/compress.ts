/**
 * Image compression on upload (reference §5.2, §5.3): an uploaded PNG, JPEG
 * or WebP is decoded and written again as JPEG, PNG, WebP or JPEG XL at the
 * quality the `image-compression-percent` header asks for; the file's
 * extension and type follow the format. An image that cannot be decoded or
 * written is kept as it came (as Zipline keeps it), and so is one over the
 * caps (`image_pool.ts`): its header declares more pixels than the format's
 * cap left for its request (every image of one request counts against one
 * cap), or its file is over {@link MAX_DECODED_BYTES}. The header is read
 * from the first bytes as they stream; an image kept as it came is never held
 * whole. The work itself runs in the image workers.
 */
import { ByteCounter } from "../../storage/datasource.ts";
import type { EncodedFormat } from "./codecs.ts";
import { areaOf, type HeaderResult, MAX_HEADER_BYTES, readHeader } from "./image_header.ts";
import {
  compressInWorkers,
  COMPRESSION_PIXEL_CAPS,
  MAX_DECODED_BYTES,
  movable,
  PixelBudget,
} from "./image_pool.ts";

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

/** The pixels one upload request may have compressed as `compression` asks (none without). */
export function compressionBudget(compression: Compression | null): PixelBudget {
  return new PixelBudget(compression ? COMPRESSION_PIXEL_CAPS[compression.format] : 0);
}

/** What {@link compressUpload} made of a body. */
export interface CompressedUpload {
  /** The bytes to store: the compressed image, or the upload as it came. */
  body: ReadableStream<Uint8Array>;
  /** Why it was kept as it came; `null` when it was compressed. */
  kept: string | null;
}

/**
 * `body` (a PNG, JPEG or WebP upload, at most `limit` bytes: past it the
 * returned body fails with `SizeLimitError`) compressed as `compression`
 * asks, its pixels taken from the request's `budget`; kept as it came, with
 * the reason, when it is no image whose header reads, is over the caps, or
 * does not decode or encode.
 */
export async function compressUpload(
  body: ReadableStream<Uint8Array>,
  limit: number,
  compression: Compression,
  budget: PixelBudget,
): Promise<CompressedUpload> {
  const reader = body.pipeThrough(new ByteCounter(limit).stream).getReader();
  const held: Uint8Array[] = [];
  let size = 0;
  /** Reads one more chunk into `held` (each movable to a worker); `false` at the end. */
  const more = async () => {
    const { done, value } = await reader.read();
    if (done) return false;
    if (value.byteLength > 0) held.push(movable(value));
    size += value.byteLength;
    return true;
  };
  const kept = (reason: string) => ({ body: replay(held, reader), kept: reason });

  let header: HeaderResult = "more";
  while (header === "more" && size < MAX_HEADER_BYTES && await more()) {
    header = readHeader(joined(held, size));
  }
  if (header === "more" || header === null) return kept("no image header");
  const area = areaOf(header);
  if (area > budget.left) return kept("too many pixels");
  let reading = true;
  while (reading && size <= MAX_DECODED_BYTES) reading = await more();
  if (size > MAX_DECODED_BYTES) return kept("too large a file");
  budget.take(area);
  const { format, quality } = compression;
  const out = await compressInWorkers(held, header, budget.cap, format, quality);
  return { body: ReadableStream.from([out.bytes]), kept: out.kept };
}

/**
 * The `size` bytes of `chunks` in one array, which then replaces them (the
 * first bytes only, while the header is looked for: at most
 * {@link MAX_HEADER_BYTES}).
 */
function joined(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  chunks.splice(0, chunks.length, out);
  return out;
}

/** The chunks already read, then the rest of `reader`. */
function replay(
  held: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = held.shift();
      if (next) return controller.enqueue(next);
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
