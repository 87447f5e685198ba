/**
 * The single executable's module graph: `deno bundle` of main.ts gives one
 * file that starts and answers, run from a directory with no deno.json. That
 * is what `deno task compile` embeds (compiling itself needs the internet).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, runDeno, type ServerProcess, startServer } from "../helpers/process.ts";
import { build } from "../../tools/bundle.ts";
import { redSquare } from "../helpers/images.ts";
import { SCRIPT_BUDGET, staticChunks } from "../../bench/dashboard_size.ts";
import { findAsset } from "../../routes/web/assets.ts";

Deno.test({
  name:
    "e2e: the bundled main.ts serves /api/healthcheck and the docs assets, hashes passwords and compresses images, on its own",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "ferry-bundle-" });
    try {
      const bundle = join(dir, "ferry.js");
      const built = await runDeno(["bundle", "--platform", "deno", "main.ts", "-o", bundle]);
      assert.equal(built.code, 0, built.output);

      const server = await startServer({
        args: ["run", "-A", "--unstable-kv", bundle, "serve"],
        cwd: dir,
        env: { SERVICE_DATA_DIR: join(dir, "data") },
      });
      try {
        assert.deepEqual(await server.json("GET", "/api/healthcheck"), {
          status: 200,
          body: { pass: true },
        });
        // The docs page's assets are inlined text imports: they ship in the bundle.
        const asset = await fetch(`${server.origin}/api/docs/assets/swagger-ui-bundle.js`);
        assert.equal(asset.status, 200);
        assert.ok((await asset.text()).includes("SwaggerUIBundle"));
        await assertCompresses(server);
      } finally {
        await server.stop();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** An upload compressed to WebP: the WebAssembly codecs were imported as bytes into the bundle. */
async function assertCompresses(server: ServerProcess) {
  const headers = { "content-type": "application/json", origin: server.origin };
  const setup = await fetch(`${server.origin}/api/setup`, {
    method: "POST",
    headers,
    body: JSON.stringify({ username: "admin", password: "password1" }),
  });
  assert.equal(setup.status, 200, await setup.clone().text());
  await setup.body?.cancel();
  // The password was hashed, and is verified here, on the bundle's password workers.
  const login = await fetch(`${server.origin}/api/auth/login`, {
    method: "POST",
    headers,
    body: JSON.stringify({ username: "admin", password: "password1" }),
  });
  assert.equal(login.status, 200, await login.clone().text());
  await login.body?.cancel();
  const cookie = login.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const form = new FormData();
  form.append("file", new Blob([redSquare(16) as BlobPart], { type: "image/png" }), "red.png");
  const res = await fetch(`${server.origin}/api/upload`, {
    method: "POST",
    body: form,
    headers: {
      cookie,
      origin: server.origin,
      "x-service-image-compression-percent": "50",
      "x-service-image-compression-type": "webp",
    },
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.deepEqual(body.files[0].compressed, { mimetype: "image/webp", ext: "webp" });
}

Deno.test({
  name: "e2e: the committed dashboard bundle and its chunks are what `deno task bundle` builds",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const assets = new URL("../../routes/web/assets/", import.meta.url);
    const built = await build(REPO_ROOT);
    const committedChunks = [...Deno.readDirSync(new URL("chunks/", assets))]
      .map((entry) => `chunks/${entry.name}`).sort();
    assert.deepEqual(
      committedChunks,
      [...built.keys()].filter((name) => name.startsWith("chunks/")).sort(),
      "routes/web/assets/chunks/ is stale: run `deno task bundle`",
    );
    for (const [name, text] of built) {
      assert.ok(
        text === await Deno.readTextFile(new URL(name, assets)),
        `routes/web/assets/${name} is stale: run \`deno task bundle\``,
      );
    }
  },
});

Deno.test("e2e: a dashboard page's first load is within 120 KB of compressed script, and uPlot loads with the statistics page and the visits views only", () => {
  const first = ["dashboard.js", ...staticChunks("dashboard.js"), "ferry.js"];
  const gzip = first.reduce((n, name) => n + findAsset(name)!.asset.gzip.byteLength, 0);
  assert.ok(gzip <= SCRIPT_BUDGET, `first load: ${gzip} B of compressed script`);
  const text = (name: string) => new TextDecoder().decode(findAsset(name)!.asset.body);
  for (const name of first) assert.ok(!text(name).includes("uplot"), `uPlot in ${name}`);
  /** A chunk and what it imports statically: what loading it fetches. */
  const loads = (name: string) => [name, ...staticChunks(name)];
  const withUplot = (names: string[]) => names.some((name) => text(name).includes("uplot"));
  const stats = text("dashboard.js").match(/import\("\.\/(stats-[\w]+\.js)"\)/);
  assert.ok(stats, "the statistics page is a chunk of its own");
  assert.ok(withUplot(loads(stats[1])), "uPlot comes with the statistics page");
  // The home page (like the URLs page and the file panel) fetches the visits views on demand.
  const home = text("dashboard.js").match(/import\("\.\/(home-[\w]+\.js)"\)/);
  assert.ok(home, "the home page is a chunk of its own");
  assert.ok(!withUplot(loads(home[1])), "uPlot is not part of the home page's chunks");
  const visits = loads(home[1]).map((name) =>
    text(name).match(/import\("\.\/(visits-[\w]+\.js)"\)/)
  )
    .find((match) => match !== null);
  assert.ok(visits, "the visits views are a chunk the home page imports on demand");
  assert.ok(withUplot(loads(visits[1])), "uPlot comes with the visits views");
});
