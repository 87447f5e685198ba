/**
 * Share links in a real browser against the real server, on both stores: a
 * private file (404 by its own address to a stranger), its Share dialog in
 * the file panel, a link made with a view limit and opened in a fresh
 * browser context, then revoked (confirmed), after which it is a 404.
 */
import assert from "node:assert/strict";
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
  const cookie = await setupAdmin(origin);
  const form = new FormData();
  form.append("file", new Blob(["a private note"], { type: "text/plain" }), "note.txt");
  const uploaded = await fetch(`${origin}/api/upload`, {
    method: "POST",
    headers: { cookie, "x-service-private": "true" },
    body: form,
  });
  assert.equal(uploaded.status, 200, await uploaded.clone().text());
  const url: string = (await uploaded.json()).files[0].url;
  const name = url.slice(url.lastIndexOf("/") + 1);

  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await signIn(page, origin);
  await page.goto(`${origin}/dashboard/files`);
  await page.getByRole("button", { name: `Details of ${name}` }).click();
  const panel = page.getByRole("dialog", { name: name });
  await panel.getByRole("checkbox", { name: /^Private/ }).waitFor();
  assert.equal(await panel.getByRole("checkbox", { name: /^Private/ }).isChecked(), true);
  await panel.getByRole("button", { name: "Share" }).click();

  const dialog = page.getByRole("dialog", { name: `Share ${name}` });
  await dialog.getByText("No links yet.").waitFor();
  await dialog.getByLabel("Max views").fill("5");
  await dialog.getByRole("button", { name: "Make a link" }).click();
  const link = await dialog.getByRole("textbox", { name: `Link to ${name}` }).inputValue();
  assert.match(link, new RegExp(`^${origin}/s/[A-Za-z0-9_-]{22}$`));
  await dialog.getByRole("button", { name: `QR code for ${name}` }).click();
  await dialog.getByRole("img", { name: `QR code of the link to ${name}` }).waitFor();
  await dialog.getByText("0 of 5 views").waitFor();
  await checkAccessibility(page, "the share dialog");
  await screenshots(page, "share-dialog", kind);

  // A stranger: the file's own address is a 404, the link opens it.
  const stranger = await browser.newContext();
  const visit = await stranger.newPage();
  const own = await visit.goto(`${origin}/raw/${name}`);
  assert.equal(own?.status(), 404);
  const opened = await visit.goto(link);
  assert.equal(opened?.status(), 200);
  await visit.getByText("a private note").waitFor();
  await visit.getByRole("link", { name: "Download" }).waitFor();
  await checkAccessibility(visit, "a share link's page");
  if (kind === "kv") await screenshots(visit, "share-page", kind);

  // Revoked, after a confirmation: a 404 at once.
  const code = link.slice(link.lastIndexOf("/") + 1);
  await dialog.getByRole("button", { name: `Revoke ${code}` }).click();
  await page.getByRole("dialog", { name: "Revoke this link?" })
    .getByRole("button", { name: "Revoke", exact: true }).click();
  await dialog.getByText("No links yet.").waitFor();
  const gone = await visit.goto(link);
  assert.equal(gone?.status(), 404);
  await stranger.close();

  assert.deepEqual(problems, []);
  await context.close();
}

browserTestOnStores(
  "share links: make one for a private file, open it elsewhere, revoke it",
  {},
  ({ browser, origin, kind }) => journey(browser, origin, kind),
);
