/**
 * The dashboard's upload page sends a file larger than the server's chunk
 * size through tus (tus-js-client in Chromium, its chunk of the bundle
 * fetched only then), in PATCHes of that size; the file arrives whole, with
 * the page's options. Both stores.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  browserTestOnStores,
  screenshots,
  setupAdmin,
  signIn,
  watchProblems,
} from "../helpers/browser.ts";
import { uploadedLink } from "../helpers/dashboard.ts";

function pattern(length: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(length).map((_, i) => (i * 13 + (i >> 9)) % 251);
}

browserTestOnStores(
  "upload: a large file goes through tus in chunks and arrives whole",
  { SERVICE_CHUNKS_SIZE: "64kb" },
  async ({ browser, origin, kind }) => {
    const cookie = await setupAdmin(origin);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    const requests: string[] = [];
    page.on("request", (req) => requests.push(`${req.method()} ${new URL(req.url()).pathname}`));
    await signIn(page, origin);
    await page.goto(`${origin}/dashboard/upload`);
    assert.ok(
      !requests.some((r) => /\/browser-[A-Z0-9]+\.js$/.test(r)),
      "tus-js-client not loaded yet",
    );

    await page.getByText("Upload options").click();
    await page.getByLabel("Max views").fill("4");
    const data = pattern(200_000 + 11);
    await page.getByLabel("Files to upload").setInputFiles([
      { name: "movie.mp4", mimeType: "video/mp4", buffer: Buffer.from(data) },
    ]);
    await page.getByRole("button", { name: /^Upload 1 file/ }).click();
    const link = await uploadedLink(page, "movie.mp4");
    assert.match(link, /\/u\/[A-Za-z0-9]{6}\.mp4$/);
    await screenshots(page, "upload-tus-done", kind);

    assert.ok(requests.some((r) => /\/browser-[A-Z0-9]+\.js$/.test(r)), "tus-js-client loaded");
    assert.ok(requests.includes("POST /api/upload/tus"));
    const patches = requests.filter((r) => /^PATCH \/api\/upload\/tus\//.test(r));
    assert.equal(patches.length, 4, requests.join("\n"));
    assert.ok(!requests.some((r) => r.includes("/api/upload/partial")));

    const list = await (await fetch(`${origin}/api/user/files?page=1`, { headers: { cookie } }))
      .json();
    assert.equal(list.total, 1);
    assert.equal(list.page[0].maxViews, 4);
    assert.equal(list.page[0].type, "video/mp4");
    const raw = await fetch(`${origin}/raw/${list.page[0].name}`, { headers: { cookie } });
    assert.deepEqual(new Uint8Array(await raw.arrayBuffer()), data);
    assert.deepEqual(problems, []);
  },
);
