/**
 * The real browser of the end-to-end tests: Debian's chromium driven by
 * playwright-core, launched headless with no way to reach any host but the
 * local ones; what went wrong on a page; screenshots; and the first account of
 * a fresh server.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { REPO_ROOT } from "./process.ts";

/** Where chromium is installed. */
export const CHROMIUM = "/usr/bin/chromium";
/** Without chromium browser tests are skipped, except under CI, where they must run (and fail). */
export const NO_BROWSER = !existsSync(CHROMIUM) && !Deno.env.get("CI");
/** Where screenshots are kept for a person to look at (git-ignored). */
export const ARTIFACTS = join(REPO_ROOT, ".tmp", "e2e");

/**
 * Starts chromium headless, with nothing of its own on the network and every
 * host name but `127.0.0.1` and `localhost` unresolvable.
 */
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

/**
 * Collects what went wrong on `page`: page errors, console errors (CSP
 * violations among them) and, with `responses`, answers of 400 and above.
 */
export function watchProblems(page: Page, responses = true): string[] {
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  if (responses) {
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
  }
  return problems;
}

/**
 * Saves a full-page screenshot as `<name>.png` in {@link ARTIFACTS}; fails
 * when it is smaller than `minBytes` (a blank page).
 */
export async function screenshot(page: Page, name: string, minBytes = 5_000): Promise<void> {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  const png = await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  assert.ok(png.byteLength > minBytes, `the ${name} screenshot is nearly empty`);
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
