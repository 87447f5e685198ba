/**
 * The real browser of the end-to-end tests: Debian's chromium driven by
 * playwright-core, launched headless with no way to reach any host but the
 * local ones, and the first account of a fresh server.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { REPO_ROOT } from "./process.ts";

const CHROMIUM = "/usr/bin/chromium";
/** Where screenshots are kept for a person to look at (git-ignored). */
const ARTIFACTS = join(REPO_ROOT, ".tmp", "e2e");

/** Without chromium, browser tests are skipped, except under CI, where they must run (and fail). */
export const noBrowser = !existsSync(CHROMIUM) && !Deno.env.get("CI");

/** Starts chromium; no host name but 127.0.0.1 and localhost resolves. */
export async function launchChromium(): Promise<Browser> {
  return await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
    ],
  });
}

/** Creates the first user, `admin`/`password123`, on the server at `origin`; returns its session cookie pair. */
export async function setupAdmin(origin: string): Promise<string> {
  const setup = await fetch(`${origin}/api/setup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: "password123" }),
  });
  assert.equal(setup.status, 200, await setup.clone().text());
  return setup.headers.getSetCookie()[0].split(";")[0];
}

/** Saves a full-page screenshot as `.tmp/e2e/<name>.png`; fails when it is nearly empty. */
export async function screenshot(page: Page, name: string, minBytes = 5_000): Promise<void> {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  const png = await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  assert.ok(png.byteLength > minBytes, `the ${name} screenshot is nearly empty`);
}
