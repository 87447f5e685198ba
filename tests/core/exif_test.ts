/** GPS removal from JPEG Exif data, as the upload stream sees it: split anywhere, both byte orders. */
import assert from "node:assert/strict";
import { GpsRemover, MAX_HEAD } from "../../core/files/exif.ts";
import { crc32, jpegWithGps, pngChunk, pngWithGps, tiffWithGps } from "../helpers/images.ts";

async function run(input: Uint8Array, split: number[]): Promise<[Uint8Array, boolean]> {
  const remover = new GpsRemover();
  const cuts = [0, ...split, input.byteLength];
  const chunks = cuts.slice(1).map((end, i) => input.slice(cuts[i], end));
  const out = await new Response(ReadableStream.from(chunks).pipeThrough(remover.stream))
    .arrayBuffer();
  return [new Uint8Array(out), remover.removed];
}

for (const little of [true, false]) {
  Deno.test(`GPS is blanked in place, the rest kept (${little ? "II" : "MM"})`, async () => {
    const jpeg = jpegWithGps(little);
    for (const split of [[], [1], [3, 9], [20, 60, 100], [jpeg.byteLength - 1]]) {
      const [out, removed] = await run(jpeg, split);
      assert.equal(removed, true, `split ${split}`);
      assert.equal(out.byteLength, jpeg.byteLength);
      const tiff = new DataView(out.buffer, 12);
      assert.equal(tiff.getUint16(38, little), 0, "GPS entry count");
      assert.ok(out.subarray(12 + 38, 12 + 92).every((b) => b === 0), "GPS entries and values");
      assert.deepEqual(out.subarray(0, 12 + 38), jpeg.subarray(0, 12 + 38), "IFD0 kept");
      assert.deepEqual(out.subarray(12 + 100), jpeg.subarray(12 + 100), "image data kept");
    }
  });
}

Deno.test("anything else passes unchanged", async () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
  assert.deepEqual(await run(png, [1]), [png, false]);
  const jpeg = jpegWithGps();
  const broken = jpeg.slice();
  broken[12 + 61] = 0xff; // the latitude's offset now points far outside
  assert.deepEqual(await run(broken, [5]), [broken, false]);
  const endless = new Uint8Array(MAX_HEAD + 10);
  endless.set([0xff, 0xd8, 0xff, 0xe1, 0xff, 0xff]);
  assert.deepEqual(await run(endless, [100]), [endless, false]);
  assert.deepEqual(await run(new Uint8Array([0xff]), []), [new Uint8Array([0xff]), false]);
});

for (const little of [true, false]) {
  for (const afterData of [false, true]) {
    Deno.test(
      `PNG: the eXIf chunk's GPS is blanked, its CRC rewritten (${little ? "II" : "MM"}, ${
        afterData ? "after" : "before"
      } the image data)`,
      async () => {
        const { bytes: png, exifAt } = pngWithGps(little, afterData);
        const tiffAt = exifAt + 8;
        for (const split of [[], [1], [5, 9], [tiffAt + 3], [exifAt + 2, exifAt + 60], [70, 71]]) {
          const [out, removed] = await run(png, split);
          assert.equal(removed, true, `split ${split}`);
          assert.equal(out.byteLength, png.byteLength);
          const tiff = out.subarray(tiffAt, tiffAt + 100);
          assert.equal(new DataView(tiff.buffer, tiff.byteOffset).getUint16(38, little), 0);
          assert.ok(tiff.subarray(38, 92).every((b) => b === 0), "GPS entries and values");
          assert.deepEqual(tiff.subarray(0, 38), png.subarray(tiffAt, tiffAt + 38), "IFD0 kept");
          const crc = new DataView(out.buffer).getUint32(tiffAt + 100);
          assert.equal(crc, crc32(out.subarray(exifAt + 4, tiffAt + 100)), "CRC of the chunk");
          assert.deepEqual(out.subarray(0, exifAt), png.subarray(0, exifAt), "chunks before");
          assert.deepEqual(out.subarray(tiffAt + 104), png.subarray(tiffAt + 104), "chunks after");
        }
      },
    );
  }
}

Deno.test("PNG: other chunks pass, however large; an oversized eXIf passes unchanged", async () => {
  const { bytes: png, exifAt } = pngWithGps();
  const plain = png.slice();
  plain.set([0x74, 0x45, 0x58, 0x74], exifAt + 4); // "tEXt": not Exif
  assert.deepEqual(await run(plain, [exifAt + 6]), [plain, false]);
  const big = new Uint8Array([
    ...png.subarray(0, 33),
    ...pngChunk("IDAT", new Uint8Array(MAX_HEAD * 2).fill(3)),
    ...png.subarray(33),
  ]);
  const [out, removed] = await run(big, [40, 1000, MAX_HEAD]);
  assert.equal(removed, true);
  assert.equal(out.byteLength, big.byteLength);
  assert.deepEqual(
    out.subarray(0, 33 + MAX_HEAD * 2 + 12),
    big.subarray(0, 33 + MAX_HEAD * 2 + 12),
  );
  const huge = new Uint8Array([
    ...png.subarray(0, exifAt),
    ...pngChunk("eXIf", new Uint8Array([...tiffWithGps(), ...new Uint8Array(MAX_HEAD)])),
    ...png.subarray(exifAt + 112),
  ]);
  assert.deepEqual(await run(huge, [50, 5000]), [huge, false]);
});
