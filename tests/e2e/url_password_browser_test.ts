/**
 * A password-protected short URL in a real browser, on both stores: the real
 * server process (`deno task start`, on Deno KV and on PostgreSQL), Debian's
 * chromium driven by playwright-core, and a local HTTP server as the
 * destination. The short link leads to `/view/url/<id>`; a wrong password is
 * refused on the page; the right one leads on to the destination, one
 * counted view, with no script or style outside the page's strict CSP.
 */
import assert from "node:assert/strict";
import { launchChromium, NO_BROWSER, screenshot, setupAdmin } from "../helpers/browser.ts";
import { startServer } from "../helpers/process.ts";
import { freshDatabase, ignoreKind, STORE_KINDS } from "../helpers/stores.ts";

/** The password route allows 2 attempts per second per client. */
const ATTEMPT_INTERVAL_MS = 1100;

/** A destination that counts the visits of its page (`/landing`; not the favicon). */
function startDestination() {
  let visits = 0;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (req) => {
    if (new URL(req.url).pathname !== "/landing") return new Response(null, { status: 204 });
    visits++;
    return new Response("<!doctype html><title>Arrived</title><h1>Arrived</h1>", {
      headers: { "content-type": "text/html" },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/landing`,
    visits: () => visits,
    close: () => server.shutdown(),
  };
}

for (const kind of STORE_KINDS) {
  Deno.test({
    name: `e2e: a protected short URL asks for its password, then leads on [${kind}]`,
    ignore: ignoreKind(kind) || NO_BROWSER,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const dir = await Deno.makeTempDir({ prefix: "ferry-url-pw-" });
      const db = kind === "postgres" ? await freshDatabase() : null;
      const destination = startDestination();
      const server = await startServer({
        env: { SERVICE_DATA_DIR: dir, ...(db ? { DATABASE_URL: db.url } : {}) },
      });
      const browser = await launchChromium();
      try {
        const cookie = await setupAdmin(server.origin);
        const shortened = await fetch(`${server.origin}/api/user/urls`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            cookie,
            "x-service-password": "open sesame",
          },
          body: JSON.stringify({ destination: destination.url, vanity: "secret" }),
        });
        const url = await shortened.json();
        assert.equal(shortened.status, 200, JSON.stringify(url));

        const page = await browser.newPage();
        const problems: string[] = [];
        page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
        page.on("console", (message) => {
          // The refused attempt below is the one error response this test expects.
          const refused = /status of 403/.test(message.text());
          if (message.type() === "error" && !refused) problems.push(`console: ${message.text()}`);
        });

        const landing = await page.goto(`${server.origin}/go/secret`);
        assert.equal(landing?.url(), `${server.origin}/view/url/${url.id}`);
        assert.match((await landing?.allHeaders())?.["content-security-policy"] ?? "", /'self'/);
        await page.getByRole("heading", { name: "Password required" }).waitFor();
        assert.doesNotMatch(await page.content(), /landing/, "the destination stays hidden");

        await page.getByLabel("Password").fill("not it");
        await page.getByRole("button", { name: "Open the link" }).click();
        await page.locator("#message", { hasText: "Incorrect password" }).waitFor();
        await screenshot(page, `url-password-${kind}`);
        assert.equal(destination.visits(), 0);

        await page.waitForTimeout(ATTEMPT_INTERVAL_MS);
        await page.getByLabel("Password").fill("open sesame");
        await page.getByRole("button", { name: "Open the link" }).click();
        await page.waitForURL(destination.url);
        await page.getByRole("heading", { name: "Arrived" }).waitFor();
        assert.equal(destination.visits(), 1);

        const got = await fetch(`${server.origin}/api/user/urls/${url.id}`, {
          headers: { cookie },
        });
        assert.equal((await got.json()).views, 1, "one counted view");
        assert.deepEqual(problems, []);
      } finally {
        await browser.close();
        await server.stop();
        await destination.close();
        await db?.drop();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
