/**
 * Upload requests in a real browser against the real server, on both stores:
 * the owner makes a request on the Requests page (with a message, a file
 * limit and a password), copies its link; a fresh browser context (no
 * account) opens `/request/<code>`, gives the password and a name, and
 * uploads a file; the owner sees the count and the file, with the name, in
 * the request's folder, and closes the request, whose page then says so.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Browser } from "playwright-core";
import {
  browserTestOnStores,
  checkAccessibility,
  screenshots,
  setupAdmin,
  signIn,
  watchProblems,
} from "../helpers/browser.ts";
import type { StoreKind } from "../helpers/stores.ts";

async function journey(browser: Browser, origin: string, kind: StoreKind) {
  await setupAdmin(origin);
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await signIn(page, origin);
  await page.getByRole("link", { name: "Requests", exact: true }).click();
  await page.waitForURL(`${origin}/dashboard/requests`);
  await page.getByText("No upload requests yet.").waitFor();

  const form = page.getByRole("form", { name: "New upload request" });
  await form.getByLabel("Name", { exact: true }).fill("Holiday photos");
  await form.getByLabel("Most files", { exact: true }).fill("3");
  await form.getByLabel("Password", { exact: true }).fill("beach");
  await form.getByLabel("Message to uploaders", { exact: true }).fill("Send me your best shots");
  await form.getByRole("button", { name: "Create request" }).click();
  const list = page.getByRole("list", { name: "Upload requests" });
  const row = list.getByRole("listitem").filter({ hasText: "Holiday photos" });
  await row.getByText("0 files of 3").waitFor();
  const link = await row.getByRole("textbox", { name: "Link to Holiday photos" }).inputValue();
  assert.match(link, /\/request\/[A-Za-z0-9]{22}$/);
  await screenshots(page, "requests", kind);
  await checkAccessibility(page, "the Requests page");

  // A stranger, with no account, opens the link.
  const visitor = await browser.newContext();
  const stranger = await visitor.newPage();
  const strangerProblems = watchProblems(stranger, false);
  await stranger.goto(link);
  await stranger.getByRole("heading", { name: "Holiday photos" }).waitFor();
  await stranger.getByText("admin", { exact: true }).waitFor();
  assert.equal(await stranger.getByText("Send me your best shots").count(), 0);
  await stranger.getByLabel("This request needs a password").fill("beach");
  await stranger.getByRole("button", { name: "Open" }).click();
  await stranger.getByText("Send me your best shots").waitFor();
  await stranger.getByLabel(/Your name/).fill("Robin");
  await stranger.getByLabel("Files to upload").setInputFiles({
    name: "sunset.txt",
    mimeType: "text/plain",
    buffer: Buffer.from("a sunset"),
  });
  await stranger.getByText("1 file sent to admin. Thank you.").waitFor();
  await screenshots(stranger, "request-page", kind);
  await checkAccessibility(stranger, "a request's page");
  assert.deepEqual(strangerProblems, []);
  await visitor.close();

  // The owner sees it.
  await page.reload();
  await row.getByText("1 file of 3").waitFor();
  await row.getByRole("link", { name: "Its files" }).click();
  await page.waitForURL(/\/dashboard\/files\?folder=/);
  const folder = new URL(page.url()).searchParams.get("folder");
  const files = await page.evaluate(`fetch("/api/user/files?page=1&folder=${folder}")
    .then((r) => r.json()).then((b) => b.page.map((f) => [f.originalName, f.uploaderName]))`);
  assert.deepEqual(files, [["sunset.txt", "Robin"]]);

  // Closed, its link says so.
  await page.goto(`${origin}/dashboard/requests`);
  await row.getByRole("button", { name: "Close Holiday photos" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Close" }).click();
  await page.getByText("No upload requests yet.").waitFor();
  const closed = await fetch(link);
  assert.equal(closed.status, 410);
  await closed.body?.cancel();
  assert.deepEqual(problems, []);
  await context.close();
}

browserTestOnStores(
  "upload requests: made, used by a stranger, seen by the owner, closed",
  {},
  ({ browser, origin, kind }) => journey(browser, origin, kind),
);
