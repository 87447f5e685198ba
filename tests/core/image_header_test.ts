/** The size an image's header declares, read without decoding: PNG, JPEG, GIF, WebP. */
import assert from "node:assert/strict";
import { imageHeader, readHeader } from "../../core/files/image_header.ts";
import { encodeImage } from "../../core/files/images.ts";
import { encodePixels } from "../../core/files/codecs.ts";
import {
  gifDeclaring,
  jpegDeclaring,
  pngDeclaring,
  redSquare,
  webpDeclaring,
} from "../helpers/images.ts";

const pixels = (width: number, height: number) => ({
  width,
  height,
  data: new Uint8Array(width * height * 4).fill(200),
});

Deno.test("image header: real files of each format give their size", async () => {
  const img = pixels(37, 21);
  assert.deepEqual(imageHeader(encodeImage(img, "png")), { format: "png", width: 37, height: 21 });
  assert.deepEqual(imageHeader(encodeImage(img, "jpg")), { format: "jpeg", width: 37, height: 21 });
  assert.deepEqual(imageHeader(await encodePixels(img, "jpg", 50)), {
    format: "jpeg",
    width: 37,
    height: 21,
  });
  assert.deepEqual(imageHeader(await encodePixels(img, "webp", 50)), {
    format: "webp",
    width: 37,
    height: 21,
  });
  assert.deepEqual(imageHeader(redSquare(5)), { format: "png", width: 5, height: 5 });
});

Deno.test("image header: bombs are measured by what they declare", () => {
  assert.deepEqual(imageHeader(pngDeclaring(20_000, 30_000)), {
    format: "png",
    width: 20_000,
    height: 30_000,
  });
  assert.deepEqual(imageHeader(jpegDeclaring(65_000, 60_000)), {
    format: "jpeg",
    width: 65_000,
    height: 60_000,
  });
  assert.deepEqual(imageHeader(gifDeclaring(65_535, 65_535)), {
    format: "gif",
    width: 65_535,
    height: 65_535,
  });
  for (const kind of ["vp8l", "vp8", "vp8x"] as const) {
    assert.deepEqual(
      imageHeader(webpDeclaring(kind, 7000, 9000)),
      { format: "webp", width: 7000, height: 9000 },
      kind,
    );
  }
  // An extended WebP's canvas far beyond a bitstream's 16384 pixels a side.
  assert.deepEqual(imageHeader(webpDeclaring("vp8x", 1_000_000, 3)), {
    format: "webp",
    width: 1_000_000,
    height: 3,
  });
});

Deno.test("image header: a JPEG's frame header after large metadata segments", () => {
  const bomb = jpegDeclaring(30_000, 20_000);
  const app1 = new Uint8Array(4 + 60_000);
  app1.set([0xff, 0xe1, (60_002 >> 8) & 0xff, 60_002 & 0xff]);
  const withExif = new Uint8Array([...bomb.subarray(0, 2), ...app1, ...bomb.subarray(2)]);
  assert.deepEqual(imageHeader(withExif), { format: "jpeg", width: 30_000, height: 20_000 });
  // Cut before the frame header: the streaming reader asks for more, the whole-file one refuses.
  assert.equal(readHeader(withExif.subarray(0, 30_000)), "more");
  assert.equal(imageHeader(withExif.subarray(0, 30_000)), null);
});

Deno.test("image header: a JPEG with two frame headers, none, or a zero side is no image", () => {
  const one = jpegDeclaring(100, 100);
  const sofAt = 2 + 18;
  const sof = one.subarray(sofAt, sofAt + 19);
  const two = new Uint8Array([...one.subarray(0, sofAt), ...sof, ...one.subarray(sofAt)]);
  assert.equal(imageHeader(two), null, "two frames");
  const none = new Uint8Array([...one.subarray(0, sofAt), ...one.subarray(sofAt + 19)]);
  assert.equal(imageHeader(none), null, "no frame before the scan");
  assert.equal(imageHeader(jpegDeclaring(0, 100)), null, "zero width");
  assert.equal(imageHeader(jpegDeclaring(100, 0)), null, "zero height (DNL)");
});

Deno.test("image header: cut short, it asks for more; not an image, null", () => {
  for (const bytes of [pngDeclaring(10), jpegDeclaring(10), gifDeclaring(10)]) {
    assert.equal(readHeader(bytes.subarray(0, 5)), "more");
  }
  assert.equal(readHeader(webpDeclaring("vp8l", 10).subarray(0, 20)), "more");
  assert.equal(readHeader(new Uint8Array(0)), "more");
  assert.equal(imageHeader(new TextEncoder().encode("just some text, not an image")), null);
  assert.equal(imageHeader(new TextEncoder().encode("RIFF....AVI LIST")), null);
  const png = pngDeclaring(10);
  png.set(new TextEncoder().encode("IDAT"), 12);
  assert.equal(imageHeader(png), null, "a PNG whose first chunk is not IHDR");
});
