/**
 * The installable app (`pwaEnabled`) as chromium judges it, on both stores:
 * with the setting on, the sign-in page's manifest makes the site installable
 * (chromium reports no installability errors); with it off, there is no
 * manifest to install from. A persistent profile, since chromium never offers
 * installation in an incognito one.
 */
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { CHROMIUM, NO_BROWSER, setupAdmin } from "../helpers/browser.ts";
import { startServer } from "../helpers/process.ts";
import { freshDatabase, ignoreKind, STORE_KINDS } from "../helpers/stores.ts";

/** What chromium says stands between the page at `url` and installing it. */
async function installabilityErrors(url: string): Promise<string[]> {
  const profile = await Deno.makeTempDir({ prefix: "ferry-pwa-profile-" });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
  });
  try {
    const page = await context.newPage();
    await page.goto(url);
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send("Page.getInstallabilityErrors");
    return installabilityErrors.map((e: { errorId: string }) => e.errorId);
  } finally {
    await context.close();
    await Deno.remove(profile, { recursive: true });
  }
}

for (const kind of STORE_KINDS) {
  Deno.test({
    name: `e2e: with pwaEnabled the dashboard installs as an app, without it not [${kind}]`,
    ignore: ignoreKind(kind) || NO_BROWSER,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const dir = await Deno.makeTempDir({ prefix: "ferry-pwa-" });
      const db = kind === "postgres" ? await freshDatabase() : null;
      const server = await startServer({
        env: { SERVICE_DATA_DIR: dir, ...(db ? { DATABASE_URL: db.url } : {}) },
      });
      try {
        const cookie = await setupAdmin(server.origin);
        const login = `${server.origin}/auth/login`;
        assert.deepEqual(await installabilityErrors(login), ["no-manifest"]);

        const enable = await fetch(`${server.origin}/api/server/settings`, {
          method: "PATCH",
          headers: { "content-type": "application/json", cookie },
          body: JSON.stringify({ pwaEnabled: true, pwaTitle: "Our files" }),
        });
        assert.equal(enable.status, 200, await enable.text());
        assert.deepEqual(await installabilityErrors(login), []);
        const manifest = await (await fetch(`${server.origin}/manifest.json`)).json();
        assert.equal(manifest.name, "Our files");
      } finally {
        await server.stop();
        await db?.drop();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
