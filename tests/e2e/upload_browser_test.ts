/**
 * Issue #33 item 6, the upload page, in a real browser on both stores: every
 * option Zipline offers set in the form (expiry presets stopping at the
 * server's maximum, a folder made in place, image compression, max views,
 * original name), remembered across a reload with a "Saved" mark, and
 * cleared; files listed with previews and "Remove" before one "Upload N
 * files" button sends them with those options; "Copy all links".
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  browserTestOnStores,
  checkAccessibility,
  screenshots,
  setupAdmin,
  signIn,
  watchProblems,
} from "../helpers/browser.ts";
import { uploadedLink } from "../helpers/dashboard.ts";
import { redSquare } from "../helpers/images.ts";

browserTestOnStores(
  "upload: options remembered and cleared, files listed then sent, all links copied",
  { SERVICE_FILES_MAX_EXPIRATION: "7d" },
  async ({ browser, origin, kind }) => {
    const cookie = await setupAdmin(origin);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signIn(page, origin);
    await page.goto(`${origin}/dashboard/upload`);

    // The options: expiry presets end at the server's week, with no "never".
    await page.getByText("Upload options").click();
    const expiry = page.getByLabel("Expires after");
    const choices = await expiry.locator("option").allTextContents();
    assert.deepEqual(choices, [
      "Server default",
      "1 hour",
      "6 hours",
      "12 hours",
      "1 day",
      "3 days",
      "1 week",
    ]);
    await expiry.selectOption("7d");
    await page.getByLabel("Max views").fill("5");
    await page.getByLabel("Image quality %").fill("60");
    await page.getByLabel("Compressed image format").selectOption("webp");
    await page.getByRole("checkbox", { name: "Keep the original name" }).check();
    await page.getByRole("button", { name: "Create a folder" }).click();
    await page.getByLabel("New folder's name").fill("holiday");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await page.getByRole("status").getByText("Folder holiday created.").waitFor();
    const folder = page.getByLabel("Folder", { exact: true });
    assert.equal(await folder.locator("option:checked").textContent(), "holiday");
    await page.getByLabel("Password (not remembered)").fill("hunter2");
    await page.locator("summary .badge", { hasText: "Saved" }).waitFor();

    // Remembered across a reload (all but the password).
    await page.reload();
    await page.getByText("Upload options").click();
    assert.equal(await page.getByLabel("Expires after").inputValue(), "7d");
    assert.equal(await page.getByLabel("Max views").inputValue(), "5");
    assert.equal(await page.getByLabel("Image quality %").inputValue(), "60");
    assert.equal(await page.getByLabel("Compressed image format").inputValue(), "webp");
    assert.ok(await page.getByRole("checkbox", { name: "Keep the original name" }).isChecked());
    await page.getByLabel("Folder", { exact: true }).locator("option", { hasText: "holiday" })
      .waitFor({ state: "attached" });
    assert.equal(
      await page.getByLabel("Folder", { exact: true }).locator("option:checked").textContent(),
      "holiday",
    );
    assert.equal(await page.getByLabel("Password (not remembered)").inputValue(), "");

    // Files listed first, with a preview and Remove; then one button.
    await page.getByLabel("Files to upload").setInputFiles([
      { name: "red.png", mimeType: "image/png", buffer: Buffer.from(redSquare(8)) },
      { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("my notes") },
      { name: "wrong.txt", mimeType: "text/plain", buffer: Buffer.from("not this one") },
    ]);
    const waiting = page.getByRole("region", { name: "Files to send" });
    await waiting.locator("img.staged-thumb").waitFor();
    await waiting.getByRole("button", { name: "Remove wrong.txt" }).click();
    await checkAccessibility(page, "the upload page with files waiting");
    await screenshots(page, "upload-staged", kind);
    const size = 8 + redSquare(8).byteLength;
    await waiting.getByRole("button", { name: `Upload 2 files (${size} B)` }).click();
    const redLink = await uploadedLink(page, "red.png");
    const notesLink = await uploadedLink(page, "notes.txt");
    await page.getByRole("button", { name: "Copy all links" }).click();
    const copied = await page.evaluate("navigator.clipboard.readText()") as string;
    assert.deepEqual(copied.split("\n").sort(), [notesLink, redLink].sort());

    // Each file got the options.
    const list = await (await fetch(`${origin}/api/user/files?page=1`, { headers: { cookie } }))
      .json();
    const folders = await (await fetch(`${origin}/api/user/folders?noincl=true`, {
      headers: { cookie },
    })).json();
    const holiday = folders.find((f: { name: string }) => f.name === "holiday");
    assert.equal(list.total, 2);
    for (const file of list.page) {
      assert.equal(file.maxViews, 5);
      assert.equal(file.folderId, holiday.id);
      assert.ok(file.deletesAt, "an expiry");
      const days = (Date.parse(file.deletesAt) - Date.parse(file.createdAt)) / 86_400_000;
      assert.ok(Math.abs(days - 7) < 0.01, `a week: ${days}`);
    }
    const image = list.page.find((f: { type: string }) => f.type.startsWith("image/"));
    assert.equal(image.type, "image/webp", "compressed as asked");
    assert.equal(image.originalName, "red.png");
    await screenshots(page, "upload-done", kind);

    // Clear: the mark goes, and a reload shows the defaults.
    await page.getByRole("button", { name: "Clear options" }).click();
    await page.locator("summary .badge").waitFor({ state: "detached" });
    await page.reload();
    await page.getByText("Upload options").click();
    assert.equal(await page.getByLabel("Expires after").inputValue(), "");
    assert.equal(await page.getByLabel("Max views").inputValue(), "");

    // With "upload as soon as dropped", a chosen file goes at once.
    await page.getByRole("checkbox", { name: "Upload as soon as files are dropped" }).check();
    await page.getByLabel("Files to upload").setInputFiles([
      { name: "quick.txt", mimeType: "text/plain", buffer: Buffer.from("at once") },
    ]);
    await uploadedLink(page, "quick.txt");
    assert.equal(await page.getByRole("region", { name: "Files to send" }).count(), 0);
    assert.deepEqual(problems, []);
  },
);
