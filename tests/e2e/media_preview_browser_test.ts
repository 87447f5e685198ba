/**
 * "Disable media preview" (Zipline's dashboard setting, issue #33 row 67):
 * ticked under Appearance on the account page, the files page and the home
 * page draw an image as its type's icon instead of its picture, after a
 * reload too (the preference is kept with the user); unticked, the picture
 * is back. On both stores; axe-core on the account page in light and dark.
 */
import assert from "node:assert/strict";
import {
  browserTestOnStores,
  checkAccessibility,
  type JourneyContext,
  screenshots,
  setupAdmin,
  signIn,
  watchProblems,
} from "../helpers/browser.ts";
import { redSquare } from "../helpers/images.ts";

async function journey({ browser, origin, kind }: JourneyContext) {
  const cookie = await setupAdmin(origin);
  const form = new FormData();
  form.append("file", new Blob([redSquare(32) as BlobPart], { type: "image/png" }), "red.png");
  const upload = await fetch(`${origin}/api/upload`, {
    method: "POST",
    headers: { cookie, origin },
    body: form,
  });
  assert.equal(upload.status, 200, await upload.text());
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await signIn(page, origin);
  const pictures = () => page.locator("img.thumb").count();
  await page.goto(`${origin}/dashboard/files`);
  await page.locator("img.thumb").first().waitFor();

  await page.goto(`${origin}/dashboard/settings`);
  const box = page.getByLabel("Disable media preview");
  await box.check();
  await page.getByRole("status").filter({ hasText: "Files will show as their type's icon." })
    .waitFor();
  await checkAccessibility(page, "account page (appearance)");
  await screenshots(page, "media-preview-off", kind);

  for (const path of ["/dashboard/files", "/dashboard"]) {
    await page.goto(`${origin}${path}`);
    await page.locator(".icon-thumb").first().waitFor();
    assert.equal(await pictures(), 0, `${path} draws no picture`);
  }
  const prefs = await (await fetch(`${origin}/api/user/preferences`, { headers: { cookie } }))
    .json();
  assert.equal(prefs.disableMediaPreview, true);

  await page.goto(`${origin}/dashboard/settings`);
  await page.getByLabel("Disable media preview").uncheck();
  await page.getByRole("status").filter({ hasText: "Files will show their pictures." }).waitFor();
  await page.goto(`${origin}/dashboard/files`);
  await page.locator("img.thumb").first().waitFor();
  assert.deepEqual(problems, []);
  await context.close();
}

browserTestOnStores("row 67: Disable media preview draws files as icons", {}, journey);
