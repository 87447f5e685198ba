/**
 * A file's page in a real browser against the real server process: an image
 * shown under the page's strict CSP, and a password-protected file reached
 * through the files route, its password refused then accepted, the file shown
 * after the page reloads with its cookie. Debian's chromium, playwright-core.
 */
import assert from "node:assert/strict";
import {
  launchChromium,
  NO_BROWSER,
  screenshot,
  setupAdmin,
  watchProblems,
} from "../helpers/browser.ts";
import { redSquare } from "../helpers/images.ts";
import { startServer } from "../helpers/process.ts";
/** The password route allows two attempts a second per client. */
const ATTEMPT_INTERVAL_MS = 1100;

Deno.test({
  name: "e2e: the file page shows an image, and opens a protected file with its password",
  ignore: NO_BROWSER,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "ferry-view-" });
    const server = await startServer({ env: { SERVICE_DATA_DIR: dir } });
    const browser = await launchChromium();
    try {
      const cookie = await setupAdmin(server.origin);
      const upload = async (name: string, type: string, content: BlobPart, password?: string) => {
        const form = new FormData();
        form.append("file", new Blob([content], { type }), name);
        const res = await fetch(`${server.origin}/api/upload`, {
          method: "POST",
          body: form,
          headers: { cookie, ...(password ? { "x-service-password": password } : {}) },
        });
        assert.equal(res.status, 200);
        return (await res.json()).files[0] as { id: string; name: string };
      };
      const red = redSquare(4);
      const image = await upload("red.png", "image/png", red as BlobPart);
      const secret = await upload("notes.txt", "text/plain", "the secret notes", "hunter2");

      const context = await browser.newContext();
      const page = await context.newPage();
      const problems = watchProblems(page);

      // An image: shown, under the page's CSP, its view counted by /raw.
      const shown = await page.goto(`${server.origin}/view/${image.name}`);
      assert.match((await shown?.allHeaders())?.["content-security-policy"] ?? "", /media-src/);
      const img = page.locator("#file-image");
      await img.waitFor();
      // Strings: these run in the page, whose DOM types this file does not know.
      await page.waitForFunction("document.getElementById('file-image').complete");
      assert.equal(await page.evaluate("document.getElementById('file-image').naturalWidth"), 4);
      assert.equal(await page.locator("#file-size").textContent(), `${red.byteLength} B`);
      await screenshot(page, "view-image");
      const record = await fetch(`${server.origin}/api/user/files/${image.id}`, {
        headers: { cookie },
      });
      assert.equal((await record.json()).views, 1);

      // A protected file through the files route: the page asks for the password.
      await page.goto(`${server.origin}/u/${secret.name}`);
      assert.equal(page.url(), `${server.origin}/view/${secret.name}`);
      await page.getByLabel("Password").fill("wrong");
      await page.getByRole("button", { name: "Open" }).click();
      await page.locator("#message.error").getByText("Incorrect password").waitFor();
      assert.deepEqual(problems.splice(0), [
        `403 ${server.origin}/api/user/files/${secret.id}/password`,
        "console: Failed to load resource: the server responded with a status of 403 (Forbidden)",
      ], "only the refused attempt");
      await screenshot(page, "view-password");

      await page.waitForTimeout(ATTEMPT_INTERVAL_MS);
      await page.getByLabel("Password").fill("hunter2");
      await Promise.all([
        page.waitForEvent("load"),
        page.getByRole("button", { name: "Open" }).click(),
      ]);
      await page.locator("#text-preview").getByText("the secret notes").waitFor();
      assert.equal(await page.locator("#file-password-form").count(), 0);
      const cookies = await context.cookies();
      const access = cookies.find((c) => c.name === `file_pw_${secret.id}`);
      assert.equal(access?.value, "hunter2");
      assert.equal(access?.httpOnly, false);
      await screenshot(page, "view-unlocked");

      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
