/**
 * The real browser of the end-to-end tests: Debian's chromium driven by
 * playwright-core, launched headless with no way to reach any host but the
 * local ones; what went wrong on a page; screenshots; and the first account of
 * a fresh server.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import axe from "axe-core";
import { type Browser, chromium, type Page } from "playwright-core";
import { REPO_ROOT, startServer } from "./process.ts";
import { freshDatabase, ignoreKind, STORE_KINDS, type StoreKind } from "./stores.ts";

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

/** Signs in on the login page as `username` (the set-up admin by default). */
export async function signIn(
  page: Page,
  origin: string,
  username = "admin",
  password = "password123",
): Promise<void> {
  await page.goto(`${origin}/auth/login`);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(`${origin}/dashboard`);
}

/**
 * Screenshots of the current page in light, dark and at a phone's width, as
 * `dashboard-<name>-…`; on one store only, since the pages look the same on both.
 */
export async function screenshots(page: Page, name: string, kind: StoreKind): Promise<void> {
  if (kind !== "kv") return;
  await page.emulateMedia({ colorScheme: "light" });
  await screenshot(page, `dashboard-${name}-light`);
  await page.emulateMedia({ colorScheme: "dark" });
  await screenshot(page, `dashboard-${name}-dark`);
  const size = page.viewportSize();
  await page.setViewportSize({ width: 360, height: 740 });
  await screenshot(page, `dashboard-${name}-phone`);
  if (size) await page.setViewportSize(size);
  await page.emulateMedia({ colorScheme: "light" });
}

/** What a browser journey gets: the browser, the server's origin, the store and a data folder. */
export interface JourneyContext {
  browser: Browser;
  origin: string;
  kind: StoreKind;
  dir: string;
}

/**
 * Declares the browser test `name` once per store: a fresh server (its data
 * in a temporary folder, with `env` added) and chromium, both stopped after
 * `journey`.
 */
export function browserTestOnStores(
  name: string,
  env: Record<string, string>,
  journey: (context: JourneyContext) => Promise<void>,
): void {
  for (const kind of STORE_KINDS) {
    Deno.test({
      name: `e2e (${kind}): ${name}`,
      ignore: NO_BROWSER || ignoreKind(kind),
      sanitizeResources: false,
      sanitizeOps: false,
      async fn() {
        const dir = await Deno.makeTempDir({ prefix: "ferry-browser-" });
        const db = kind === "postgres" ? await freshDatabase() : null;
        const server = await startServer({
          env: { SERVICE_DATA_DIR: dir, ...env, ...(db ? { DATABASE_URL: db.url } : {}) },
        });
        const browser = await launchChromium();
        try {
          await journey({ browser, origin: server.origin, kind, dir });
          if (kind === "kv") console.log(`screenshots in ${ARTIFACTS}`);
        } finally {
          await browser.close();
          await server.stop();
          await db?.drop();
          await Deno.remove(dir, { recursive: true });
        }
      },
    });
  }
}

/**
 * Waits until `expression` is truthy in the page, asking every 50 ms (at most
 * `timeoutMs`). Unlike `page.waitForFunction`, whose polling evaluates the
 * string inside the page (which Ferry's CSP refuses), each check is the
 * driver's own evaluation.
 */
export async function waitInPage(page: Page, expression: string, timeoutMs = 10_000) {
  for (let waited = 0;; waited += 50) {
    if (await page.evaluate(expression)) return;
    if (waited >= timeoutMs) {
      throw new Error(`not true in the page within ${timeoutMs} ms: ${expression}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Opens the user menu of the signed-in shell (account, theme, security, log out). */
export async function openUserMenu(page: Page): Promise<void> {
  const menu = page.locator("#user-menu");
  if (await menu.getAttribute("open") === null) await menu.locator("summary").click();
}

/** Signs out through the user menu. */
export async function logOut(page: Page, origin: string): Promise<void> {
  await openUserMenu(page);
  await page.getByRole("button", { name: "Log out" }).click();
  await page.waitForURL(`${origin}/auth/login`);
}

/** An accessibility problem axe-core found: its rule, impact and where. */
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core's WCAG 2 A and AA rules on the page as it is, in light and
 * in dark, and fails on any serious or critical violation (`what` names the
 * page in the message). The engine is evaluated in the page (the page's CSP
 * allows no inline script tag; evaluation by the driver is not subject to it).
 */
export async function checkAccessibility(page: Page, what: string): Promise<void> {
  const found: string[] = [];
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    if (!await page.evaluate("typeof window.axe === 'object'")) await page.evaluate(axe.source);
    const violations = await page.evaluate(`axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
      resultTypes: ["violations"],
    }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })) })))`) as AxeViolation[];
    for (const v of violations) {
      if (v.impact !== "serious" && v.impact !== "critical") continue;
      const where = v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ");
      found.push(`${scheme}: ${v.id} (${v.impact}): ${v.help} at ${where}`);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  assert.deepEqual(found, [], `accessibility of ${what}`);
}
