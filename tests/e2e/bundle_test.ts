/**
 * The single executable's module graph: `deno bundle` of main.ts gives one
 * file that starts and answers, run from a directory with no deno.json. That
 * is what `deno task compile` embeds (compiling itself needs the internet).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runDeno, startServer } from "../helpers/process.ts";

Deno.test({
  name: "e2e: the bundled main.ts serves /api/healthcheck and the docs assets on its own",
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
      } finally {
        await server.stop();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "e2e: the committed dashboard bundle is what `deno task bundle` builds from client/",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "ferry-client-" });
    try {
      const fresh = join(dir, "dashboard.js");
      const args = ["bundle", "--quiet", "--platform", "browser", "--minify", "client/main.tsx"];
      const built = await runDeno([...args, "-o", fresh]);
      assert.equal(built.code, 0, built.output);
      const committed = await Deno.readTextFile(
        new URL("../../routes/web/assets/dashboard.js", import.meta.url),
      );
      assert.ok(
        committed === await Deno.readTextFile(fresh),
        "routes/web/assets/dashboard.js is stale: run `deno task bundle`",
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
