/**
 * Image encoders and the WebP decoder in WebAssembly (`@jsquash/*`, Squoosh's
 * codecs). Each codec's `.wasm` is imported as bytes (`with { type: "bytes" }`,
 * the `raw-imports` feature in deno.json) and handed to the codec's `init`, so
 * nothing is fetched or read from disk at run time and `deno bundle`/`deno
 * compile` carry the codecs inside. PNG is written in pure JavaScript
 * (`pngjs`, as the thumbnails are). Each module is compiled on first use.
 */
import { Buffer } from "node:buffer";
import { PNG } from "pngjs";
import encodeJpeg, { init as initJpeg } from "@jsquash/jpeg/encode.js";
import encodeJxl, { init as initJxl } from "@jsquash/jxl/encode.js";
import decodeWebpWasm, { init as initWebpDecoder } from "@jsquash/webp/decode.js";
import encodeWebp, { init as initWebp } from "@jsquash/webp/encode.js";
import jpegWasm from "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm" with { type: "bytes" };
import jxlWasm from "@jsquash/jxl/codec/enc/jxl_enc.wasm" with { type: "bytes" };
import webpDecoderWasm from "@jsquash/webp/codec/dec/webp_dec.wasm" with { type: "bytes" };
import webpWasm from "@jsquash/webp/codec/enc/webp_enc_simd.wasm" with { type: "bytes" };
import { MAX_PIXELS, type Pixels } from "./images.ts";

/** The formats {@link encodePixels} writes. */
export type EncodedFormat = "jpg" | "png" | "webp" | "jxl";

/** The pixels as the codecs take them (an `ImageData` in shape). */
type CodecImage = Parameters<typeof encodeJpeg>[0];

/** One codec's `init`, run once with its compiled module. */
function once(
  init: (module: WebAssembly.Module) => unknown,
  wasm: Uint8Array,
): () => Promise<void> {
  let ready: Promise<void> | null = null;
  return () =>
    ready ??= WebAssembly.compile(wasm as Uint8Array<ArrayBuffer>).then(async (module) => {
      await init(module);
    });
}

const ready = {
  jpg: once(initJpeg, jpegWasm),
  jxl: once(initJxl, jxlWasm),
  webp: once(initWebp, webpWasm),
  webpDecoder: once(initWebpDecoder, webpDecoderWasm),
};

const asCodecImage = (img: Pixels): CodecImage =>
  ({
    width: img.width,
    height: img.height,
    data: new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.byteLength),
    colorSpace: "srgb",
  }) as CodecImage;

/**
 * `img` written as `format` at `quality` (0–100; PNG is lossless and ignores
 * it; JPEG loses transparency).
 */
export async function encodePixels(
  img: Pixels,
  format: EncodedFormat,
  quality: number,
): Promise<Uint8Array> {
  if (format === "png") {
    const png = new PNG({ width: img.width, height: img.height });
    png.data = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
    return new Uint8Array(PNG.sync.write(png));
  }
  await ready[format]();
  const encode = { jpg: encodeJpeg, jxl: encodeJxl, webp: encodeWebp }[format];
  return new Uint8Array(await encode(asCodecImage(img), { quality }));
}

/** The width times height a WebP's header declares; `null` when `bytes` are no WebP. */
function webpArea(bytes: Uint8Array): number | null {
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (bytes.length < 30 || tag(0) !== "RIFF" || tag(8) !== "WEBP") return null;
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u24 = (at: number) => v.getUint16(at, true) | (bytes[at + 2] << 16);
  switch (tag(12)) {
    case "VP8X":
      return (u24(24) + 1) * (u24(27) + 1);
    case "VP8L": {
      const bits = v.getUint32(21, true);
      return ((bits & 0x3fff) + 1) * (((bits >>> 14) & 0x3fff) + 1);
    }
    case "VP8 ":
      return (v.getUint16(26, true) & 0x3fff) * (v.getUint16(28, true) & 0x3fff);
  }
  return null;
}

/**
 * Decodes the (still) WebP `bytes`; throws when they are not one or declare
 * more than {@link MAX_PIXELS} pixels (checked before anything is decoded).
 */
export async function decodeWebp(bytes: Uint8Array): Promise<Pixels> {
  const area = webpArea(bytes);
  if (area === null || area > MAX_PIXELS) throw new Error("not a WebP, or too many pixels");
  await ready.webpDecoder();
  const img = await decodeWebpWasm(bytes.slice().buffer);
  return { width: img.width, height: img.height, data: new Uint8Array(img.data.buffer) };
}
