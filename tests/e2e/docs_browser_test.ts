/**
 * The API reference at `/api/docs` renders in a real browser with the network
 * cut off: the real server process (`deno task start`), Debian's chromium
 * driven by playwright-core, every request to a host other than the server
 * aborted and counted as a failure.
 */
import assert from "node:assert/strict";
import { launchChromium, NO_BROWSER, screenshot, watchProblems } from "../helpers/browser.ts";
import { startServer } from "../helpers/process.ts";
import type { Page } from "playwright-core";

/**
 * The operations Swagger UI renders, by their element ids. Past 150 tags and
 * operations it renders only those near the viewport, so the page is scrolled
 * from top to bottom, a screen at a time, gathering what each screen shows.
 */
async function renderedOperations(page: Page): Promise<Set<string>> {
  const seen = new Set<string>();
  const height = page.viewportSize()?.height ?? 720;
  for (let y = 0;; y += height / 2) {
    await page.evaluate(`scrollTo(0, ${y})`);
    await page.waitForTimeout(50);
    const ids = await page.evaluate(
      `[...document.querySelectorAll(".opblock")].map((el) => el.id)`,
    );
    for (const id of ids as string[]) seen.add(id);
    if (await page.evaluate("scrollY + innerHeight >= document.documentElement.scrollHeight")) {
      return seen;
    }
  }
}

Deno.test({
  name: "e2e: /api/docs renders the whole reference offline",
  ignore: NO_BROWSER,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "ferry-docs-" });
    const server = await startServer({ env: { SERVICE_DATA_DIR: dir } });
    // Even a request the route below missed cannot resolve a name.
    const browser = await launchChromium();
    try {
      const origin = new URL(server.origin);
      const context = await browser.newContext();
      const external: string[] = [];
      context.on("request", (request) => {
        if (new URL(request.url()).host !== origin.host) external.push(request.url());
      });
      await context.route(
        "**/*",
        (route) =>
          new URL(route.request().url()).host === origin.host
            ? route.continue()
            : route.abort("internetdisconnected"),
      );
      const page = await context.newPage();
      const problems = watchProblems(page, false);

      const res = await page.goto(`${server.origin}/api/docs`);
      assert.equal(res?.status(), 200);
      await page.getByText("Create the first user").first().waitFor({ timeout: 30_000 });

      const doc = await (await fetch(`${server.origin}/api/openapi.json`)).json();
      const documented = Object.values<Record<string, unknown>>(doc.paths)
        .reduce((n, item) => n + Object.keys(item).length, 0);
      assert.equal((await renderedOperations(page)).size, documented);

      await screenshot(page, "docs", 10_000);

      assert.deepEqual(external, [], "requests to hosts other than the server");
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
