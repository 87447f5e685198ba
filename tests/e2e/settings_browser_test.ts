/**
 * Issue #33 item 9 in a real browser against the real server, on both
 * stores: the server settings page shows each key under its human label with
 * its help text, in tabs of Zipline's categories (arrow keys move between
 * them); a value saved in one tab is stored; a Discord embed is edited by a
 * form, not JSON, and stored as the object the API takes; search finds keys
 * by label and by key across every tab. axe-core in light and dark;
 * screenshots in light, dark and phone width.
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

async function journey({ browser, origin, kind }: JourneyContext) {
  const cookie = await setupAdmin(origin);
  const settings = async () =>
    (await (await fetch(`${origin}/api/server/settings`, { headers: { cookie } })).json())
      .settings;
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems = watchProblems(page, false);
  await signIn(page, origin);
  await page.goto(`${origin}/dashboard/admin/settings`);

  // Tabs of Zipline's categories; the first is Core, its keys under their labels.
  const tabs = page.getByRole("tablist", { name: "Setting categories" });
  await tabs.waitFor();
  const names = await tabs.getByRole("tab").allInnerTexts();
  for (const c of ["Core", "Files", "URLs", "Website", "HTTP webhooks", "Discord webhooks"]) {
    assert.ok(names.includes(c), `a ${c} tab`);
  }
  assert.equal(await tabs.getByRole("tab", { name: "Core" }).getAttribute("aria-selected"), "true");
  const https = page.getByRole("switch", { name: "Return HTTPS URLs" });
  await https.waitFor();
  assert.match(await https.getAttribute("aria-describedby") ?? "", /coreReturnHttpsUrls-about/);
  await page.getByText("coreReturnHttpsUrls", { exact: true }).waitFor();
  await page.getByText(/Build returned URLs with https/).waitFor();
  await checkAccessibility(page, "server settings (Core)");

  // Arrow keys move between the tabs.
  await tabs.getByRole("tab", { name: "Core" }).focus();
  await page.keyboard.press("ArrowRight");
  assert.equal(
    await tabs.getByRole("tab", { name: "Chunked uploads" }).getAttribute("aria-selected"),
    "true",
  );
  await page.getByLabel("Chunk size", { exact: true }).waitFor();

  // A value saved in the Files tab.
  await tabs.getByRole("tab", { name: "Files", exact: true }).click();
  await page.getByLabel("Largest file", { exact: true }).fill("50mb");
  await page.getByRole("button", { name: "Save 1 changed" }).click();
  await page.getByRole("button", { name: "Nothing changed" }).waitFor();
  assert.equal((await settings()).filesMaxFileSize, "50mb");

  // The upload embed, by its form.
  await tabs.getByRole("tab", { name: "Discord webhooks" }).click();
  const embed = page.getByRole("group", { name: "Upload: embed" });
  await embed.getByLabel("Send an embed").check();
  await embed.getByLabel("Embed title").fill("New upload: {file.name}");
  await embed.getByLabel("Embed colour").fill("#5865f2");
  await embed.getByLabel("Show the time").check();
  await checkAccessibility(page, "server settings (Discord webhooks, embed form open)");
  await screenshots(page, "server-settings-embed", kind);
  await page.getByRole("button", { name: "Save 1 changed" }).click();
  await page.getByRole("button", { name: "Nothing changed" }).waitFor();
  assert.deepEqual((await settings()).chatOnUploadEmbed, {
    title: "New upload: {file.name}",
    description: null,
    footer: null,
    color: "#5865f2",
    thumbnail: false,
    imageOrVideo: false,
    timestamp: true,
    url: false,
  });

  // After a reload the form shows it, unchanged.
  await page.reload();
  await tabs.getByRole("tab", { name: "Discord webhooks" }).click();
  assert.equal(await embed.getByLabel("Embed title").inputValue(), "New upload: {file.name}");
  await page.getByRole("button", { name: "Nothing changed" }).waitFor();

  // Search by label and by key, across the tabs.
  const search = page.getByLabel("Search settings by name or key");
  await search.fill("no such setting");
  await page.getByText("No setting matches.").waitFor();
  await search.fill("return https");
  await page.getByRole("switch", { name: "Return HTTPS URLs" }).waitFor();
  assert.equal(await tabs.count(), 0, "search shows every category's matches, without tabs");
  await search.fill("filesMaxFileSize");
  assert.equal(await page.getByLabel("Largest file", { exact: true }).inputValue(), "50mb");
  await screenshots(page, "server-settings-search", kind);
  await search.fill("");
  await tabs.waitFor();
  await screenshots(page, "server-settings", kind);

  // The external links, as rows: Ferry's own help by default; one added, one removed.
  await tabs.getByRole("tab", { name: "Website" }).click();
  const links = page.getByRole("group", { name: "External links" });
  assert.equal(await links.getByLabel("Link 1 URL").inputValue(), "/api/docs");
  assert.equal(await links.getByLabel("Link 2 URL").inputValue(), "/dashboard/help");
  await links.getByRole("button", { name: "Add a link" }).click();
  await links.getByLabel("Link 3 name").fill("Status");
  await links.getByLabel("Link 3 URL").fill("https://status.example.com");
  await links.getByRole("button", { name: "Remove link 2" }).click();
  await checkAccessibility(page, "server settings (Website, external links)");
  await screenshots(page, "server-settings-links", kind);
  await page.getByRole("button", { name: "Save 1 changed" }).click();
  await page.getByRole("button", { name: "Nothing changed" }).waitFor();
  assert.deepEqual((await settings()).websiteExternalLinks, [
    { name: "API reference", url: "/api/docs" },
    { name: "Status", url: "https://status.example.com" },
  ]);
  await page.reload();
  await page.locator("#sidebar").getByRole("link", { name: "Status" }).waitFor();
  await tabs.getByRole("tab", { name: "Discord webhooks" }).click();

  // Disabling the embed sends null.
  await tabs.getByRole("tab", { name: "Discord webhooks" }).click();
  await embed.getByLabel("Send an embed").uncheck();
  await page.getByRole("button", { name: "Save 1 changed" }).click();
  await page.getByRole("button", { name: "Nothing changed" }).waitFor();
  assert.equal((await settings()).chatOnUploadEmbed, null);

  assert.deepEqual(problems, []);
  await context.close();
}

browserTestOnStores(
  "item 9: settings by label in category tabs, an embed and the external links by their forms, search by label and key",
  { SERVICE_RATELIMIT_ENABLED: "false" },
  journey,
);

/** The phone drawer of an administrator, who has every link: all of them above the fold at 360 px. */
async function phoneDrawer({ browser, origin }: JourneyContext) {
  await setupAdmin(origin);
  const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  await signIn(page, origin);
  await page.getByRole("button", { name: "Menu", exact: true }).click();
  const links = page.locator("#sidebar a");
  await links.last().waitFor();
  const last = await links.last().boundingBox();
  assert.ok(
    last && last.y + last.height <= 740,
    `the last link ends at ${last?.y} + ${last?.height}`,
  );
  const version = await page.locator("#version").boundingBox();
  assert.ok(version && version.y + version.height <= 740, `the version ends at ${version?.y}`);
  await context.close();
}

browserTestOnStores(
  "the phone drawer shows every link down to the last without scrolling at 360 × 740",
  {},
  phoneDrawer,
);
