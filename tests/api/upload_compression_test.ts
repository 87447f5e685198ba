/**
 * Image compression on upload (`x-service-image-compression-percent` and
 * `-type`, `filesDefaultCompressionFormat`): the stored bytes, name, type and
 * size follow the format written; bad values are 400s; other files pass
 * unchanged — on both stores.
 */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadFiles } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";
import { UnreadableSourceError } from "../../core/files/image_facts.ts";
import { encodeImage } from "../../core/files/images.ts";
import { decodePixels } from "../../core/files/codecs.ts";
import { pngDeclaring } from "../helpers/images.ts";

/** A 96×96 PNG of noisy colours, which JPEG makes much smaller. */
function noisyPng(): Uint8Array {
  const side = 96;
  let seed = 7;
  const data = new Uint8Array(side * side * 4).map((_, i) => {
    if (i % 4 === 3) return 255;
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed >> 23;
  });
  return encodeImage({ width: side, height: side, data }, "png");
}

async function settings(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.settings.update(values);
  await app.services.settings.reload();
}

/** Uploads `png` as `photo.png` with `headers`; the reply's file and the bytes served back. */
async function uploadPng(app: TestApp, headers: Record<string, string>, png = noisyPng()) {
  const res = await uploadFiles(app, [{ name: "photo.png", content: png, type: "image/png" }], {
    ...headers,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const file = res.body.files[0];
  const served = await app.request(`/raw/${file.name}`);
  const bytes = new Uint8Array(await served.arrayBuffer());
  return { file, bytes, servedType: served.headers.get("content-type") };
}

apiTest(
  "conformance: upload compression: a PNG at 50% to jpg is a smaller JPEG named .jpg",
  async (app) => {
    const a = await actor(app, "USER");
    const png = noisyPng();
    const { file, bytes, servedType } = await uploadPng(app, {
      ...a.headers,
      "x-service-image-compression-percent": "50",
      "x-service-image-compression-type": "jpg",
    }, png);
    assert.match(file.name, /^[A-Za-z0-9]+\.jpg$/);
    assert.equal(file.type, "image/jpeg");
    assert.deepEqual(file.compressed, { mimetype: "image/jpeg", ext: "jpg" });
    assert.equal(servedType, "image/jpeg");
    assert.ok(bytes.length < png.length / 2, `${bytes.length} bytes from ${png.length}`);
    const img = await decodePixels(bytes, Infinity);
    assert.deepEqual([bytes[0], bytes[1], img.width, img.height], [0xff, 0xd8, 96, 96]);
    const stored = await app.services.store.files.get(file.id);
    assert.equal(stored?.size, bytes.length, "the size is the compressed one");
    assert.deepEqual(await app.storedObjects(), [file.name]);
  },
);

apiTest(
  "conformance: upload compression: webp and jxl by the x-zipline- headers, the default format without a type",
  async (app) => {
    const a = await actor(app, "USER");
    const webp = await uploadPng(app, {
      ...a.headers,
      "x-zipline-image-compression-percent": "80",
      "x-zipline-image-compression-type": "WEBP",
    });
    assert.match(webp.file.name, /\.webp$/);
    assert.equal(webp.servedType, "image/webp");
    const img = await decodePixels(webp.bytes, Infinity);
    assert.deepEqual([img.width, img.height], [96, 96]);

    await settings(app, { filesDefaultCompressionFormat: "jxl" });
    const jxl = await uploadPng(app, { ...a.headers, "x-service-image-compression-percent": "0" });
    assert.match(jxl.file.name, /\.jxl$/);
    assert.equal(jxl.file.type, "image/jxl");
    assert.deepEqual([...jxl.bytes.subarray(0, 2)], [0xff, 0x0a], "a JPEG XL codestream");

    const recompressed = await uploadFiles(app, [{
      name: "again.webp",
      content: webp.bytes,
      type: "image/webp",
    }], { ...a.headers, "x-service-image-compression-percent": "40" });
    assert.match(recompressed.body.files[0].name, /\.jxl$/, "a WebP upload decodes too");
    assert.equal(recompressed.body.files[0].compressed.failed, undefined);
  },
);

apiTest(
  "conformance: upload compression: a bad percent or type is a 400 and nothing is stored",
  async (app) => {
    const a = await actor(app, "USER");
    const cases: [Record<string, string>, string][] = [
      [
        { "x-service-image-compression-percent": "half" },
        "bad options[image-compression-percent]: Invalid percent (NaN)",
      ],
      [
        { "x-zipline-image-compression-percent": "101" },
        "bad options[image-compression-percent]: Invalid percent (must be between 0 and 100)",
      ],
      [
        { "x-service-image-compression-percent": "50", "x-service-image-compression-type": "gif" },
        "bad options[image-compression-type]: Invalid compression type (must be one of: " +
        "jpg, jpeg, png, webp, jxl)",
      ],
    ];
    for (const [headers, error] of cases) {
      const res = await uploadFiles(app, [{
        name: "a.png",
        content: noisyPng(),
        type: "image/png",
      }], {
        ...a.headers,
        ...headers,
      });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { error, statusCode: 400 });
    }
    assert.deepEqual(await app.storedObjects(), []);
  },
);

apiTest(
  "conformance: upload compression: applies with featuresImageCompression off (Zipline does not consult it); a type alone does nothing",
  async (app) => {
    const a = await actor(app, "USER");
    await settings(app, { featuresImageCompression: false });
    const off = await uploadPng(app, {
      ...a.headers,
      "x-service-image-compression-percent": "50",
    });
    assert.match(off.file.name, /\.jpg$/);
    assert.equal(off.servedType, "image/jpeg");

    const png = noisyPng();
    const typeOnly = await uploadPng(app, {
      ...a.headers,
      "x-service-image-compression-type": "webp",
    }, png);
    assert.match(typeOnly.file.name, /\.png$/);
    assert.equal(typeOnly.file.compressed, undefined);
    assert.deepEqual(typeOnly.bytes, png);
  },
);

apiTest(
  "conformance: upload compression: a non-image and an undecodable image are stored unchanged",
  async (app) => {
    const a = await actor(app, "USER");
    const headers = { ...a.headers, "x-service-image-compression-percent": "50" };
    const res = await uploadFiles(app, [
      { name: "notes.txt", content: "not an image", type: "text/plain" },
      { name: "broken.png", content: "not a png either", type: "image/png" },
    ], headers);
    assert.equal(res.status, 200);
    const [text, broken] = res.body.files;
    assert.match(text.name, /\.txt$/);
    assert.equal(text.type, "text/plain");
    assert.equal(text.compressed, undefined);
    assert.equal(await (await app.request(`/raw/${text.name}`)).text(), "not an image");
    assert.deepEqual(broken.compressed, { mimetype: "image/jpeg", ext: "jpg", failed: true });
    assert.equal(await (await app.request(`/raw/${broken.name}`)).text(), "not a png either");
  },
);

apiTest(
  "conformance: upload compression: an image over filesMaxFileSize is refused before it is compressed",
  async (app) => {
    const a = await actor(app, "USER");
    await settings(app, { filesMaxFileSize: "1kb" });
    const png = noisyPng();
    const res = await uploadFiles(app, [{ name: "a.png", content: png, type: "image/png" }], {
      ...a.headers,
      "x-service-image-compression-percent": "10",
    });
    assert.equal(res.status, 413);
    assert.deepEqual(res.body, {
      error: "file[0]: File size is too large. Maximum file size is 1024 bytes",
      statusCode: 413,
    });
    assert.deepEqual(await app.storedObjects(), []);
    assert.deepEqual(await app.services.store.files.listByUser(a.user.id), []);
  },
);

apiTest(
  "security: a small PNG declaring 400 megapixels is refused before it is inflated, and stored as it came",
  async (app) => {
    const bomb = pngDeclaring(20_000);
    await assert.rejects(decodePixels(bomb, 50_000_000), (error: unknown) => {
      assert.ok(error instanceof UnreadableSourceError);
      assert.equal(error.message, "no thumbnail: too many pixels");
      return true;
    });
    const a = await actor(app, "USER");
    const res = await uploadFiles(app, [{ name: "bomb.png", content: bomb, type: "image/png" }], {
      ...a.headers,
      "x-service-image-compression-percent": "50",
    });
    assert.equal(res.status, 200);
    const [file] = res.body.files;
    assert.deepEqual(file.compressed, { mimetype: "image/jpeg", ext: "jpg", failed: true });
    const served = await app.request(`/raw/${file.name}`);
    assert.deepEqual(new Uint8Array(await served.arrayBuffer()), bomb);
  },
);
