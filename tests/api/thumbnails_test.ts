/**
 * Image thumbnails: `POST /api/server/thumbnails` makes them for PNG and JPEG
 * files, files show `thumbnail.path`, `/raw/<path>` serves it while the file
 * has no password, and deleting the file removes its bytes.
 */
import assert from "node:assert/strict";
import { decodeImage, encodeImage, type Pixels } from "../../core/files/images.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadOne } from "../helpers/files.ts";
import { type Actor, actor } from "../helpers/users.ts";
import { eventually } from "../helpers/wait.ts";

const STATUS = "Thumbnails are being generated. This may take a while, check your logs for " +
  "progress.";

/** A `width`×`height` gradient. */
function gradient(width: number, height: number): Pixels {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    data.set([i % width, (i / width) % 256, 128, 255], i * 4);
  }
  return { width, height, data };
}

/** Uploads a `width`×`height` gradient as `name` (a PNG, or a JPEG when it ends in `.jpg`). */
function uploadImage(
  app: TestApp,
  headers: Record<string, string>,
  width: number,
  height: number,
  name: string,
) {
  const jpg = name.endsWith(".jpg");
  const bytes = encodeImage(gradient(width, height), jpg ? "jpg" : "png");
  return uploadOne(app, headers, bytes, name, jpg ? "image/jpeg" : "image/png");
}

const fileOf = async (app: TestApp, owner: Actor, id: string) =>
  (await app.json("GET", `/api/user/files/${id}`, undefined, owner.headers)).body;

apiTest("thumbnails: PNG and JPEG files get one, served at /raw/<path>", async (app) => {
  const admin = await actor(app, "SUPERADMIN");
  const user = await actor(app, "USER");
  const png = await uploadImage(app, user.headers, 640, 400, "wide.png");
  const jpg = await uploadImage(app, user.headers, 300, 500, "tall.jpg");
  const text = await uploadOne(app, user.headers);
  assert.equal((await fileOf(app, user, png.id)).thumbnail, null);

  const run = await app.json("POST", "/api/server/thumbnails", {}, admin.headers);
  assert.deepEqual(run, { status: 200, body: { status: STATUS }, headers: run.headers });

  const expected: Record<string, [number, number]> = { [png.id]: [320, 200], [jpg.id]: [192, 320] };
  for (const [id, [width, height]] of Object.entries(expected)) {
    const { thumbnail } = await fileOf(app, user, id);
    assert.equal(thumbnail.path, `.thumbnail.${id}.jpg`);
    const res = await app.request(`/raw/${thumbnail.path}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/jpeg");
    const img = decodeImage(new Uint8Array(await res.arrayBuffer()));
    assert.deepEqual([img.width, img.height], [width, height]);
  }
  assert.equal((await fileOf(app, user, text.id)).thumbnail, null);
  const counts = await app.json("GET", "/api/server/export?counts=true", undefined, admin.headers);
  assert.equal(counts.body.thumbnails, 2);
  const list = await app.json("GET", "/api/user/files?page=1", undefined, user.headers);
  assert.deepEqual(
    list.body.page.map((f: { id: string; thumbnail: unknown }) => [f.id, f.thumbnail]).sort(),
    [
      [png.id, { path: `.thumbnail.${png.id}.jpg` }],
      [jpg.id, { path: `.thumbnail.${jpg.id}.jpg` }],
      [text.id, null],
    ].sort(),
  );
});

apiTest("thumbnails: rerun remakes them in the format set; missing ones 404", async (app) => {
  const admin = await actor(app, "ADMIN");
  const user = await actor(app, "USER");
  const png = await uploadImage(app, user.headers, 64, 32, "small.png");
  await app.json("POST", "/api/server/thumbnails", {}, admin.headers);
  await app.json(
    "PATCH",
    "/api/server/settings",
    { featuresThumbnailsFormat: "png" },
    admin.headers,
  );
  const rerun = await app.json("POST", "/api/server/thumbnails", { rerun: true }, admin.headers);
  assert.equal(rerun.body.status, STATUS.replace("generated.", "generated (rerun)."));

  const path = `.thumbnail.${png.id}.png`;
  assert.deepEqual((await fileOf(app, user, png.id)).thumbnail, { path });
  const res = await app.request(`/raw/${path}`);
  assert.equal(res.headers.get("content-type"), "image/png");
  const img = decodeImage(new Uint8Array(await res.arrayBuffer()));
  assert.deepEqual([img.width, img.height], [64, 32], "never scaled up");
  assert.ok(!(await app.storedObjects()).includes(`.thumbnail.${png.id}.jpg`), "old one removed");

  for (const missing of [`.thumbnail.${png.id}.jpg`, ".thumbnail.nope.png", ".thumbnail."]) {
    assert.equal((await app.request(`/raw/${missing}`)).status, 404, missing);
  }
});

apiTest("thumbnails: hidden behind a password; deleting the file removes them", async (app) => {
  const admin = await actor(app, "ADMIN");
  const user = await actor(app, "USER");
  const png = await uploadImage(app, user.headers, 400, 400, "secret.png");
  await app.json("POST", "/api/server/thumbnails", {}, admin.headers);
  const path = `.thumbnail.${png.id}.jpg`;
  assert.equal((await app.request(`/raw/${path}`)).status, 200);

  const locked = await app.json(
    "PATCH",
    `/api/user/files/${png.id}`,
    { password: "hunter22" },
    user.headers,
  );
  assert.equal(locked.status, 200);
  const hidden = await app.json("GET", `/raw/${path}`);
  assert.deepEqual(hidden.body, { error: "Not Found", statusCode: 404 });

  const gone = await app.json("DELETE", `/api/user/files/${png.id}`, undefined, user.headers);
  assert.equal(gone.status, 200);
  assert.deepEqual(await app.storedObjects(), []);
});

apiTest("thumbnails: 404 while featuresThumbnailsEnabled is off; admins only", async (app) => {
  const admin = await actor(app, "ADMIN");
  const user = await actor(app, "USER");
  assert.equal((await app.json("POST", "/api/server/thumbnails", {}, user.headers)).status, 403);
  await app.json(
    "PATCH",
    "/api/server/settings",
    { featuresThumbnailsEnabled: false },
    admin.headers,
  );
  const off = await app.json("POST", "/api/server/thumbnails", {}, admin.headers);
  assert.deepEqual(off.body, { error: "Thumbnails task not found", statusCode: 404 });
});

apiTest(
  "thumbnails: made right after the upload with featuresThumbnailsInstantaneous",
  async (app) => {
    const admin = await actor(app, "ADMIN");
    await app.json(
      "PATCH",
      "/api/server/settings",
      { featuresThumbnailsInstantaneous: true },
      admin.headers,
    );
    const png = await uploadImage(app, admin.headers, 500, 100, "now.png");
    const path = `.thumbnail.${png.id}.jpg`;
    await eventually("the thumbnail", async () => {
      return (await fileOf(app, admin, png.id)).thumbnail?.path === path;
    });
    const res = await app.request(`/raw/${path}`);
    const img = decodeImage(new Uint8Array(await res.arrayBuffer()));
    assert.deepEqual([img.width, img.height], [320, 64]);
  },
);
