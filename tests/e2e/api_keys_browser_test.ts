/**
 * API keys in a real browser against the real server, on both stores: make a
 * key with one scope and a validity on the account page, copy it with its
 * button, use it from Deno (an upload passes, a list is refused), see it
 * marked used, download an iShare configuration that holds a key of its own,
 * and revoke the key (confirmed), after which it is refused; an administrator
 * sees another user's keys in that user's edit form and revokes one.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import {
  browserTestOnStores,
  checkAccessibility,
  screenshots,
  setupAdmin,
  signIn,
  watchProblems,
} from "../helpers/browser.ts";
import type { StoreKind } from "../helpers/stores.ts";

/** Uploads one small text file to `origin` with `authorization`; the response. */
async function upload(origin: string, authorization: string): Promise<Response> {
  const form = new FormData();
  form.append("file", new Blob(["sent with a key"], { type: "text/plain" }), "key.txt");
  return await fetch(`${origin}/api/upload`, {
    method: "POST",
    headers: { authorization },
    body: form,
  });
}

/** A USER `bob` made by the admin (`cookie`), with a key of its own; the key. */
async function bobWithKey(origin: string, cookie: string): Promise<string> {
  const json = { "content-type": "application/json" };
  const made = await fetch(`${origin}/api/users`, {
    method: "POST",
    headers: { ...json, cookie },
    body: JSON.stringify({ username: "bob", password: "bob-password", role: "USER" }),
  });
  assert.equal(made.status, 200, await made.clone().text());
  await made.body?.cancel();
  const login = await fetch(`${origin}/api/auth/login`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ username: "bob", password: "bob-password" }),
  });
  assert.equal(login.status, 200);
  await login.body?.cancel();
  const bob = login.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const key = await fetch(`${origin}/api/user/keys`, {
    method: "POST",
    headers: { ...json, cookie: bob },
    body: JSON.stringify({ name: "bob's uploader", scopes: ["files:write"] }),
  });
  assert.equal(key.status, 200, await key.clone().text());
  return (await key.json()).key;
}

/** The admin revokes bob's key from bob's edit form; the key is refused after. */
async function adminRevokes(page: Page, origin: string, cookie: string, kind: StoreKind) {
  const key = await bobWithKey(origin, cookie);
  await page.goto(`${origin}/dashboard/admin/users`);
  await page.getByRole("button", { name: "Edit bob" }).click();
  const keys = page.getByRole("table", { name: "API keys of bob" });
  await keys.getByRole("row").filter({ hasText: "bob's uploader" }).waitFor();
  await checkAccessibility(page, "a user's API keys in the admin's edit form");
  await screenshots(page, "admin-user-keys", kind);
  await keys.getByRole("button", { name: "Revoke bob's uploader" }).click();
  await page.getByRole("dialog", { name: "Revoke this key?" })
    .getByRole("button", { name: "Revoke", exact: true }).click();
  await page.getByText("No API keys.").waitFor();
  const refused = await upload(origin, key);
  assert.equal(refused.status, 401, "revoked by the admin");
  await refused.body?.cancel();
}

async function journey(browser: Browser, origin: string, kind: StoreKind) {
  const cookie = await setupAdmin(origin);
  const context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    permissions: ["clipboard-read", "clipboard-write"],
  });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await signIn(page, origin);
  await page.goto(`${origin}/dashboard/settings`);
  const card = page.getByRole("region", { name: "API keys" });
  await card.getByText("No API keys yet.").waitFor();

  // Make a key that may only upload, valid for 30 days.
  await card.getByLabel("Key name").fill("deploy");
  await card.getByRole("checkbox", { name: /files:write/ }).check();
  await card.getByLabel("Validity").selectOption("30");
  await card.getByRole("button", { name: "Make the key" }).click();
  const shown = card.getByRole("textbox", { name: "New API key" });
  const key = await shown.inputValue();
  assert.match(key, /^fk_[A-Za-z0-9]{43}$/);
  await card.getByRole("button", { name: "Copy the new API key" }).click();
  await card.getByText("Copied").waitFor();
  assert.equal(await page.evaluate("navigator.clipboard.readText()"), key, "the copy is the key");
  // Name, scopes, made, last used, expires.
  const cells = () => card.getByRole("row").filter({ hasText: "deploy" }).getByRole("cell");
  const [, scopes, , lastUsed, expires] = await cells().allInnerTexts();
  assert.equal(scopes, "files:write");
  assert.equal(lastUsed, "never");
  assert.notEqual(expires, "never", "it expires in 30 days");
  await screenshots(page, "api-keys", kind);

  // Used from outside the browser: the upload passes, anything else is refused.
  const uploaded = await upload(origin, key);
  assert.equal(uploaded.status, 200, await uploaded.clone().text());
  const url = (await uploaded.json()).files[0].url;
  assert.equal(await (await fetch(url.replace("/u/", "/raw/"))).text(), "sent with a key");
  const list = await fetch(`${origin}/api/user/files`, { headers: { authorization: key } });
  assert.equal(list.status, 403);
  assert.match((await list.json()).error, /^This key may not list or read files/);

  // Shown once: after Done and a reload, only its row remains, marked used.
  await card.getByRole("button", { name: "Done" }).click();
  await page.reload();
  await card.getByRole("row").filter({ hasText: "deploy" }).waitFor();
  assert.equal(await card.getByRole("textbox", { name: "New API key" }).count(), 0);
  assert.ok(!(await page.content()).includes(key), "the page never shows the key again");
  assert.notEqual((await cells().allInnerTexts())[3], "never", "it was used");

  // An uploader configuration gets an upload-only key named after its tool.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "iShare" }).click(),
  ]);
  const iscu = JSON.parse(await Deno.readTextFile((await download.path())!));
  assert.match(iscu.headers.Authorization, /^fk_/);
  assert.equal((await upload(origin, iscu.headers.Authorization)).status, 200);
  await card.getByRole("row").filter({ hasText: "iShare" }).waitFor();

  // Revoked (after a confirmation): refused from then on; the other key stays.
  await card.getByRole("button", { name: "Revoke deploy" }).click();
  await page.getByRole("dialog", { name: "Revoke this key?" })
    .getByRole("button", { name: "Revoke", exact: true }).click();
  await card.getByRole("row").filter({ hasText: "deploy" }).waitFor({ state: "detached" });
  const refused = await upload(origin, key);
  assert.equal(refused.status, 401);
  await refused.body?.cancel();
  assert.equal((await upload(origin, iscu.headers.Authorization)).status, 200);

  await adminRevokes(page, origin, cookie, kind);
  assert.deepEqual(problems, []);
  await context.close();
}

browserTestOnStores(
  "API keys: make one with a scope and a validity, copy it, upload with it, revoke it",
  {},
  ({ browser, origin, kind }) => journey(browser, origin, kind),
);
