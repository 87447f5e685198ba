/** POST /api/upload with `filesRemoveGpsMetadata`: GPS data blanked in stored JPEGs, and said so. */
import assert from "node:assert/strict";
import { apiTest } from "../helpers/app.ts";
import { uploadFiles } from "../helpers/files.ts";
import { jpegWithGps, pngWithGps } from "../helpers/images.ts";
import { actor } from "../helpers/users.ts";

apiTest("upload: GPS data is removed from JPEGs when the setting is on", async (app) => {
  const a = await actor(app, "USER");
  const jpeg = jpegWithGps();
  const files = [
    { name: "photo.jpg", content: jpeg, type: "image/jpeg" },
    { name: "notes.txt", content: "hello", type: "text/plain" },
  ];

  const kept = await uploadFiles(app, files, a.headers);
  assert.equal(kept.status, 200);
  assert.equal(kept.body.files[0].removedGps, undefined);
  const original = await app.request(`/raw/${kept.body.files[0].name}`);
  assert.deepEqual(new Uint8Array(await original.arrayBuffer()), jpeg);

  await app.services.store.settings.update({ filesRemoveGpsMetadata: true });
  await app.services.settings.reload();
  const stripped = await uploadFiles(app, files, a.headers);
  assert.equal(stripped.status, 200);
  assert.equal(stripped.body.files[0].removedGps, true);
  assert.equal(stripped.body.files[1].removedGps, undefined);
  const served = new Uint8Array(
    await (await app.request(`/raw/${stripped.body.files[0].name}`)).arrayBuffer(),
  );
  assert.equal(served.byteLength, jpeg.byteLength);
  assert.ok(served.subarray(12 + 38, 12 + 92).every((b) => b === 0));
  assert.deepEqual(served.subarray(0, 12 + 38), jpeg.subarray(0, 12 + 38));
  const record = await app.services.store.files.get(stripped.body.files[0].id);
  assert.equal(record?.size, jpeg.byteLength);
});

apiTest("upload: GPS data is removed from a PNG's eXIf chunk, wherever it stands", async (app) => {
  const a = await actor(app, "USER");
  await app.services.store.settings.update({ filesRemoveGpsMetadata: true });
  await app.services.settings.reload();
  for (const afterData of [false, true]) {
    const { bytes: png, exifAt } = pngWithGps(false, afterData);
    const res = await uploadFiles(app, [{ name: "map.png", content: png, type: "image/png" }], {
      ...a.headers,
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.files[0].removedGps, true);
    const served = new Uint8Array(
      await (await app.request(`/raw/${res.body.files[0].name}`)).arrayBuffer(),
    );
    const tiffAt = exifAt + 8;
    assert.equal(served.byteLength, png.byteLength);
    assert.ok(served.subarray(tiffAt + 38, tiffAt + 92).every((b) => b === 0));
    assert.deepEqual(served.subarray(0, tiffAt + 38), png.subarray(0, tiffAt + 38));
    assert.deepEqual(served.subarray(tiffAt + 104), png.subarray(tiffAt + 104));
  }
});
