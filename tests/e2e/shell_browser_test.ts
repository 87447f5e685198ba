/**
 * The dashboard's frame in a real browser against the real server, on both
 * stores (issue #33, items 1–4): first-run setup from an empty server to a
 * signed-in dashboard; the sidebar, the user menu, the phone's folded menu,
 * the 404 and "not allowed" pages, Register and the terms of service; toasts
 * and the confirmation modal of a deletion, with "warn on deletion"; and the
 * themes, chosen, remembered across reloads and browsers, with the server's
 * default and a custom theme file. Each page is checked by axe-core in light
 * and dark; screenshots in light, dark and at 360 px.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import {
  browserTestOnStores,
  checkAccessibility,
  type JourneyContext,
  logOut,
  openUserMenu,
  screenshots,
  setupAdmin,
  signIn,
  watchProblems,
} from "../helpers/browser.ts";

const VIEWPORT = { width: 1280, height: 860 };

/** Problems but the failed loads a test provokes on purpose (`status`). */
const unexpected = (problems: string[], ...statuses: number[]) =>
  problems.filter((p) => !statuses.some((s) => p.includes(`status of ${s}`)));

/** Calls the API from the page (same origin, with its session). */
function fromPage(page: Page, method: string, path: string, body?: unknown) {
  return page.evaluate(
    `fetch(${JSON.stringify(path)}, { method: ${JSON.stringify(method)},
      headers: { "content-type": "application/json" },
      body: ${body === undefined ? "undefined" : JSON.stringify(JSON.stringify(body))} })
      .then(async (r) => ({ status: r.status, body: await r.json() }))`,
  ) as Promise<{ status: number; body: Record<string, unknown> }>;
}

browserTestOnStores(
  "dashboard #33.1: on an empty server every page leads to setup; the first SUPERADMIN is " +
    "made there, signed in, offered the Zipline import, and the page is gone",
  {},
  async ({ browser, origin, kind }: JourneyContext) => {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    const problems = watchProblems(page, false);
    await page.goto(`${origin}/`);
    assert.equal(page.url(), `${origin}/auth/setup`);
    await page.getByRole("heading", { name: "Welcome to Ferry" }).waitFor();
    await page.getByText("At least 8 characters.").waitFor();
    await checkAccessibility(page, "the setup page");
    await screenshots(page, "setup", kind);

    // The API's refusal is shown as an alert.
    await page.getByLabel("Username").fill("   ");
    await page.getByLabel("Password").fill("password123");
    await page.getByRole("button", { name: "Create the account" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    assert.match(await alert.innerText(), /username/i);

    await page.getByLabel("Username").fill("admin");
    await page.getByRole("button", { name: "Create the account" }).click();
    await page.getByRole("heading", { name: "You are all set" }).waitFor();
    assert.equal(await page.locator("#setup-user").textContent(), "admin");
    await checkAccessibility(page, "the finished setup");
    await screenshots(page, "setup-done", kind);

    await page.getByRole("link", { name: "Import from Zipline" }).click();
    await page.waitForURL(`${origin}/dashboard/admin/transfer`);
    await page.getByRole("heading", { name: "Import and export", exact: true }).waitFor();
    assert.equal(await page.locator("#signed-in-as").textContent(), "admin", "signed in");

    // Once done, the page is gone: to the dashboard, or to sign in for a stranger.
    await page.goto(`${origin}/auth/setup`);
    assert.equal(page.url(), `${origin}/dashboard`);
    const stranger = await (await browser.newContext()).newPage();
    await stranger.goto(`${origin}/`);
    assert.equal(stranger.url(), `${origin}/auth/login`);
    await stranger.context().close();

    assert.deepEqual(unexpected(problems, 400), []);
    await context.close();
  },
);

browserTestOnStores(
  "dashboard #33.2: the shell: a sidebar with an icon by every link, the user menu, the " +
    "version, the phone's folded menu, the 404 and not-allowed pages, Register and the terms",
  {},
  async ({ browser, origin, kind, dir }: JourneyContext) => {
    await setupAdmin(origin);
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    const problems = watchProblems(page, false);
    await signIn(page, origin);
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();

    const nav = page.getByRole("navigation", { name: "Dashboard" });
    const links = nav.getByRole("link");
    const labels = await links.allInnerTexts();
    assert.deepEqual(
      labels.map((l) => l.trim()),
      ["Home", "File", "Text", "Requests", "Files", "URLs", "Folders", "Tags", "Statistics"],
    );
    for (let i = 0; i < labels.length; i++) {
      assert.equal(await links.nth(i).locator("svg.icon").count(), 1, `${labels[i]} has an icon`);
    }
    const admin = page.getByRole("navigation", { name: "Administration" });
    assert.deepEqual(
      (await admin.getByRole("link").allInnerTexts()).map((l) => l.trim()),
      [
        "Users",
        "Invites",
        "Server settings",
        "Audit trail",
        "Webhooks",
        "Import and export",
        "Maintenance",
      ],
    );
    assert.match(await page.locator(".version-tag").innerText(), /^v\d+\.\d+\.\d+/);
    await checkAccessibility(page, "the dashboard's home");
    await screenshots(page, "shell-home", kind);

    await nav.getByRole("link", { name: "Files", exact: true }).click();
    await page.waitForURL(`${origin}/dashboard/files`);
    assert.equal(
      await nav.getByRole("link", { name: "Files", exact: true }).getAttribute("aria-current"),
      "page",
    );
    await nav.getByRole("link", { name: "Text", exact: true }).click();
    await page.waitForURL(`${origin}/dashboard/upload/text`);
    await page.getByRole("heading", { name: "Upload text" }).waitFor();

    // The user menu: avatar (the initial), then the account's pages and log out; Escape closes.
    await openUserMenu(page);
    const account = page.getByRole("link", { name: "Account", exact: true });
    assert.ok(await account.isVisible());
    await checkAccessibility(page, "the open user menu");
    await screenshots(page, "user-menu", kind);
    await page.keyboard.press("Escape");
    assert.equal(await account.isVisible(), false);

    // A page that does not exist, in the frame.
    const missing = await page.goto(`${origin}/dashboard/no-such-page`);
    assert.equal(missing?.status(), 404);
    await page.getByRole("heading", { name: "Page not found" }).waitFor();
    assert.ok(await page.locator("#sidebar").isVisible(), "in the dashboard's frame");
    await checkAccessibility(page, "the 404 page");
    await screenshots(page, "not-found", kind);
    await page.getByRole("link", { name: "Back to the dashboard" }).click();
    await page.waitForURL(`${origin}/dashboard`);

    // On a phone the sidebar folds behind the menu button.
    await page.setViewportSize({ width: 360, height: 740 });
    const menu = page.getByRole("button", { name: "Menu" });
    const users = admin.getByRole("link", { name: "Users" });
    await users.waitFor({ state: "hidden" }); // folded (once its slide-out ends)
    await menu.click();
    assert.equal(await menu.getAttribute("aria-expanded"), "true");
    await users.waitFor();
    await screenshots(page, "phone-menu", kind);
    await page.keyboard.press("Escape");
    assert.equal(await menu.getAttribute("aria-expanded"), "false");
    await page.setViewportSize(VIEWPORT);

    // Registration open, with terms of service: the sign-in page links both.
    const tos = join(dir, "tos.md");
    await Deno.writeTextFile(tos, "# House rules\n\nBe **kind**. <script>alert(1)</script>\n");
    const changed = await fromPage(page, "PATCH", "/api/server/settings", {
      featuresUserRegistration: true,
      websiteTos: tos,
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    await logOut(page, origin);
    await page.getByRole("link", { name: "Terms of service" }).click();
    await page.waitForURL(`${origin}/auth/tos`);
    await page.getByRole("heading", { name: "House rules" }).waitFor();
    assert.equal(await page.locator(".markdown strong").innerText(), "kind");
    assert.equal(await page.locator(".markdown script").count(), 0);
    await checkAccessibility(page, "the terms of service");
    await screenshots(page, "tos", kind);
    await page.goto(`${origin}/auth/login`);
    await checkAccessibility(page, "the sign-in page");
    await page.getByRole("link", { name: "Register" }).click();
    await page.waitForURL(`${origin}/auth/register`);
    await page.getByLabel("Username").fill("ursula");
    await page.getByLabel("Password").fill("ursula-password");
    await page.getByRole("checkbox", { name: "I accept the terms of service" }).check();
    await page.getByRole("button", { name: "Create the account" }).click();
    await page.waitForURL(`${origin}/dashboard`);

    // A USER has no administration, and its pages say "not allowed".
    assert.equal(await page.getByRole("navigation", { name: "Administration" }).count(), 0);
    const refused = await page.goto(`${origin}/dashboard/admin/settings`);
    assert.equal(refused?.status(), 403);
    await page.getByRole("heading", { name: "Not allowed" }).waitFor();
    await checkAccessibility(page, "the not-allowed page");
    await screenshots(page, "not-allowed", kind);

    assert.deepEqual(unexpected(problems, 403, 404), []);
    await context.close();
  },
);

browserTestOnStores(
  "dashboard #33.3: a deletion asks in the dashboard's modal (focus kept in it, Escape " +
    "cancels), confirms with a toast, reports a failure in an alert toast, and asks no more " +
    "once warn-on-deletion is off",
  {},
  async ({ browser, origin, kind }: JourneyContext) => {
    await setupAdmin(origin);
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    const problems = watchProblems(page, false);
    const nativeDialogs: string[] = [];
    page.on("dialog", (dialog) => {
      nativeDialogs.push(dialog.message());
      dialog.dismiss();
    });
    await signIn(page, origin);
    const names: string[] = [];
    for (const text of ["one", "two", "three"]) {
      const uploaded = await page.evaluate(`(async () => {
        const form = new FormData();
        form.append("file", new File([${
        JSON.stringify(text)
      }], "${text}.txt", { type: "text/plain" }));
        const r = await fetch("/api/upload", { method: "POST", body: form });
        return (await r.json()).files[0].name;
      })()`) as string;
      names.push(uploaded);
    }
    await page.goto(`${origin}/dashboard/files`);
    await page.getByText("3 files").waitFor();
    await page.getByRole("button", { name: "List view" }).click();

    // The question: a labelled modal with the focus inside, which Escape cancels.
    await page.getByRole("button", { name: `Delete ${names[0]}` }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this file?" });
    await dialog.waitFor();
    for (let i = 0; i < 4; i++) {
      assert.ok(
        await page.evaluate(`!!document.activeElement?.closest("dialog[open]")`),
        "the focus stays in the modal",
      );
      await page.keyboard.press("Tab");
    }
    await checkAccessibility(page, "the confirmation modal");
    await screenshots(page, "confirm-delete", kind);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    await page.getByText("3 files").waitFor();

    // Confirmed: gone, with a toast.
    await page.getByRole("button", { name: `Delete ${names[0]}` }).click();
    await dialog.getByRole("button", { name: "Delete" }).click();
    const done = page.getByRole("status").filter({ hasText: `Deleted ${names[0]}.` });
    await done.waitFor();
    await page.getByText("2 files").waitFor();
    await screenshots(page, "toast", kind);

    // A failure: an alert toast with the server's message.
    await page.route(
      "**/api/user/files/*",
      (route) =>
        route.request().method() === "DELETE"
          ? route.fulfill({
            status: 500,
            contentType: "application/json",
            body: JSON.stringify({ error: "Internal Server Error", statusCode: 500 }),
          })
          : route.continue(),
    );
    await page.getByRole("button", { name: `Delete ${names[1]}` }).click();
    await dialog.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("alert").filter({ hasText: "Internal Server Error" }).waitFor();
    await page.unroute("**/api/user/files/*");

    // Warn on deletion off (kept with the user): a deletion no longer asks.
    await openUserMenu(page);
    await page.getByRole("link", { name: "Theme" }).click();
    await page.waitForURL(`${origin}/dashboard/settings#appearance`);
    await page.getByRole("checkbox", { name: /Warn on deletion/ }).uncheck();
    await page.getByRole("status").filter({ hasText: "Deletions will no longer ask." }).waitFor();
    await page.goto(`${origin}/dashboard/files`);
    await page.getByText("2 files").waitFor();
    await page.getByRole("button", { name: "List view" }).click();
    await page.getByRole("button", { name: `Delete ${names[1]}` }).click();
    await page.getByRole("status").filter({ hasText: `Deleted ${names[1]}.` }).waitFor();
    assert.equal(await dialog.count(), 0);
    await page.getByText("1 file", { exact: true }).waitFor();

    assert.deepEqual(nativeDialogs, [], "no window.confirm");
    assert.deepEqual(unexpected(problems, 500), []);
    await context.close();
  },
);

const THEMES_DIR = Deno.makeTempDirSync({ prefix: "ferry-themes-" });
Deno.writeTextFileSync(
  join(THEMES_DIR, "ocean.theme.json"),
  JSON.stringify({
    name: "Ocean",
    colorScheme: "dark",
    primaryColor: "teal",
    mainBackgroundColor: "#001b2e",
  }),
);
Deno.writeTextFileSync(join(THEMES_DIR, "broken.theme.json"), "{ not json");

/** The page's background colour (the theme's `--bg`). */
const background = (page: Page) =>
  page.evaluate(`getComputedStyle(document.body).backgroundColor`) as Promise<string>;

browserTestOnStores(
  "dashboard #33.4: a theme chosen on the account page applies at once and is kept with the " +
    "user across reloads and browsers; the server's default applies to those who chose none; " +
    "a custom theme file is offered",
  { SERVICE_THEMES_DIRECTORY: THEMES_DIR },
  async ({ browser, origin, kind }: JourneyContext) => {
    await setupAdmin(origin);
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    const problems = watchProblems(page, false);
    await signIn(page, origin);
    await page.goto(`${origin}/dashboard/settings`);
    const theme = page.getByLabel("Theme", { exact: true });
    await theme.waitFor();
    const offered = await theme.locator("option").allInnerTexts();
    for (
      const name of [
        "Dark Gray (dark)",
        "Light Gray (light)",
        "Dark Blue (dark)",
        "Light Blue (light)",
        "Black Dark (dark)",
        "Catppuccin Mocha (dark)",
        "Catppuccin Latte (light)",
        "Midnight Purple (dark)",
        "Ocean (dark)",
      ]
    ) assert.ok(offered.includes(name), name);

    await theme.selectOption({ label: "Catppuccin Mocha (dark)" });
    await page.getByRole("status").filter({ hasText: "Theme saved." }).waitFor();
    assert.equal(await page.locator("html").getAttribute("data-theme"), "builtin:catppuccin_mocha");
    assert.equal(await background(page), "rgb(24, 24, 37)", "applied at once");
    await page.reload();
    assert.equal(await page.locator("html").getAttribute("data-theme"), "builtin:catppuccin_mocha");
    await checkAccessibility(page, "the account page in Catppuccin Mocha");
    await screenshots(page, "theme-mocha", kind);

    // Another browser, same user: the same theme.
    const other = await browser.newContext({ viewport: VIEWPORT });
    const otherPage = await other.newPage();
    await signIn(otherPage, origin);
    assert.equal(await background(otherPage), "rgb(24, 24, 37)");
    await other.close();

    // The server's default, for those who chose none.
    const set = await fromPage(page, "PATCH", "/api/server/settings", {
      websiteThemeDefault: "builtin:midnight_purple",
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    await page.reload();
    assert.equal(await background(page), "rgb(24, 24, 37)", "a user's own choice wins");
    await theme.selectOption({ value: "" });
    await page.getByRole("status").filter({ hasText: "Theme saved." }).waitFor();
    await page.reload();
    assert.equal(await page.locator("html").getAttribute("data-theme"), "builtin:midnight_purple");
    assert.equal(await background(page), "rgb(10, 10, 10)");
    await checkAccessibility(page, "the account page in Midnight Purple");

    // A custom theme from the themes directory.
    await theme.selectOption({ label: "Ocean (dark)" });
    await page.getByRole("status").filter({ hasText: "Theme saved." }).waitFor();
    await page.goto(`${origin}/dashboard`);
    assert.equal(await background(page), "rgb(0, 27, 46)");
    await checkAccessibility(page, "the home page in a custom theme");
    await screenshots(page, "theme-custom", kind);

    // System: the device's scheme picks between the dark and the light choice.
    await page.goto(`${origin}/dashboard/settings`);
    await theme.selectOption({ value: "system" });
    await page.getByLabel("Theme in light mode").selectOption({ label: "Catppuccin Latte" });
    await page.getByRole("status").filter({ hasText: "Theme saved." }).last().waitFor();
    await page.reload();
    await page.emulateMedia({ colorScheme: "light" });
    assert.equal(await background(page), "rgb(230, 233, 239)");
    await page.emulateMedia({ colorScheme: "dark" });
    assert.equal(await background(page), "rgb(20, 21, 23)", "the server's dark theme");
    await page.emulateMedia({ colorScheme: "light" });

    assert.deepEqual(problems, []);
    await context.close();
  },
);
