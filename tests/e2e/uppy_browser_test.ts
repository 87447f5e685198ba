/**
 * Uppy's tus plugin (@uppy/core + @uppy/tus, bundled for the browser by this
 * test) in Chromium, on a page of another origin than Ferry's: the CORS
 * preflight of the tus routes, the exposed headers, PATCHes in chunks; the
 * file arrives whole. Both stores.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { browserTestOnStores, setupAdmin, waitInPage } from "../helpers/browser.ts";
import { runDeno } from "../helpers/process.ts";

function pattern(length: number): number[] {
  return Array.from({ length }, (_, i) => (i * 17 + (i >> 8)) % 251);
}

browserTestOnStores(
  "Uppy's tus plugin uploads from another origin, in chunks, through the CORS preflight",
  {},
  async ({ browser, origin, dir }) => {
    const cookie = await setupAdmin(origin);
    const token = (await (await fetch(`${origin}/api/user/token`, { headers: { cookie } })).json())
      .token;
    const script = join(dir, "uppy_tus.js");
    const built = await runDeno([
      "bundle",
      "--platform",
      "browser",
      "tests/e2e/pages/uppy_tus.js",
      "-o",
      script,
    ]);
    assert.equal(built.code, 0, built.output);
    const js = await Deno.readTextFile(script);
    const html = `<!doctype html><html><head><title>Uppy</title>
      <script type="module" src="/uppy.js"></script></head><body></body></html>`;
    const site = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen() {} },
      (req) =>
        new URL(req.url).pathname === "/uppy.js"
          ? new Response(js, { headers: { "content-type": "text/javascript" } })
          : new Response(html, { headers: { "content-type": "text/html" } }),
    );
    try {
      const page = await browser.newPage();
      const methods: string[] = [];
      page.on("request", (req) => {
        if (req.url().startsWith(origin)) methods.push(req.method());
      });
      await page.goto(`http://127.0.0.1:${site.addr.port}/`);
      await waitInPage(page, "typeof globalThis.uppyUpload === 'function'");
      const data = pattern(250_000);
      const urls = await page.evaluate(
        `uppyUpload(${JSON.stringify(`${origin}/api/upload/tus`)}, ${JSON.stringify(token)}, ${
          JSON.stringify(data)
        })`,
      ) as string[];
      assert.equal(urls.length, 1);
      assert.match(urls[0], /\/api\/upload\/tus\/[A-Za-z0-9]{24}$/);
      assert.ok(methods.includes("POST"));
      assert.equal(methods.filter((m) => m === "PATCH").length, 3, methods.join(" "));

      const list = await (await fetch(`${origin}/api/user/files?page=1`, { headers: { cookie } }))
        .json();
      assert.equal(list.total, 1);
      assert.equal(list.page[0].type, "video/mp4");
      const raw = await fetch(`${origin}/raw/${list.page[0].name}`);
      assert.deepEqual([...new Uint8Array(await raw.arrayBuffer())], data);
      await page.close();
    } finally {
      await site.shutdown();
    }
  },
);
