/**
 * The administrators' dashboard in a real browser against the real server,
 * on both stores: an ADMIN creates a USER with a quota and the USER's upload
 * beyond it is refused; the ADMIN's controls for users it may not manage are
 * disabled and the server refuses the forged requests; the settings; the
 * statistics; the invites on their own page; the import, which reads the
 * chosen export before sending it (its records, and its users to merge one by
 * name), and the export. Screenshots of each page in light, dark and phone
 * width.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHmac } from "node:crypto";
import type { BrowserContext } from "playwright-core";
import {
  browserTestOnStores,
  checkAccessibility,
  type JourneyContext,
  screenshot,
  screenshots,
  setupAdmin,
  signIn,
  watchProblems,
} from "../helpers/browser.ts";
import { sendStaged } from "../helpers/dashboard.ts";
import { startReceiver } from "../helpers/receiver.ts";
import { eventually } from "../helpers/wait.ts";

/** Calls the API as the browser context's signed-in user (its session cookie). */
async function asUser(
  context: BrowserContext,
  origin: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  const cookie = (await context.cookies(origin)).map((c) => `${c.name}=${c.value}`).join("; ");
  return await fetch(`${origin}${path}`, {
    method,
    headers: { cookie, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Creates `username` with `role` as the set-up SUPERADMIN (session cookie `admin`). */
async function createUser(origin: string, admin: string, username: string, role: string) {
  const res = await fetch(`${origin}/api/users`, {
    method: "POST",
    headers: { cookie: admin, "content-type": "application/json" },
    body: JSON.stringify({ username, password: `${username}-password`, role }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return await res.json() as { id: string };
}

async function usersJourney({ browser, origin, kind }: JourneyContext) {
  const superCookie = await setupAdmin(origin);
  const superId = (await (await fetch(`${origin}/api/user`, { headers: { cookie: superCookie } }))
    .json()).user?.id as string | undefined;
  const peer = await createUser(origin, superCookie, "peer", "ADMIN");
  await createUser(origin, superCookie, "moderator", "ADMIN");

  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems = watchProblems(page, false);
  await signIn(page, origin, "moderator", "moderator-password");
  await page.getByRole("navigation", { name: "Administration" })
    .getByRole("link", { name: "Users" }).click();
  await page.waitForURL(`${origin}/dashboard/admin/users`);
  const table = page.getByRole("table", { name: "Users" });
  await table.getByRole("cell", { name: "peer", exact: true }).waitFor();

  // Roles above the caller's are disabled choices, explained.
  const newUser = page.getByRole("form", { name: "New user" });
  const role = newUser.getByLabel("Role");
  assert.equal(await role.getByRole("option", { name: /^SUPERADMIN/ }).isDisabled(), true);
  assert.equal(await role.getByRole("option", { name: "USER", exact: true }).isDisabled(), false);
  await newUser.getByText(/gives roles up to its own/).waitFor();

  // Users at or above the caller's role: their controls are disabled.
  for (const name of ["admin", "peer", "moderator"]) {
    assert.equal(await page.getByRole("button", { name: `Edit ${name}` }).isDisabled(), true);
    assert.equal(await page.getByRole("button", { name: `Delete ${name}` }).isDisabled(), true);
  }

  // Create a USER, then give it a quota of 1 KB.
  await newUser.getByLabel("Username").fill("alice");
  await newUser.getByLabel("Password").fill("alice-password");
  await newUser.getByRole("button", { name: "Create user" }).click();
  await table.getByRole("cell", { name: "alice", exact: true }).waitFor();
  await page.getByRole("button", { name: "Edit alice" }).click();
  const edit = page.getByRole("form", { name: "Edit alice" });
  await edit.getByLabel("Quota").selectOption("BY_BYTES");
  await edit.getByLabel("Max storage").fill("1kb");
  await edit.getByLabel("Max URLs").fill("3");
  await screenshots(page, "admin-users-edit", kind);
  await edit.getByRole("button", { name: "Save" }).click();
  await page.getByText("alice saved.").waitFor();
  await table.getByText("of 1kb").waitFor();

  // Search and sort.
  await page.getByLabel("Search users").fill("ali");
  await table.getByRole("cell", { name: "peer", exact: true }).waitFor({ state: "detached" });
  await page.getByLabel("Search users").fill("");
  await page.getByLabel("Sort by").selectOption("username");
  const names = await table.locator("tbody .user-name strong").allTextContents();
  assert.deepEqual(names, [...names].sort());
  await screenshots(page, "admin-users", kind);

  // The server refuses what the disabled controls would have sent.
  const forged = [
    await asUser(context, origin, "PATCH", `/api/users/${peer.id}`, { username: "taken" }),
    await asUser(context, origin, "PATCH", `/api/users/${superId}`, { role: "USER" }),
    await asUser(context, origin, "DELETE", `/api/users/${superId}`, { delete: true }),
  ];
  assert.deepEqual(forged.map((r) => r.status), [403, 403, 403]);
  const aliceId = (await (await asUser(context, origin, "GET", "/api/users")).json() as {
    id: string;
    username: string;
  }[]).find((u) => u.username === "alice")!.id;
  const promote = await asUser(context, origin, "PATCH", `/api/users/${aliceId}`, {
    role: "SUPERADMIN",
  });
  assert.equal(promote.status, 403);
  assert.equal((await promote.json()).error, "You cannot assign this role");

  // alice uploads: a small file fits, one beyond the quota is refused.
  const aliceContext = await browser.newContext();
  const alicePage = await aliceContext.newPage();
  await signIn(alicePage, origin, "alice", "alice-password");
  await alicePage.goto(`${origin}/dashboard/upload`);
  await alicePage.getByLabel("Files to upload").setInputFiles([
    { name: "small.txt", mimeType: "text/plain", buffer: Buffer.from("fits") },
  ]);
  await sendStaged(alicePage);
  await alicePage.getByLabel("Link to small.txt", { exact: true }).waitFor();
  await alicePage.getByLabel("Files to upload").setInputFiles([
    { name: "big.txt", mimeType: "text/plain", buffer: Buffer.alloc(4096, 120) },
  ]);
  await sendStaged(alicePage);
  await alicePage.getByRole("alert").filter({ hasText: /exceed your quota/ }).waitFor();
  await aliceContext.close();

  // The admin opens alice's files, then deletes her with her content.
  await page.reload();
  await page.getByRole("link", { name: "Files of alice" }).click();
  await page.getByRole("heading", { name: "Files of alice" }).waitFor();
  await page.getByText("1 file", { exact: true }).waitFor();
  await page.goBack();
  await page.getByRole("button", { name: "Delete alice" }).click();
  const remove = page.getByRole("form", { name: "Delete alice" });
  await remove.getByLabel("Also delete their files and URLs").check();
  await screenshots(page, "admin-users-delete", kind);
  await remove.getByRole("button", { name: "Delete alice" }).click();
  await page.getByText("alice deleted.").waitFor();
  await table.getByRole("cell", { name: "alice", exact: true }).waitFor({ state: "detached" });
  const files = await fetch(`${origin}/api/user/files?page=1&id=${aliceId}`, {
    headers: { cookie: superCookie },
  });
  assert.equal(files.status, 404, "alice is gone");

  // A USER is shown no administration and is refused its pages.
  const userPage = await (await browser.newContext()).newPage();
  await createUser(origin, superCookie, "bob", "USER");
  await signIn(userPage, origin, "bob", "bob-password");
  assert.equal(
    await userPage.getByRole("navigation", { name: "Administration" })
      .getByRole("link", { name: "Users" }).count(),
    0,
  );
  const refused = await userPage.goto(`${origin}/dashboard/admin/users`);
  assert.equal(refused?.status(), 403);
  await userPage.getByRole("heading", { name: "Not allowed" }).waitFor();

  // On a phone the navigation folds behind the Menu button.
  await page.setViewportSize({ width: 360, height: 740 });
  const menu = page.getByRole("button", { name: "Menu" });
  const usersLink = page.getByRole("navigation", { name: "Administration" })
    .getByRole("link", { name: "Users" });
  assert.equal(await usersLink.isVisible(), false, "folded");
  await menu.click();
  assert.equal(await menu.getAttribute("aria-expanded"), "true");
  if (kind === "kv") await screenshot(page, "dashboard-menu-open-phone");
  await usersLink.click();
  await page.waitForURL(`${origin}/dashboard/admin/users`);
  await page.getByRole("heading", { name: "Users", exact: true }).waitFor();

  assert.deepEqual(problems, []);
  await context.close();
}

browserTestOnStores(
  "the users page: an ADMIN creates a USER with a quota that refuses her upload beyond it, " +
    "cannot touch users at or above its role (disabled controls, forged requests refused), " +
    "opens her files and deletes her with them",
  { SERVICE_RATELIMIT_ENABLED: "false" },
  usersJourney,
);

async function settingsJourney({ browser, origin, kind }: JourneyContext) {
  await setupAdmin(origin);
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems = watchProblems(page, false);
  await signIn(page, origin);
  await page.getByRole("link", { name: "Server settings" }).click();
  await page.waitForURL(`${origin}/dashboard/admin/settings`);
  const form = page.getByRole("form", { name: "Server settings" });
  await form.getByRole("heading", { name: "Core" }).waitFor();
  await screenshots(page, "admin-settings", kind);

  // A key the environment pins is read-only, naming its variable (in its category's tab).
  await form.getByRole("tab", { name: "Rate limiting" }).click();
  const pinned = form.getByRole("switch", { name: "Rate limiting", exact: true });
  assert.equal(await pinned.isDisabled(), true);
  await form.getByText("SERVICE_RATELIMIT_ENABLED").waitFor();

  // Search over keys and descriptions.
  await form.getByLabel("Search settings").fill("site title");
  await form.getByRole("heading", { name: "Rate limiting" }).waitFor({ state: "detached" });
  const title = form.getByLabel("Site title", { exact: true });
  await title.fill("Harbor");
  const sent = page.waitForRequest((r) => r.method() === "PATCH");
  await form.getByRole("button", { name: "Save 1 changed" }).click();
  assert.deepEqual((await sent).postDataJSON(), { websiteTitle: "Harbor" }, "only the change");
  await form.getByText("Saved 1 setting.").waitFor();

  // An invalid value: the server's message beside its field, nothing saved.
  await form.getByLabel("Search settings").fill("");
  await form.getByRole("tab", { name: "Files", exact: true }).click();
  const size = form.getByLabel("Largest file", { exact: true });
  await size.fill("lots");
  await form.getByRole("button", { name: "Save 1 changed" }).click();
  const field = form.locator(".setting", {
    has: page.getByLabel("Largest file", { exact: true }),
  });
  await field.getByRole("alert").filter({ hasText: "must be a size" }).waitFor();
  await size.scrollIntoViewIfNeeded();
  await screenshots(page, "admin-settings-invalid", kind);
  const forged = await fetch(`${origin}/api/server/settings`, {
    method: "PATCH",
    headers: {
      cookie: (await context.cookies(origin)).map((c) => `${c.name}=${c.value}`).join("; "),
      "content-type": "application/json",
    },
    body: JSON.stringify({ ratelimitEnabled: true }),
  });
  assert.equal(forged.status, 400, "a tampered key is refused by the server too");

  // The change in the audit trail, filtered by key and user.
  await page.getByRole("link", { name: "Audit trail" }).click();
  await page.waitForURL(`${origin}/dashboard/admin/audit`);
  const changes = page.getByRole("table", { name: "Setting changes" });
  await page.getByLabel("Filter by key").fill("websiteTitle");
  await page.getByLabel("Filter by user").fill("adm");
  const row = changes.getByRole("row").filter({ hasText: "websiteTitle" });
  await row.getByRole("cell", { name: '"Harbor"' }).waitFor();
  await row.getByRole("cell", { name: '"Ferry"' }).waitFor();
  await screenshots(page, "admin-audit", kind);
  await page.getByLabel("Filter by user").fill("nobody");
  await page.getByText("No change matches.").waitFor();

  // The one 400 is the invalid value's, on purpose.
  assert.deepEqual(problems.filter((p) => !p.includes("status of 400")), []);
  await context.close();
}

browserTestOnStores(
  "the settings page: a SUPERADMIN changes a setting (only it is sent) and finds it in the " +
    "audit trail; a key pinned by the environment is read-only; an invalid value shows the " +
    "server's message beside its field",
  { SERVICE_RATELIMIT_ENABLED: "false" },
  settingsJourney,
);

const DAY = 86_400_000;

/** An invite as `GET /api/auth/invites` lists it. */
interface ListedInvite {
  id: string;
  code: string;
  maxUses: number | null;
  uses: number;
  expiresAt: string | null;
}

async function invitesJourney({ browser, origin, kind }: JourneyContext) {
  const cookie = await setupAdmin(origin);
  const listed = async () =>
    await (await fetch(`${origin}/api/auth/invites`, { headers: { cookie } }))
      .json() as ListedInvite[];
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems = watchProblems(page, false);
  await signIn(page, origin);

  // Invites are an item of the Administration group, with a page of their own.
  const admin = page.getByRole("navigation", { name: "Administration" });
  await admin.getByRole("link", { name: "Invites" }).click();
  await page.waitForURL(`${origin}/dashboard/admin/invites`);
  assert.equal(
    await admin.getByRole("link", { name: "Invites" }).getAttribute("aria-current"),
    "page",
  );
  await page.getByRole("heading", { name: "Invites", level: 1 }).waitFor();
  await page.getByText("No invites yet.").waitFor();

  // One for a day with no limit of uses, from the presets.
  await page.getByLabel("Expires after").selectOption({ label: "1 day" });
  await page.getByLabel("Max uses").fill("");
  await page.getByRole("button", { name: "Create invite" }).click();
  await page.getByRole("status").filter({ hasText: /^Created the invite \w+\.$/ }).waitFor();
  const list = page.getByRole("list", { name: "Invites" });
  await list.getByText("used 0 (no limit)").waitFor();
  const [open] = await listed();
  assert.equal(open.maxUses, null);
  const left = Date.parse(open.expiresAt!) - Date.now();
  assert.ok(Math.abs(left - DAY) < 5 * 60_000, `expires in a day: ${open.expiresAt}`);

  // One that never expires, for one use: its link registers someone, then it is used up.
  await page.getByLabel("Expires after").selectOption({ label: "Never" });
  await page.getByLabel("Max uses").fill("1");
  await page.getByRole("button", { name: "Create invite" }).click();
  await list.getByRole("listitem").nth(1).waitFor();
  const single = (await listed()).find((i) => i.maxUses === 1)!;
  assert.equal(single.expiresAt, null);
  const link = await list.getByRole("textbox", { name: `Link to the invite ${single.code}` })
    .inputValue();
  assert.equal(link, `${origin}/invite/${single.code}`);
  const registered = await fetch(`${origin}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "guest", password: "guest-password", code: single.code }),
  });
  assert.equal(registered.status, 200, await registered.clone().text());
  await registered.body?.cancel();
  await page.reload();
  const usedUp = list.getByRole("listitem").filter({ hasText: single.code });
  await usedUp.getByText("used up").waitFor();
  await usedUp.getByText("used 1 of 1 · never expires").waitFor();
  await checkAccessibility(page, "the invites page");
  await screenshots(page, "admin-invites", kind);

  // Deleted after the dashboard's confirmation.
  await usedUp.getByRole("button", { name: `Delete the invite ${single.code}` }).click();
  await page.getByRole("dialog", { name: "Delete this invite?" })
    .getByRole("button", { name: "Delete" }).click();
  await page.getByRole("status").filter({ hasText: `Deleted the invite ${single.code}.` })
    .waitFor();
  await eventually("one invite listed", async () => await list.getByRole("listitem").count() === 1);
  assert.deepEqual((await listed()).map((i) => i.id), [open.id]);

  // The Tags page is the tags' alone.
  await page.getByRole("link", { name: "Tags", exact: true }).click();
  await page.getByRole("heading", { name: "Tags", level: 1 }).waitFor();
  assert.equal(await page.getByRole("button", { name: "Create invite" }).count(), 0);

  // With invites off, neither the item nor the page is there.
  const off = await asUser(context, origin, "PATCH", "/api/server/settings", {
    invitesEnabled: false,
  });
  assert.equal(off.status, 200, await off.clone().text());
  await page.reload();
  await admin.getByRole("link", { name: "Users" }).waitFor();
  assert.equal(await admin.getByRole("link", { name: "Invites" }).count(), 0);
  const gone = await page.goto(`${origin}/dashboard/admin/invites`);
  assert.equal(gone?.status(), 404);
  await page.getByRole("heading", { name: "Page not found" }).waitFor();

  assert.deepEqual(problems.filter((p) => !p.includes("404")), []);
  await context.close();
}

browserTestOnStores(
  "invites: their own page in the Administration group; created from the expiry presets with " +
    "or without a limit of uses, the link used to register until used up, deleted after a " +
    "confirmation; gone from the sidebar and a 404 once invites are off",
  { SERVICE_RATELIMIT_ENABLED: "false" },
  invitesJourney,
);

/** The v4 export fixture: four users, nine files, three metrics snapshots. */
const V4_FIXTURE = new URL("../fixtures/zipline-v4-export.sample.json", import.meta.url);
/** The v3 export fixture: four users, eight files. */
const V3_FIXTURE = new URL("../fixtures/zipline-v3-export.sample.json", import.meta.url);

async function statsJourney({ browser, origin, kind }: JourneyContext) {
  const cookie = await setupAdmin(origin);
  const imported = await fetch(`${origin}/api/server/import/v4`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: await Deno.readFile(V4_FIXTURE),
  });
  assert.equal(imported.status, 200, await imported.clone().text());
  assert.equal((await imported.json()).imported.metrics, 3);

  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems = watchProblems(page, false);
  await signIn(page, origin);
  await page.getByRole("link", { name: "Statistics" }).click();
  await page.waitForURL(`${origin}/dashboard/stats`);
  await page.getByRole("group", { name: "Range" }).getByRole("button", { name: "All" }).click();

  // Four line charts drawn on canvases, from the three imported snapshots.
  for (const title of ["Files", "Storage", "URLs", "Views"]) {
    const chart = page.getByRole("img", { name: `Chart: ${title}` });
    await chart.locator("canvas").waitFor();
    const inked = await page.evaluate(`(() => {
      const canvas = document.querySelector('[aria-label="Chart: ${title}"] canvas');
      const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      let count = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) count++;
      return count;
    })()`) as number;
    assert.ok(inked > 500, `the ${title} chart has ink (${inked} pixels)`);
  }
  const png = await page.getByRole("img", { name: "Chart: Files" }).screenshot();
  assert.ok(png.byteLength > 3_000, "the files chart's screenshot is not blank");

  // Bars from the newest snapshot (the metrics task's, taken at start), and every
  // snapshot as a row of the table: what the API answers.
  const api = await (await fetch(`${origin}/api/stats?all=true`, { headers: { cookie } })).json();
  const types = api[0].data.types as { type: string; sum: number }[];
  if (types.length > 0) {
    const legend = page.getByRole("table", { name: "Files by type" });
    await legend.waitFor();
    assert.deepEqual(
      await legend.locator("tbody tr").evaluateAll((rows) =>
        rows.map((r) => [r.querySelector("th")?.textContent, r.querySelector("td")?.textContent])
      ),
      types.toSorted((a, b) => b.sum - a.sum || a.type.localeCompare(b.type))
        .map((t) => [t.type, String(t.sum)]),
      "the donut's legend: each type and its files, largest first",
    );
  }
  await page.getByRole("region", { name: "Storage by user" }).waitFor();
  await page.getByRole("region", { name: "Uploads by user" }).waitFor();
  const top = page.getByRole("table", { name: "Top files by views" });
  await top.getByRole("row").nth(1).waitFor();
  const topViews = await top.locator("tbody tr td:nth-child(3)").allTextContents();
  assert.deepEqual(topViews.map(Number), topViews.map(Number).sort((x, y) => y - x));
  await page.getByText("The numbers as a table").click();
  const rows = page.getByRole("table", { name: "Metrics" }).locator("tbody tr");
  assert.equal(await rows.count(), api.length);
  assert.ok(api.length >= 3, "the three imported snapshots and the task's");
  await rows.filter({ hasText: "2025" }).first().waitFor();
  const storage = await rows.last().locator("td").nth(2).textContent();
  assert.ok(storage?.endsWith("MB"), `the oldest imported snapshot's storage: ${storage}`);
  await screenshots(page, "stats", kind);

  assert.deepEqual(problems, []);
  await context.close();
}

browserTestOnStores(
  "the statistics page draws its charts from imported metrics (checked on the canvas and " +
    "by screenshot), the newest snapshot's types as a donut and its bars by user, and the numbers " +
    "as a table",
  { SERVICE_RATELIMIT_ENABLED: "false" },
  statsJourney,
);

/** A v4 export of `files` file records (tens of MB), written to a temporary file. */
async function largeExport(files: number): Promise<{ path: string; size: number }> {
  const path = await Deno.makeTempFile({ prefix: "ferry-large-export-", suffix: ".json" });
  const file = await Deno.open(path, { write: true });
  const writer = file.writable.getWriter();
  const encoder = new TextEncoder();
  await writer.write(encoder.encode(
    '{"versions":{"zipline":"4.6.2","node":"v22.16.0","export":"4"},"request":{"user":' +
      '"u0:owner","date":"2026-01-01T00:00:00.000Z","os":{},"env":{}},"data":{"settings":{},' +
      '"users":[{"id":"u0","username":"owner","role":"SUPERADMIN"}],"files":[',
  ));
  for (let at = 0; at < files; at += 10_000) {
    const batch: string[] = [];
    for (let i = at; i < Math.min(files, at + 10_000); i++) {
      batch.push(
        `${i ? "," : ""}{"id":"f${i}","createdAt":"2026-01-01T00:00:00.000Z","deletesAt":null,` +
          `"name":"file-${i}.png","originalName":"holiday photo ${i}.png","size":${i},` +
          `"type":"image/png","views":${i % 50},"maxViews":null,"favorite":false,` +
          `"password":null,"userId":"u0","folderId":null}`,
      );
    }
    await writer.write(encoder.encode(batch.join("")));
  }
  await writer.write(encoder.encode('],"urls":[],"metrics":[]}}'));
  await writer.close();
  return { path, size: (await Deno.stat(path)).size };
}

/** The set-up admin's id in the v4 fixture, merged into the signed-in SUPERADMIN. */
const FIXTURE_ADMIN_ID = "cm5jdtpc000rtz1plsgu23tlb";

async function transferJourney({ browser, origin, kind }: JourneyContext) {
  await setupAdmin(origin);
  const context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    acceptDownloads: true,
  });
  const page = await context.newPage();
  const problems = watchProblems(page, false);
  await signIn(page, origin);
  await page.getByRole("link", { name: "Import and export" }).click();
  await page.waitForURL(`${origin}/dashboard/admin/transfer`);

  // A v3 export, read in the browser once chosen: the format follows the file, and its
  // records and users are listed before anything is sent.
  const form = page.getByRole("form", { name: "Import" });
  const details = form.getByRole("region", { name: "In this file" });
  const records = async () =>
    Object.fromEntries(
      await details.getByRole("term").evaluateAll((terms) =>
        terms.map((t) => [
          t.textContent,
          Number(t.nextElementSibling?.textContent?.replace(/\D/g, "")),
        ])
      ),
    );
  // A large export is read without freezing the page: no task on its main thread is long.
  const large = await largeExport(300_000);
  try {
    await page.evaluate(`window.longestTask = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          window.longestTask = Math.max(window.longestTask, e.duration);
        }
      }).observe({ type: "longtask" });`);
    const started = performance.now();
    await form.getByLabel("Export document").setInputFiles(large.path);
    await details.getByText("A Zipline v4 export from Zipline 4.6.2").waitFor({ timeout: 120_000 });
    const took = performance.now() - started;
    const longest = await page.evaluate("window.longestTask") as number;
    console.log(
      `a ${(large.size / 1e6).toFixed(0)} MB export read in ${took.toFixed(0)} ms; ` +
        `longest task ${longest.toFixed(0)} ms`,
    );
    // Parsed whole, such a file holds the page for seconds; read in slices, no task is long.
    // (The bound allows for a machine shared by many tests.)
    assert.ok(longest < 1000, `the page stayed responsive: longest task ${longest} ms`);
    assert.equal((await records()).files, 300_000);
  } finally {
    await Deno.remove(large.path);
  }

  await form.getByLabel("Export document").setInputFiles(V3_FIXTURE.pathname);
  await details.getByText("A Zipline v3 export from Zipline 3.7.12").waitFor();
  assert.equal(await form.getByLabel("Format").inputValue(), "3");
  assert.deepEqual(await records(), {
    users: 4,
    folders: 3,
    files: 8,
    URLs: 4,
    invites: 2,
    thumbnails: 1,
  });

  // The v4 fixture: its details, and the user to merge picked by name from the file's users.
  await form.getByLabel("Export document").setInputFiles(V4_FIXTURE.pathname);
  await details.getByText(/A Zipline v4 export from Zipline 4\.6\.2, made .+ by admin/).waitFor();
  assert.equal(await form.getByLabel("Format").inputValue(), "4");
  assert.deepEqual(await records(), {
    users: 4,
    "OAuth links": 3,
    quotas: 2,
    passkeys: 1,
    folders: 5,
    files: 9,
    tags: 2,
    URLs: 4,
    invites: 2,
    thumbnails: 1,
    metrics: 3,
  });
  const picker = form.getByRole("group", { name: "Merge an exported user into my account" });
  const choices = picker.getByRole("radio");
  assert.equal(await choices.count(), 5, "no one, and the export's four users");
  await picker.getByText("a user of this name is here").waitFor();
  await picker.getByLabel("Find a user of the export").fill("ADM");
  assert.equal(await choices.count(), 2, "no one, and admin");
  const admin = picker.getByRole("radio", { name: /^admin SUPERADMIN/ });
  assert.equal(await admin.getAttribute("value"), FIXTURE_ADMIN_ID, "merged by exported id");
  await admin.check();
  await picker.getByLabel("Find a user of the export").fill("zzz");
  await picker.getByText("No user of the export matches.").waitFor();
  assert.ok(await picker.getByRole("radio", { name: /^admin/ }).isChecked(), "the choice stays");
  await picker.getByLabel("Find a user of the export").fill("");
  await checkAccessibility(page, "the import with a v4 export read");
  await screenshots(page, "admin-transfer-read", kind);
  const answered = page.waitForResponse((r) => r.url().endsWith("/api/server/import/v4"));
  await form.getByRole("button", { name: "Import" }).click();
  const reply = await (await answered).json();

  const counts = page.getByRole("definition");
  const result = page.getByRole("region", { name: "Import result" });
  await result.waitFor();
  const shown = Object.fromEntries(
    await result.getByRole("term").evaluateAll((terms) =>
      terms.map((t) => [t.textContent, Number(t.nextElementSibling?.textContent)])
    ),
  );
  assert.deepEqual(shown, reply.imported, "the page shows the API's counts");
  assert.deepEqual(
    [shown.users, shown.oauthProviders, shown.quotas, shown.passkeys, shown.folders, shown.files],
    [4, 3, 2, 1, 5, 8],
    "the reference's counts (the exported admin merged into this one, not skipped as a name " +
      "taken)",
  );
  for (const s of reply.skipped as { kind: string; reason: string; count: number }[]) {
    await result.getByText(`${s.count} ${s.kind}: ${s.reason}`).waitFor();
  }
  assert.ok(await counts.count() > 0);
  await screenshots(page, "admin-transfer", kind);

  // The export, downloaded: a v4 document with the imported users.
  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download the export" }).click();
  const file = await (await download).path();
  const document = JSON.parse(await Deno.readTextFile(file));
  assert.equal(document.versions.export, "4");
  assert.deepEqual(
    document.data.users.map((u: { username: string }) => u.username).sort(),
    ["admin", "kenji", "lena", "maria"],
  );

  // Maintenance: each task answers beside its button.
  await page.getByRole("link", { name: "Maintenance" }).click();
  await page.waitForURL(`${origin}/dashboard/admin/maintenance`);
  await page.getByText("No file has a size of 0.").waitFor();
  for (
    const [task, button] of [
      ["Temporary files", "Clear temporary files"],
      ["File sizes", "Re-read file sizes"],
      ["Thumbnails", "Make thumbnails"],
    ]
  ) {
    const region = page.getByRole("region", { name: task });
    await region.getByRole("button", { name: button }).click();
    await region.getByRole("status").waitFor();
  }
  await screenshots(page, "admin-maintenance", kind);

  // Webhooks: the signing secret, hidden until revealed, then rotated after a confirm.
  await page.getByRole("link", { name: "Webhooks" }).click();
  const secret = page.getByRole("textbox", { name: "Signing secret" });
  assert.doesNotMatch(await secret.inputValue(), /^whsec_/);
  await page.getByRole("button", { name: "Reveal" }).click();
  const derived = await secret.inputValue();
  assert.match(derived, /^whsec_[0-9a-f]{64}$/);
  await page.getByRole("button", { name: "Rotate secret" }).click();
  await page.getByRole("dialog", { name: "Replace the signing secret?" })
    .getByRole("button", { name: "Rotate secret" }).click();
  await eventually("the rotated secret", async () => await secret.inputValue() !== derived);
  const rotated = await secret.inputValue();
  assert.match(rotated, /^whsec_[0-9a-f]{64}$/);
  const status = await (await asUser(context, origin, "GET", "/api/server/webhooks")).json();
  assert.equal(status.secret, rotated, "the page shows the secret in force");
  await page.getByRole("table", { name: "Webhook targets" }).getByText("httpWebhookOnUpload")
    .waitFor();
  // A test event to a target that does not answer: queued, then waiting for its retry.
  const unset = page.getByRole("button", { name: "Send a test event (shorten, http webhook)" });
  await unset.click();
  await page.getByRole("alert").filter({ hasText: "No http webhook is set for shorten events" })
    .waitFor();
  const receiver = startReceiver();
  try {
    const patched = await asUser(context, origin, "PATCH", "/api/server/settings", {
      webhooksAllowedHosts: ["127.0.0.1"],
      httpWebhookOnUpload: "http://127.0.0.1:9/closed",
      httpWebhookOnShorten: receiver.url,
    });
    assert.equal(patched.status, 200);
    await page.reload();
    await page.getByRole("button", { name: "Send a test event (upload, http webhook)" })
      .click();
    await page.getByRole("status").filter({ hasText: "Queued." }).waitFor();
    const outbox = page.getByRole("table", { name: "Waiting deliveries" });
    await outbox.getByRole("cell", { name: "http upload: http://127.0.0.1:9/closed" }).waitFor();

    // A test event to a receiver that answers: delivered, signed with the rotated secret, and
    // listed among the finished deliveries once the page is refreshed.
    await page.getByRole("button", { name: "Send a test event (shorten, http webhook)" })
      .click();
    await eventually("the delivery", () => Promise.resolve(receiver.received.length > 0));
    const [got] = receiver.received;
    const timestamp = got.headers.get("x-service-webhook-timestamp");
    assert.equal(
      got.headers.get("x-service-signature"),
      "sha256=" + createHmac("sha256", rotated).update(`${timestamp}.${got.body}`).digest("hex"),
    );
    const finished = page.getByRole("table", { name: "Finished deliveries" });
    await eventually("the finished delivery on the page", async () => {
      await page.getByRole("button", { name: "Refresh" }).click();
      return await finished.getByRole("row", { name: `http shorten: ${receiver.url}` })
        .count() > 0;
    });
    const row = finished.getByRole("row", { name: `http shorten: ${receiver.url}` });
    await row.getByRole("cell", { name: "delivered", exact: true }).waitFor();
    await row.getByRole("cell", { name: "HTTP 200", exact: true }).waitFor();
    await screenshots(page, "admin-webhooks", kind);
  } finally {
    await receiver.close();
  }

  // The one 400 is the unset target's, on purpose.
  assert.deepEqual(problems.filter((p) => !p.includes("status of 400")), []);
  await context.close();
}

browserTestOnStores(
  "import and export: the v4 fixture imported through the page shows the reference counts " +
    "and skipped records; the export downloads; maintenance tasks answer; webhooks: the " +
    "secret revealed and rotated, a test event queued and waiting for its retry, another " +
    "delivered (signed with the new secret) and listed as finished",
  { SERVICE_RATELIMIT_ENABLED: "false" },
  transferJourney,
);
