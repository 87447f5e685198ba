/**
 * Image codecs in WebAssembly (`@jsquash/*`, Squoosh's codecs): the JPEG,
 * WebP and JPEG XL encoders and the PNG, JPEG and WebP decoders. Each codec's
 * `.wasm` is imported as bytes (`with { type: "bytes" }`, the `raw-imports`
 * feature in deno.json) and handed to the codec's `init`, so nothing is
 * fetched or read from disk at run time and `deno bundle`/`deno compile`
 * carry the codecs inside. PNG is written in pure JavaScript (`pngjs`, as the
 * thumbnails are) and GIF read so (`images.ts`). Each module is compiled on
 * first use.
 *
 * A WebAssembly module's memory grows to what its largest image needed and
 * never shrinks: these codecs run in the image workers (`image_worker.ts`),
 * whose pool ends a worker after a large image so that memory goes back.
 */
import { Buffer } from "node:buffer";
import { PNG } from "pngjs";
import decodeJpegWasm, { init as initJpegDecoder } from "@jsquash/jpeg/decode.js";
import encodeJpeg, { init as initJpeg } from "@jsquash/jpeg/encode.js";
import encodeJxl, { init as initJxl } from "@jsquash/jxl/encode.js";
import decodePngWasm, { init as initPngDecoder } from "@jsquash/png/decode.js";
import decodeWebpWasm, { init as initWebpDecoder } from "@jsquash/webp/decode.js";
import encodeWebp, { init as initWebp } from "@jsquash/webp/encode.js";
import jpegDecoderWasm from "@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm" with { type: "bytes" };
import jpegWasm from "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm" with { type: "bytes" };
import jxlWasm from "@jsquash/jxl/codec/enc/jxl_enc.wasm" with { type: "bytes" };
import pngDecoderWasm from "@jsquash/png/codec/pkg/squoosh_png_bg.wasm" with { type: "bytes" };
import webpDecoderWasm from "@jsquash/webp/codec/dec/webp_dec.wasm" with { type: "bytes" };
import webpWasm from "@jsquash/webp/codec/enc/webp_enc_simd.wasm" with { type: "bytes" };
import { type Pixels, UnreadableSourceError } from "./image_facts.ts";
import { decodeGif } from "./images.ts";
import { areaOf, type HeaderFormat, imageHeader } from "./image_header.ts";

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
  jpegDecoder: once(initJpegDecoder, jpegDecoderWasm),
  pngDecoder: once(initPngDecoder, pngDecoderWasm),
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
    const out = PNG.sync.write(png);
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  }
  await ready[format]();
  const encode = { jpg: encodeJpeg, jxl: encodeJxl, webp: encodeWebp }[format];
  return new Uint8Array(await encode(asCodecImage(img), { quality }));
}

/** The pixels of a decoder's answer (an `ImageData`), without a copy. */
function asPixels(img: ImageData): Pixels {
  const data = img.data as Uint8ClampedArray;
  return {
    width: img.width,
    height: img.height,
    data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  };
}

/** Each format's decoder, handed the whole file and the cap (checked again within a GIF). */
const DECODERS: Record<HeaderFormat, (bytes: Uint8Array, maxPixels: number) => Promise<Pixels>> = {
  async png(bytes) {
    await ready.pngDecoder();
    return asPixels(await decodePngWasm(own(bytes)));
  },
  async jpeg(bytes) {
    await ready.jpegDecoder();
    return asPixels(await decodeJpegWasm(own(bytes)));
  },
  async webp(bytes) {
    await ready.webpDecoder();
    return asPixels(await decodeWebpWasm(own(bytes)));
  },
  gif: (bytes, maxPixels) => Promise.resolve(decodeGif(bytes, maxPixels)),
};

/** `bytes` as an `ArrayBuffer` of their own (the same one when they fill it). */
function own(bytes: Uint8Array): ArrayBuffer {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return (whole ? bytes.buffer : bytes.slice().buffer) as ArrayBuffer;
}

/**
 * Decodes a PNG, JPEG, WebP or GIF (its first frame) to RGBA pixels; throws
 * {@link UnreadableSourceError} when `bytes` are none of them, or their
 * header declares more than `maxPixels` pixels (read before anything is
 * decoded), or the decoder fails.
 */
export async function decodePixels(bytes: Uint8Array, maxPixels: number): Promise<Pixels> {
  const header = imageHeader(bytes);
  if (header === null) throw new UnreadableSourceError("not a PNG, JPEG, WebP or GIF image");
  if (areaOf(header) > maxPixels) throw new UnreadableSourceError("too many pixels");
  let img: Pixels;
  try {
    img = await DECODERS[header.format](bytes, maxPixels);
  } catch (error) {
    if (error instanceof UnreadableSourceError) throw error;
    // An Emscripten codec that exits throws an ExitStatus, no Error, but with a message.
    const message = (error as { message?: unknown } | null)?.message;
    throw new UnreadableSourceError(typeof message === "string" ? message : String(error));
  }
  if (img.width !== header.width || img.height !== header.height) {
    throw new UnreadableSourceError("the image is not the size its header declares");
  }
  return img;
}
