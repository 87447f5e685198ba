/**
 * Issue #33 item 8 in a real browser against the real server, on both
 * stores: the home page greets by name with the eight counts and the user's
 * file types; a short URL's password is removed from its edit form; an
 * administrator gives a user an avatar and takes it away; the shell scripts
 * the account page generates upload a file and shorten a URL when run; the
 * security page (Preact) changes the password and signs out other sessions.
 * Each page passes axe-core in light and dark; screenshots in light, dark and
 * phone width.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import {
  browserTestOnStores,
  checkAccessibility,
  type JourneyContext,
  openUserMenu,
  screenshots,
  setupAdmin,
  signIn,
  watchProblems,
} from "../helpers/browser.ts";
import { redSquare } from "../helpers/images.ts";

/** Calls the API with the session `cookie`. */
async function call(
  origin: string,
  cookie: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  return await fetch(`${origin}${path}`, {
    method,
    headers: { cookie, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Uploads `name` with `text` (as `type`) as the holder of `cookie`. */
async function upload(origin: string, cookie: string, name: string, text: string, type: string) {
  const form = new FormData();
  form.append("file", new Blob([text], { type }), name);
  const res = await fetch(`${origin}/api/upload`, {
    method: "POST",
    headers: { cookie },
    body: form,
  });
  assert.equal(res.status, 200, await res.clone().text());
  await res.body?.cancel();
}

/** Downloads what clicking the button `name` offers; its path on disk. */
async function downloaded(page: Page, name: string): Promise<string> {
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name, exact: true }).click(),
  ]);
  return (await download.path())!;
}

/** Runs the shell script at `path` with `args`; its standard output, trimmed. */
async function runScript(path: string, ...args: string[]): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command("sh", { args: [path, ...args] })
    .output();
  const out = new TextDecoder().decode(stdout).trim();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return out;
}

async function homeAndUrls(page: Page, origin: string, cookie: string, kind: string) {
  await upload(origin, cookie, "a.txt", "one", "text/plain");
  await upload(origin, cookie, "b.txt", "two", "text/plain");
  await upload(origin, cookie, "c.png", "not really", "image/png");
  await page.goto(`${origin}/dashboard`);
  await page.getByText("Welcome back, admin.").waitFor();
  const summary = page.getByRole("region", { name: "Summary" });
  await summary.getByText("Views per file").waitFor();
  const text = await summary.innerText();
  for (
    const label of [
      "Files",
      "Favourites",
      "Storage used",
      "Average file size",
      "File views",
      "Views per file",
      "Short links",
      "Link visits",
    ]
  ) assert.match(text, new RegExp(`${label}\\s`), label);
  assert.match(text, /Files\s+3\b/);
  const types = page.getByRole("table", { name: "Your file types" });
  assert.deepEqual(await types.getByRole("row").allInnerTexts(), [
    "Type\tFiles",
    "text/plain\t2",
    "image/png\t1",
  ]);
  await checkAccessibility(page, "home");
  await screenshots(page, "home-counts", kind as "kv");

  // A short URL with a password, then the password removed from its edit form.
  await page.goto(`${origin}/dashboard/urls`);
  const shorten = page.getByRole("form", { name: "Shorten a URL" });
  await shorten.getByLabel("Destination").fill("https://example.com/locked");
  await shorten.getByLabel("Vanity (optional)").fill("locked");
  await shorten.getByLabel("Password (optional)").fill("secret-pass");
  await shorten.getByRole("button", { name: "Shorten" }).click();
  const row = page.getByRole("list", { name: "Short URLs" }).getByRole("listitem")
    .filter({ hasText: "locked" });
  await row.waitFor();
  const [before] = await (await call(origin, cookie, "GET", "/api/user/urls")).json();
  assert.equal(before.password, true);
  const gated = await fetch(`${origin}/go/locked`, { redirect: "manual" });
  await gated.body?.cancel();
  assert.notEqual(gated.headers.get("location"), "https://example.com/locked");

  await row.getByRole("button", { name: "Edit locked" }).click();
  const edit = page.getByRole("form", { name: "Edit locked" });
  await edit.getByLabel("Remove the password").check();
  assert.equal(await edit.getByLabel("New password (optional)").isDisabled(), true);
  await checkAccessibility(page, "URLs with the edit form open");
  await screenshots(page, "urls-edit", kind as "kv");
  await edit.getByRole("button", { name: "Save" }).click();
  await edit.waitFor({ state: "detached" });
  const [after] = await (await call(origin, cookie, "GET", "/api/user/urls")).json();
  assert.equal(after.password, false, "the password is gone");
  const open = await fetch(`${origin}/go/locked`, { redirect: "manual" });
  await open.body?.cancel();
  assert.equal(open.headers.get("location"), "https://example.com/locked");
}

async function avatarOfUser(page: Page, origin: string, cookie: string, dir: string) {
  const created = await call(origin, cookie, "POST", "/api/users", {
    username: "bea",
    password: "bea-password",
  });
  assert.equal(created.status, 200);
  const { id } = await created.json();
  const png = join(dir, "avatar.png");
  await Deno.writeFile(png, redSquare(32));

  await page.goto(`${origin}/dashboard/admin/users`);
  await page.getByRole("button", { name: "Edit bea" }).click();
  const form = page.getByRole("form", { name: "Edit bea" });
  await form.getByLabel("New avatar").setInputFiles(png);
  await form.getByRole("img", { name: "Avatar of bea" }).waitFor();
  await checkAccessibility(page, "users with the edit form open");
  await form.getByRole("button", { name: "Save" }).click();
  await page.getByText("bea saved.").waitFor();
  const given = await (await call(origin, cookie, "GET", `/api/users/${id}`)).json();
  assert.match(given.avatar ?? "", /^data:image\/png;base64,/);

  await page.getByRole("button", { name: "Edit bea" }).click();
  await form.getByLabel("Remove the avatar").check();
  await form.getByRole("button", { name: "Save" }).click();
  await page.getByText("bea saved.").waitFor();
  const taken = await (await call(origin, cookie, "GET", `/api/users/${id}`)).json();
  assert.equal(taken.avatar, null);
}

async function uploaderScripts(page: Page, origin: string, dir: string, kind: string) {
  await openUserMenu(page);
  await page.getByRole("link", { name: "Account", exact: true }).click();
  await page.waitForURL(`${origin}/dashboard/settings`);
  await page.getByLabel("Scripts copy the link on").selectOption("echo");
  await checkAccessibility(page, "account");
  await screenshots(page, "account", kind as "kv");

  // The URL script: its key may only shorten; the short link leads to the destination.
  const shorten = await downloaded(page, "Shell script: URLs");
  const script = await Deno.readTextFile(shorten);
  assert.match(script, /^#!\/bin\/sh\n/);
  assert.ok(!script.includes("xclip") && !script.includes("wl-copy"), "echo only");
  const link = await runScript(shorten, 'https://example.com/say?q="hi"\\');
  assert.match(link, new RegExp(`^${origin}/go/\\w+$`));
  const redirect = await fetch(link, { redirect: "manual" });
  await redirect.body?.cancel();
  const location = decodeURIComponent(redirect.headers.get("location") ?? "");
  assert.equal(location, 'https://example.com/say?q="hi"\\', "quotes and backslash arrive");

  // The file script: uploads the file it is given.
  const uploadScript = await downloaded(page, "Shell script: files");
  const notes = join(dir, "notes.txt");
  await Deno.writeTextFile(notes, "from the shell");
  const fileLink = await runScript(uploadScript, notes);
  assert.equal(await (await fetch(fileLink.replace("/u/", "/raw/"))).text(), "from the shell");

  // The Wayland choice pipes to wl-copy; macOS to pbcopy.
  await page.getByLabel("Scripts copy the link on").selectOption("wayland");
  await page.getByLabel(/compositor other than GNOME/).check();
  const flameshot = await Deno.readTextFile(await downloaded(page, "Flameshot script"));
  assert.match(flameshot, /\| wl-copy\n/);
  assert.match(flameshot, /export XDG_CURRENT_DESKTOP=sway/);
  await page.getByLabel("Scripts copy the link on").selectOption("macos");
  const mac = await Deno.readTextFile(await downloaded(page, "Flameshot script"));
  assert.match(mac, /\| pbcopy\n/);
  assert.doesNotMatch(mac, /XDG_CURRENT_DESKTOP/);
}

async function securityPage(context: BrowserContext, page: Page, origin: string, kind: string) {
  // A second session, which the password change signs out.
  const other = await context.browser()!.newContext();
  const otherPage = await other.newPage();
  await signIn(otherPage, origin);
  await page.goto(`${origin}/dashboard/security`);
  await page.getByRole("heading", { name: "Sessions" }).waitFor();
  await page.getByRole("button", { name: "Sign out all other sessions" }).waitFor();
  await checkAccessibility(page, "security");
  await screenshots(page, "security", kind as "kv");
  await page.getByLabel("Current password").fill("password123");
  await page.getByLabel("New password", { exact: true }).fill("a-new-password");
  await page.getByLabel("New password again").fill("a-new-password");
  await page.getByRole("button", { name: "Change password" }).click();
  await page.getByText("Password changed").waitFor();
  await otherPage.reload();
  await otherPage.waitForURL(/\/auth\/login/);
  await other.close();
  const res = await fetch(`${origin}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: "a-new-password" }),
  });
  assert.equal(res.status, 200, "the new password signs in");
  await res.body?.cancel();
}

async function journey({ browser, origin, kind, dir }: JourneyContext) {
  const cookie = await setupAdmin(origin);
  const context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    acceptDownloads: true,
  });
  const page = await context.newPage();
  const problems = watchProblems(page, false);
  await signIn(page, origin);
  await homeAndUrls(page, origin, cookie, kind);
  await avatarOfUser(page, origin, cookie, dir);
  await uploaderScripts(page, origin, dir, kind);
  await securityPage(context, page, origin, kind);
  assert.deepEqual(problems, []);
  await context.close();
}

browserTestOnStores(
  "item 8: home counts and types, URL password removed, a user's avatar, uploader scripts, security",
  { SERVICE_RATELIMIT_ENABLED: "false" },
  journey,
);
