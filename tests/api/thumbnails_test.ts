/**
 * Thumbnails: `POST /api/server/thumbnails` starts a pass that makes them for
 * PNG, JPEG and GIF files (and videos, with ffmpeg), files show
 * `thumbnail.path`, `/raw/<path>` serves it while the file has no password,
 * the owner reads it at `/api/user/files/<path>/raw`, deleting the file
 * removes its bytes and `cleanthumbnails` removes what no file owns.
 */
import assert from "node:assert/strict";
import { GifWriter } from "omggif";
import type { Pixels } from "../../core/files/image_facts.ts";
import { encodeImage } from "../../core/files/images.ts";
import { decodePixels } from "../../core/files/codecs.ts";
import { cleanThumbnails, generateThumbnails } from "../../core/files/thumbnails.ts";
import { watchReads } from "../helpers/file_reads.ts";
import { FFMPEG_AT_ONCE } from "../../core/files/video.ts";
import { MemoryLogger } from "../../core/log.ts";
import { findFfmpeg } from "../../cli/services.ts";
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

/** Waits until `id`'s file shows the thumbnail `path` (`null`: none). */
async function thumbnailShown(app: TestApp, owner: Actor, id: string, path: string | null) {
  await eventually(`thumbnail ${path} of ${id}`, async () => {
    return ((await fileOf(app, owner, id)).thumbnail?.path ?? null) === path;
  });
}

/** Uploads a gradient PNG as `owner`, has `admin` start a pass and waits for its JPEG thumbnail. */
async function thumbnailedPng(
  app: TestApp,
  admin: Actor,
  owner: Actor,
  [width, height]: [number, number],
) {
  const png = await uploadImage(app, owner.headers, width, height, "image.png");
  await startPass(app, admin);
  const path = `.thumbnail.${png.id}.jpg`;
  await thumbnailShown(app, owner, png.id, path);
  return { id: png.id, path };
}

/** Waits until the log says `passes` passes started by the route have ended. */
async function passesLogged(app: TestApp, passes: number) {
  await eventually(`${passes} thumbnail passes`, () => {
    const ended = app.logger.lines.filter((l) => l.message === "thumbnails made");
    return Promise.resolve(ended.length >= passes);
  });
}

/** Asks for a pass (a rerun with `rerun`) and expects Zipline's status sentence at once. */
async function startPass(app: TestApp, admin: Actor, rerun = false) {
  const run = await app.json("POST", "/api/server/thumbnails", { rerun }, admin.headers);
  const status = rerun ? STATUS.replace("generated.", "generated (rerun).") : STATUS;
  assert.deepEqual([run.status, run.body], [200, { status }]);
}

/** The pixels of a thumbnail served at `path`, checked to be of `type`. */
async function servedImage(app: TestApp, path: string, type: string, headers?: HeadersInit) {
  const res = await app.request(path, { headers });
  assert.equal(res.status, 200, path);
  assert.equal(res.headers.get("content-type"), type);
  const bytes = new Uint8Array(await res.arrayBuffer());
  assert.equal(res.headers.get("content-length"), String(bytes.byteLength));
  return await decodePixels(bytes, Infinity);
}

apiTest("thumbnails: PNG and JPEG files get one, served at /raw/<path>", async (app) => {
  const admin = await actor(app, "SUPERADMIN");
  const user = await actor(app, "USER");
  const png = await uploadImage(app, user.headers, 640, 400, "wide.png");
  const jpg = await uploadImage(app, user.headers, 300, 500, "tall.jpg");
  const text = await uploadOne(app, user.headers);
  assert.equal((await fileOf(app, user, png.id)).thumbnail, null);

  await startPass(app, admin);
  await passesLogged(app, 1);

  const expected: Record<string, [number, number]> = { [png.id]: [320, 200], [jpg.id]: [192, 320] };
  for (const [id, [width, height]] of Object.entries(expected)) {
    const { thumbnail } = await fileOf(app, user, id);
    assert.equal(thumbnail.path, `.thumbnail.${id}.jpg`);
    const img = await servedImage(app, `/raw/${thumbnail.path}`, "image/jpeg");
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
  const png = await thumbnailedPng(app, admin, user, [64, 32]);
  await app.json(
    "PATCH",
    "/api/server/settings",
    { featuresThumbnailsFormat: "png" },
    admin.headers,
  );
  await startPass(app, admin);
  await passesLogged(app, 2);
  assert.equal((await fileOf(app, user, png.id)).thumbnail.path, `.thumbnail.${png.id}.jpg`);
  await startPass(app, admin, true);
  await passesLogged(app, 3);

  const path = `.thumbnail.${png.id}.png`;
  assert.deepEqual((await fileOf(app, user, png.id)).thumbnail, { path });
  const img = await servedImage(app, `/raw/${path}`, "image/png");
  assert.deepEqual([img.width, img.height], [64, 32], "never scaled up");
  assert.ok(!(await app.storedObjects()).includes(`.thumbnail.${png.id}.jpg`), "old one removed");

  for (const missing of [`.thumbnail.${png.id}.jpg`, ".thumbnail.nope.png", ".thumbnail."]) {
    assert.equal((await app.request(`/raw/${missing}`)).status, 404, missing);
  }
});

apiTest("thumbnails: hidden behind a password; deleting the file removes them", async (app) => {
  const admin = await actor(app, "ADMIN");
  const user = await actor(app, "USER");
  const { id, path } = await thumbnailedPng(app, admin, user, [400, 400]);
  assert.equal((await app.request(`/raw/${path}`)).status, 200);

  const locked = await app.json(
    "PATCH",
    `/api/user/files/${id}`,
    { password: "hunter22" },
    user.headers,
  );
  assert.equal(locked.status, 200);
  const hidden = await app.json("GET", `/raw/${path}`);
  assert.deepEqual(hidden.body, { error: "Not Found", statusCode: 404 });

  const gone = await app.json("DELETE", `/api/user/files/${id}`, undefined, user.headers);
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
    await thumbnailShown(app, admin, png.id, path);
    const img = await servedImage(app, `/raw/${path}`, "image/jpeg");
    assert.deepEqual([img.width, img.height], [320, 64]);
  },
);

/** A `width`×`height` GIF of two frames: all red, then all blue. */
function twoFrameGif(width: number, height: number): Uint8Array {
  const buffer = new Uint8Array(width * height * 2 + 1024);
  const gif = new GifWriter(buffer, width, height, { palette: [0xff0000, 0x0000ff] });
  for (const colour of [0, 1]) {
    gif.addFrame(0, 0, width, height, new Array(width * height).fill(colour));
  }
  return buffer.slice(0, gif.end());
}

apiTest("conformance: thumbnails: a GIF's is its first frame, WebP without ffmpeg", async (app) => {
  const admin = await actor(app, "ADMIN");
  await app.json(
    "PATCH",
    "/api/server/settings",
    { featuresThumbnailsFormat: "webp" },
    admin.headers,
  );
  const gif = await uploadOne(app, admin.headers, twoFrameGif(640, 64), "anim.gif", "image/gif");
  await startPass(app, admin);
  const path = `.thumbnail.${gif.id}.webp`;
  await thumbnailShown(app, admin, gif.id, path);
  const res = await app.request(`/raw/${path}`);
  assert.equal(res.headers.get("content-type"), "image/webp");
  const img = await decodePixels(new Uint8Array(await res.arrayBuffer()), Infinity);
  assert.deepEqual([img.width, img.height], [320, 32], "the WebP codec needs no ffmpeg");
  const [r, g, b] = img.data;
  assert.ok(r > 240 && g < 16 && b < 16, `the first frame, red (lossy): ${[r, g, b]}`);
}, { ffmpeg: null });

apiTest(
  "thumbnails: the owner and managers read one at /api/user/files/<path>/raw",
  async (app) => {
    const admin = await actor(app, "ADMIN");
    const user = await actor(app, "USER");
    const other = await actor(app, "USER");
    const { id, path } = await thumbnailedPng(app, admin, user, [100, 50]);

    const route = `/api/user/files/${path}/raw`;
    for (const who of [user, admin]) {
      const img = await servedImage(app, route, "image/jpeg", who.headers);
      assert.deepEqual([img.width, img.height], [100, 50]);
    }
    const notFound = { error: "Not Found", statusCode: 404 };
    assert.deepEqual((await app.json("GET", route, undefined, other.headers)).body, notFound);
    const wrongExt = `/api/user/files/.thumbnail.${id}.png/raw`;
    assert.deepEqual((await app.json("GET", wrongExt, undefined, user.headers)).body, notFound);

    await app.json("PATCH", `/api/user/files/${id}`, { password: "hunter22" }, user.headers);
    const locked = await app.json("GET", route, undefined, user.headers);
    assert.deepEqual(locked.body, { error: "Password protected", statusCode: 403 });
    await servedImage(app, `${route}?pw=hunter22`, "image/jpeg", user.headers);
    assert.equal((await app.request(`/raw/${path}`)).status, 404, "public: hidden");
  },
);

for (const datasource of ["local", "s3"] as const) {
  apiTest(
    `cleanthumbnails: removes orphan objects and forgets missing ones [${datasource}]`,
    async (app) => {
      const admin = await actor(app, "ADMIN");
      const kept = await uploadImage(app, admin.headers, 20, 20, "kept.png");
      const lost = await uploadImage(app, admin.headers, 20, 20, "lost.png");
      await startPass(app, admin);
      await passesLogged(app, 1);
      const keptPath = `.thumbnail.${kept.id}.jpg`;
      await app.services.datasource.delete(`.thumbnail.${lost.id}.jpg`);
      const orphans = [".thumbnail.gone.jpg", `.thumbnail.${kept.id}.png`];
      for (const name of orphans) {
        await app.services.datasource.put(name, ReadableStream.from([new Uint8Array(3)]));
      }

      const reads = watchReads(app); // no pass over every file
      app.services.datasource.list = () => {
        throw new Error("a pass listed every object"); // a page of names at a time
      };
      assert.equal(await cleanThumbnails(app.services), 3);
      assert.equal(reads.candidates, 2, "the two files with a thumbnail recorded");
      assert.deepEqual((await fileOf(app, admin, kept.id)).thumbnail, { path: keptPath });
      assert.equal((await fileOf(app, admin, lost.id)).thumbnail, null);
      assert.deepEqual(
        (await app.storedObjects()).filter((n) => n.startsWith(".thumbnail.")),
        [keptPath],
      );
      assert.equal(await cleanThumbnails(app.services), 0);
    },
    { datasource },
  );
}

/** The ffmpeg tests need it; without it they are skipped, except under CI, where they must run. */
const FFMPEG = await findFfmpeg(new MemoryLogger());
const NO_FFMPEG = FFMPEG === null && !Deno.env.get("CI");
/** A `coreTempDirectory` of this file's own, to see that the video copies go. */
const TEMP = Deno.makeTempDirSync({ prefix: "ferry-test-temp-" });
globalThis.addEventListener("unload", () => Deno.removeSync(TEMP, { recursive: true }));

/** A 1-second test-pattern video of `size` made by ffmpeg, in `format` (`mp4`, `webm`). */
async function testVideo(size: string, format: "mp4" | "webm"): Promise<Uint8Array> {
  if (!FFMPEG) throw new Error("ffmpeg is not on PATH: CI needs it (apt-get install ffmpeg)");
  const dir = await Deno.makeTempDir({ prefix: "ferry-test-video-" });
  try {
    const out = `${dir}/video.${format}`;
    const codec = format === "mp4"
      ? ["-c:v", "libx264", "-pix_fmt", "yuv420p"]
      : ["-c:v", "libvpx"];
    const made = await new Deno.Command(FFMPEG, {
      args: [
        ...["-hide_banner", "-loglevel", "error", "-nostdin", "-f", "lavfi"],
        ...["-i", `testsrc=duration=1:size=${size}:rate=10`, ...codec, out],
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.ok(made.success, new TextDecoder().decode(made.stderr));
    return await Deno.readFile(out);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Uploads a {@link testVideo} as `owner`. */
async function uploadVideo(app: TestApp, owner: Actor, size: string, format: "mp4" | "webm") {
  const bytes = await testVideo(size, format);
  return await uploadOne(app, owner.headers, bytes, `video.${format}`, `video/${format}`);
}

/** The pixels of WebP `bytes`, decoded by ffmpeg into a PNG. */
async function decodeWebp(bytes: Uint8Array): Promise<Pixels> {
  const child = new Deno.Command(FFMPEG!, {
    args: [
      "-loglevel",
      "error",
      "-f",
      "webp_pipe",
      "-i",
      "pipe:0",
      "-f",
      "image2pipe",
      "-c:v",
      "png",
      "pipe:1",
    ],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const [out] = await Promise.all([
    child.output(),
    ReadableStream.from([bytes]).pipeTo(child.stdin),
  ]);
  return await decodePixels(out.stdout, Infinity);
}

apiTest(
  "thumbnails: with ffmpeg, images in webp are WebP",
  async (app) => {
    const admin = await actor(app, "ADMIN");
    const settings = { featuresThumbnailsFormat: "webp" };
    await app.json("PATCH", "/api/server/settings", settings, admin.headers);
    const png = await uploadImage(app, admin.headers, 640, 64, "image.png");
    await startPass(app, admin);
    const path = `.thumbnail.${png.id}.webp`;
    await thumbnailShown(app, admin, png.id, path);
    const res = await app.request(`/raw/${path}`);
    assert.equal(res.headers.get("content-type"), "image/webp");
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.equal(new TextDecoder().decode(bytes.subarray(8, 12)), "WEBP");
    const img = await decodeWebp(bytes);
    assert.deepEqual([img.width, img.height], [320, 32]);
  },
  { ignore: NO_FFMPEG },
);

for (const datasource of ["local", "s3"] as const) {
  apiTest(
    `thumbnails: videos get one made by ffmpeg, in jpg, png or webp [${datasource}]`,
    async (app) => {
      const admin = await actor(app, "ADMIN");
      const [mp4, webm] = [
        await uploadVideo(app, admin, "640x360", "mp4"),
        await uploadVideo(app, admin, "90x160", "webm"),
      ];
      await startPass(app, admin);
      await thumbnailShown(app, admin, mp4.id, `.thumbnail.${mp4.id}.jpg`);
      await thumbnailShown(app, admin, webm.id, `.thumbnail.${webm.id}.jpg`);
      const wide = await servedImage(app, `/raw/.thumbnail.${mp4.id}.jpg`, "image/jpeg");
      assert.deepEqual([wide.width, wide.height], [320, 180]);
      const tall = await servedImage(app, `/raw/.thumbnail.${webm.id}.jpg`, "image/jpeg");
      assert.deepEqual([tall.width, tall.height], [90, 160], "never scaled up");

      for (const format of ["png", "webp"]) {
        await app.json(
          "PATCH",
          "/api/server/settings",
          { featuresThumbnailsFormat: format },
          admin.headers,
        );
        await startPass(app, admin, true);
        const path = `.thumbnail.${mp4.id}.${format}`;
        await thumbnailShown(app, admin, mp4.id, path);
        const res = await app.request(`/raw/${path}`);
        assert.equal(res.headers.get("content-type"), `image/${format}`);
        const bytes = new Uint8Array(await res.arrayBuffer());
        const img = format === "png"
          ? await decodePixels(bytes, Infinity)
          : await decodeWebp(bytes);
        assert.deepEqual([img.width, img.height], [320, 180], format);
      }
      await passesLogged(app, 3);
      const stored = await app.storedObjects();
      assert.ok(
        !stored.includes(`.thumbnail.${mp4.id}.jpg`) &&
          !stored.includes(`.thumbnail.${mp4.id}.png`),
      );
    },
    { datasource, ignore: NO_FFMPEG },
  );
}

apiTest(
  "thumbnails: a video ffmpeg cannot read, or a playlist posing as one, gets none",
  async (app) => {
    const admin = await actor(app, "ADMIN");
    // An HLS playlist naming a real video on this machine: ffmpeg would follow it unless told not to.
    const local = `${TEMP}/../ferry-test-elsewhere-${crypto.randomUUID()}.mp4`;
    await Deno.writeFile(local, await testVideo("64x64", "mp4"));
    const playlist =
      `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile://${local}\n#EXT-X-ENDLIST\n`;
    const fake = await uploadOne(app, admin.headers, playlist, "list.mp4", "video/mp4");
    const junk = await uploadOne(
      app,
      admin.headers,
      new Uint8Array(5000).fill(7),
      "junk.webm",
      "video/webm",
    );
    const png = await uploadImage(app, admin.headers, 10, 10, "fine.png");
    await startPass(app, admin);
    await passesLogged(app, 1);
    assert.equal((await fileOf(app, admin, fake.id)).thumbnail, null);
    assert.equal((await fileOf(app, admin, junk.id)).thumbnail, null);
    assert.equal((await fileOf(app, admin, png.id)).thumbnail.path, `.thumbnail.${png.id}.jpg`);
    await Deno.remove(local);
    const refused = app.logger.lines.filter((l) => l.message === "no thumbnail");
    assert.deepEqual(refused.map((l) => l.fields?.id).sort(), [fake.id, junk.id].sort());
    const reason = refused.find((l) => l.fields?.id === fake.id)?.fields?.reason;
    assert.match(String(reason), /Format not on whitelist/);
    const copies = (await Array.fromAsync(Deno.readDir(TEMP))).filter((e) => e.isDirectory);
    assert.deepEqual(copies, [], "temporary copies removed");
  },
  { ignore: NO_FFMPEG, env: { SERVICE_CORE_TEMP_DIRECTORY: TEMP } },
);

apiTest(
  "thumbnails: without ffmpeg videos are skipped with one log line a pass",
  async (app) => {
    const admin = await actor(app, "ADMIN");
    const video = await uploadOne(app, admin.headers, new Uint8Array(100), "v.mp4", "video/mp4");
    const png = await uploadImage(app, admin.headers, 10, 10, "fine.png");
    await startPass(app, admin);
    await passesLogged(app, 1);
    assert.equal((await fileOf(app, admin, png.id)).thumbnail.path, `.thumbnail.${png.id}.jpg`);
    assert.equal((await fileOf(app, admin, video.id)).thumbnail, null);
    const skipped = app.logger.lines.filter((l) =>
      l.message.startsWith("video thumbnails skipped")
    );
    assert.deepEqual(skipped.map((l) => [l.level, l.message, l.fields]), [[
      "info",
      "video thumbnails skipped: ffmpeg is not installed, or may not be run",
      { videos: 1 },
    ]]);
    assert.ok(!app.logger.lines.some((l) => l.level === "error"));
  },
  { ffmpeg: null },
);

/** An "ffmpeg" that never stops writing, to see the output bound kill it. */
const ENDLESS = `${TEMP}/endless-ffmpeg`;
Deno.writeTextFileSync(ENDLESS, "#!/bin/sh\nexec yes\n", { mode: 0o755 });

apiTest(
  "thumbnails: an ffmpeg that writes past the bound is killed and the video gets none",
  async (app) => {
    const admin = await actor(app, "ADMIN");
    const video = await uploadOne(app, admin.headers, new Uint8Array(100), "v.mp4", "video/mp4");
    await startPass(app, admin);
    await passesLogged(app, 1);
    assert.equal((await fileOf(app, admin, video.id)).thumbnail, null);
    const refused = app.logger.lines.filter((l) => l.message === "no thumbnail");
    assert.deepEqual(refused.map((l) => l.fields?.reason), ["ffmpeg wrote too much"]);
  },
  { ffmpeg: ENDLESS, ignore: Deno.build.os === "windows" },
);

/** An "ffmpeg" that notes how many of it run at once (in `seen`), then fails. */
const TURNS = Deno.makeTempDirSync({ prefix: "ferry-test-turns-" });
globalThis.addEventListener("unload", () => Deno.removeSync(TURNS, { recursive: true }));
Deno.writeTextFileSync(
  `${TURNS}/ffmpeg`,
  `#!/bin/sh
touch "${TURNS}/run.$$"
ls "${TURNS}" | grep -c '^run[.]' >> "${TURNS}/seen"
sleep 0.2
rm "${TURNS}/run.$$"
exit 1
`,
  { mode: 0o755 },
);

apiTest(
  "thumbnails: ffmpeg jobs take turns, however many videos are uploaded at once",
  async (app) => {
    const seen = `${TURNS}/seen`;
    await Deno.remove(seen).catch(() => {});
    const counts = async () =>
      (await Deno.readTextFile(seen).catch(() => "")).split("\n").filter(Boolean).map(Number);
    const admin = await actor(app, "ADMIN");
    const settings = { featuresThumbnailsInstantaneous: true };
    await app.json("PATCH", "/api/server/settings", settings, admin.headers);
    const videos = FFMPEG_AT_ONCE * 2 + 1;
    await Promise.all(
      Array.from(
        { length: videos },
        (_, i) => uploadOne(app, admin.headers, new Uint8Array(100), `v${i}.mp4`, "video/mp4"),
      ),
    );
    await eventually("every video's turn", async () => (await counts()).length === videos);
    assert.ok(
      (await counts()).every((running) => running <= FFMPEG_AT_ONCE),
      `at most ${FFMPEG_AT_ONCE} at once: ${await counts()}`,
    );
    await eventually(
      "every refusal logged",
      () =>
        Promise.resolve(
          app.logger.lines.filter((l) => l.message === "no thumbnail").length === videos,
        ),
    );
  },
  { ffmpeg: `${TURNS}/ffmpeg`, ignore: Deno.build.os === "windows" },
);

apiTest(
  "thumbnails: a pass reads at most its share of the files, the next goes on from there",
  async (app) => {
    const user = await actor(app, "USER");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(
        (await uploadImage(app, user.headers, 8, 8, `${i}.png`)).id,
      );
    }
    ids.sort(); // a pass reads the files in id order
    const made = async () => {
      const shown = [];
      for (const id of ids) if ((await fileOf(app, user, id)).thumbnail) shown.push(id);
      return shown;
    };
    assert.equal(await generateThumbnails(app.services, false, undefined, 1), 1);
    assert.deepEqual(await made(), ids.slice(0, 1));
    assert.equal(await generateThumbnails(app.services, false, undefined, 1), 1);
    assert.deepEqual(await made(), ids.slice(0, 2));
    assert.equal(await generateThumbnails(app.services, false, undefined, 2), 1, "to the end");
    assert.deepEqual(await made(), ids);
    assert.equal(await generateThumbnails(app.services, false, undefined, 1), 0, "started over");
  },
);
