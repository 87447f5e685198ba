/**
 * Every page of the dashboard, one after the other, as a SUPERADMIN with a
 * little of everything (files, a short URL, a folder, a tag): each passes
 * axe-core's WCAG A and AA checks with no serious or critical violation in
 * light and in dark (issue #33), and each is screenshotted in light, dark and
 * at 360 px. With `FERRY_README_SCREENSHOTS=1` it also writes the README's
 * pictures in `docs/screenshots/`: the home page in light, the files page in
 * dark (1280 × 800) and the home page at a phone's width.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import {
  browserTestOnStores,
  checkAccessibility,
  type JourneyContext,
  screenshots,
  setupAdmin,
  signIn,
  watchProblems,
} from "../helpers/browser.ts";
import { REPO_ROOT } from "../helpers/process.ts";
import { redSquare } from "../helpers/images.ts";

/** Each page of the dashboard: its path and a name for its screenshots. */
const PAGES: [string, string][] = [
  ["/dashboard", "home"],
  ["/dashboard/upload", "upload"],
  ["/dashboard/upload/text", "upload-text"],
  ["/dashboard/requests", "requests"],
  ["/dashboard/files", "files"],
  ["/dashboard/urls", "urls"],
  ["/dashboard/folders", "folders"],
  ["/dashboard/tags", "tags"],
  ["/dashboard/stats", "stats"],
  ["/dashboard/settings", "account"],
  ["/dashboard/security", "security"],
  ["/dashboard/admin/users", "admin-users"],
  ["/dashboard/admin/invites", "admin-invites"],
  ["/dashboard/admin/settings", "admin-settings"],
  ["/dashboard/admin/audit", "admin-audit"],
  ["/dashboard/admin/webhooks", "admin-webhooks"],
  ["/dashboard/admin/transfer", "admin-transfer"],
  ["/dashboard/admin/maintenance", "admin-maintenance"],
  ["/dashboard/help", "help"],
  ["/dashboard/no-such-page", "not-found"],
];

/** Some of everything, made through the API with the admin's session. */
async function seed(origin: string, cookie: string) {
  const headers = { cookie, origin };
  for (const name of ["red.png", "notes.txt"]) {
    const form = new FormData();
    const body = name.endsWith(".png")
      ? new Blob([redSquare(64) as BlobPart], { type: "image/png" })
      : new Blob(["hello from Ferry\n"], { type: "text/plain" });
    form.append("file", body, name);
    const res = await fetch(`${origin}/api/upload`, { method: "POST", headers, body: form });
    assert.equal(res.status, 200, await res.text());
  }
  const json = { ...headers, "content-type": "application/json" };
  for (
    const [path, body] of [
      ["/api/user/urls", { destination: "https://example.com/a/long/path" }],
      ["/api/user/folders", { name: "Holiday", isPublic: true }],
      ["/api/user/tags", { name: "work", color: "#2456c7" }],
    ] as const
  ) {
    const res = await fetch(`${origin}${path}`, {
      method: "POST",
      headers: json,
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 200, await res.text());
  }
}

/** Waits until the page's client has drawn it (its heading is there). */
async function drawn(page: Page) {
  await page.locator("main h1").first().waitFor();
  await page.waitForLoadState("networkidle");
}

async function journey({ browser, origin, kind }: JourneyContext) {
  const cookie = await setupAdmin(origin);
  await seed(origin, cookie);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems = watchProblems(page, false);
  await signIn(page, origin);
  if (kind === "kv" && Deno.env.get("FERRY_README_SCREENSHOTS") === "1") {
    await readmeScreenshots(page, origin);
    await page.setViewportSize({ width: 1280, height: 800 });
  }
  for (const [path, name] of PAGES) {
    await page.goto(`${origin}${path}`);
    await drawn(page);
    await checkAccessibility(page, path);
    await screenshots(page, `all-${name}`, kind);
  }
  assert.deepEqual(problems.filter((p) => !p.includes("404")), []);
  await context.close();
}

/** The README's three pictures, in docs/screenshots/. */
async function readmeScreenshots(page: Page, origin: string) {
  const dir = join(REPO_ROOT, "docs", "screenshots");
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto(`${origin}/dashboard`);
  await drawn(page);
  await page.screenshot({ path: join(dir, "home.png") });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto(`${origin}/dashboard/files`);
  await drawn(page);
  await page.screenshot({ path: join(dir, "files.png") });
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto(`${origin}/dashboard`);
  await drawn(page);
  await page.screenshot({ path: join(dir, "phone.png") });
}

browserTestOnStores(
  "every dashboard page passes axe-core in light and dark, with screenshots (issue #33)",
  { SERVICE_RATELIMIT_ENABLED: "false" },
  journey,
);
