/**
 * Image bombs (issue #30, item 3): an image is measured on its header before
 * anything decodes it, and decoded only by the image workers within the caps
 * of core/files/image_pool.ts. Compression keeps what is over the caps as it
 * came (Zipline's `compressed.failed`), counting the pixels of all the images
 * of one request together; thumbnails skip it. No worker task runs for an
 * image refused by its header — on both stores.
 */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadFiles } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";
import { eventually } from "../helpers/wait.ts";
import { encodeImage } from "../../core/files/images.ts";
import {
  COMPRESSION_PIXEL_CAPS,
  imagePool,
  THUMBNAIL_PIXEL_CAP,
} from "../../core/files/image_pool.ts";
import { gifDeclaring, jpegDeclaring, pngDeclaring, webpDeclaring } from "../helpers/images.ts";

/** A real lossless WebP of one colour, 7000×7000 pixels (49 MP) in 38 bytes. */
const WEBP_BOMB = await Deno.readFile(
  new URL("../fixtures/bomb-7000x7000.webp", import.meta.url),
);

const COMPRESS = { "x-zipline-image-compression-percent": "50" };

/** Tasks the image workers have been given in this process so far. */
const tasks = () => imagePool().stats().tasks;

/** The reasons logged for images kept as they came, by file id. */
function keptReasons(app: TestApp): Map<string, string> {
  return new Map(
    app.logger.lines.filter((l) => l.message === "image not compressed").map((
      l,
    ) => [String(l.fields?.id), String(l.fields?.reason)]),
  );
}

/** A 96×96 PNG of noise, which compresses for real. */
function smallPng(): Uint8Array {
  let seed = 3;
  const data = new Uint8Array(96 * 96 * 4).map((_, i) => {
    if (i % 4 === 3) return 255;
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed >> 23;
  });
  return encodeImage({ width: 96, height: 96, data }, "png");
}

apiTest(
  "security #30.3: a small file declaring a huge image (WebP, PNG, JPEG) is stored as it came, refused on its header without a decode",
  async (app) => {
    const a = await actor(app, "USER");
    const bombs = [
      { name: "real.webp", type: "image/webp", content: WEBP_BOMB },
      { name: "lossless.webp", type: "image/webp", content: webpDeclaring("vp8l", 16_000) },
      { name: "lossy.webp", type: "image/webp", content: webpDeclaring("vp8", 9_000) },
      { name: "extended.webp", type: "image/webp", content: webpDeclaring("vp8x", 100_000) },
      { name: "bomb.png", type: "image/png", content: pngDeclaring(20_000) },
      { name: "bomb.jpg", type: "image/jpeg", content: jpegDeclaring(60_000) },
    ];
    const before = tasks();
    for (const bomb of bombs) {
      const res = await uploadFiles(app, [bomb], { ...a.headers, ...COMPRESS });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const [file] = res.body.files;
      assert.deepEqual(
        file.compressed,
        { mimetype: "image/jpeg", ext: "jpg", failed: true },
        bomb.name,
      );
      const served = await app.request(`/raw/${file.name}`);
      assert.deepEqual(new Uint8Array(await served.arrayBuffer()), bomb.content, bomb.name);
      assert.equal(keptReasons(app).get(file.id), "too many pixels", bomb.name);
    }
    assert.equal(tasks(), before, "no image worker was given any of them");
  },
);

apiTest(
  "security #30.3: the pixels of all the images of one request count together against the cap",
  async (app) => {
    const a = await actor(app, "USER");
    const cap = COMPRESSION_PIXEL_CAPS.jpg;
    // Each under the cap alone (7/12 of it), both together over it.
    const side = Math.floor(Math.sqrt(cap * 7 / 12));
    const part = (name: string) => ({ name, type: "image/png", content: pngDeclaring(side) });
    const alone = await uploadFiles(app, [part("alone.png")], { ...a.headers, ...COMPRESS });
    assert.equal(alone.status, 200);
    const aloneReason = keptReasons(app).get(alone.body.files[0].id);
    assert.notEqual(aloneReason, "too many pixels", "alone, it fits and goes to a worker");

    const before = tasks();
    const res = await uploadFiles(app, [
      part("first.png"),
      part("second.png"),
      { name: "small.png", type: "image/png", content: smallPng() },
    ], { ...a.headers, ...COMPRESS });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [first, second, small] = res.body.files;
    const reasons = keptReasons(app);
    assert.equal(reasons.get(first.id), aloneReason, "the first takes 7/12 of the cap");
    assert.equal(second.compressed.failed, true);
    assert.equal(reasons.get(second.id), "too many pixels", "the second does not fit beside it");
    assert.deepEqual(small.compressed, { mimetype: "image/jpeg", ext: "jpg" }, "what is left fits");
    assert.equal(tasks() - before, 2, "the first and the small one went to the workers");
    const served = await app.request(`/raw/${small.name}`);
    assert.deepEqual([...new Uint8Array(await served.arrayBuffer()).subarray(0, 2)], [0xff, 0xd8]);
  },
);

apiTest(
  "security #30.3: no thumbnail is made of an image over the cap, and no worker decodes it",
  async (app) => {
    const admin = await actor(app, "SUPERADMIN");
    const over = Math.ceil(Math.sqrt(THUMBNAIL_PIXEL_CAP)) + 1;
    const files = [
      { name: "big.jpg", type: "image/jpeg", content: jpegDeclaring(over) },
      { name: "big.png", type: "image/png", content: pngDeclaring(over) },
      { name: "big.gif", type: "image/gif", content: gifDeclaring(over) },
    ];
    const res = await uploadFiles(app, files, admin.headers);
    assert.equal(res.status, 200);
    const before = tasks();
    const run = await app.json("POST", "/api/server/thumbnails", { rerun: false }, admin.headers);
    assert.equal(run.status, 200);
    await eventually(
      "the pass",
      () => Promise.resolve(app.logger.lines.some((l) => l.message === "thumbnails made")),
    );
    const refused = app.logger.lines.filter((l) => l.message === "no thumbnail");
    assert.deepEqual(
      refused.map((l) => [l.fields?.id, l.fields?.reason]).sort(),
      res.body.files.map((f: { id: string }) => [f.id, "too many pixels"]).sort(),
    );
    assert.equal(tasks(), before, "no image worker was given any of them");
    for (const file of res.body.files) {
      const shown = await app.json("GET", `/api/user/files/${file.id}`, undefined, admin.headers);
      assert.equal(shown.body.thumbnail, null);
    }
  },
);
