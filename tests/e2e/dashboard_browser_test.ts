/**
 * The dashboard in a real browser against the real server, on both stores:
 * sign in; upload by picker and by drop with a progress bar; a large upload
 * (tus) cut off midway that resumes after the page is reloaded; the file found by
 * search and given a password in its panel, then opened by a stranger with
 * it; a URL shortened; a public folder uploaded to anonymously; a tag; an
 * invite used to register; the token regenerated and a ShareX configuration
 * downloaded and used. Screenshots of each page in light, dark and phone width.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import {
  browserTestOnStores,
  openUserMenu,
  screenshots,
  setupAdmin,
  signIn,
  waitInPage,
  watchProblems,
} from "../helpers/browser.ts";
import { drop, sendStaged, uploadedLink } from "../helpers/dashboard.ts";
import { redSquare } from "../helpers/images.ts";
import type { StoreKind } from "../helpers/stores.ts";

/** Chunks of 64 KiB, so a 320 KiB file takes five requests. */
const CHUNK = 64 * 1024;

async function journey(browser: Browser, origin: string, kind: StoreKind, dir: string) {
  await setupAdmin(origin);
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems = watchProblems(page, false);
  await page.goto(`${origin}/auth/login`);
  await screenshots(page, "login", kind);
  await signIn(page, origin);
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  await page.getByText("Nothing uploaded yet.").waitFor();

  // Upload by picker: two files at once, each with its link.
  await page.getByRole("link", { name: "File", exact: true }).click();
  await page.waitForURL(`${origin}/dashboard/upload`);
  await page.getByLabel("Files to upload").setInputFiles([
    { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("my notes") },
    { name: "todo.txt", mimeType: "text/plain", buffer: Buffer.from("buy milk") },
  ]);
  // Listed first, then sent with one button.
  await page.getByRole("button", { name: "Upload 2 files (16 B)" }).click();
  // A text file's link opens its page (as in Zipline); its bytes are under /raw/.
  const notes = await uploadedLink(page, "notes.txt");
  const raw = (link: string) => link.replace("/u/", "/raw/");
  assert.match((await fetch(notes)).url, /\/view\//);
  assert.equal(await (await fetch(raw(notes))).text(), "my notes");
  assert.equal(await (await fetch(raw(await uploadedLink(page, "todo.txt")))).text(), "buy milk");

  // Upload by drop.
  await drop(page, { "dropped.txt": "dropped text" });
  await sendStaged(page);
  assert.equal(
    await (await fetch(raw(await uploadedLink(page, "dropped.txt")))).text(),
    "dropped text",
  );
  // A snippet of code from the paste area, stored as a file.
  await page.getByLabel("File name", { exact: true }).fill("hello.ts");
  await page.getByLabel("Text", { exact: true }).fill("const answer: number = 42;\n");
  await page.getByRole("button", { name: "Upload text" }).click();
  const snippet = await uploadedLink(page, "hello.ts");
  assert.equal(await (await fetch(raw(snippet))).text(), "const answer: number = 42;\n");
  await screenshots(page, "upload", kind);

  // A large upload (through tus, signed in) cut off after two chunks, resumed after a reload.
  const big = new Uint8Array(5 * CHUNK);
  crypto.getRandomValues(big.subarray(0, 65536));
  for (let i = 65536; i < big.length; i++) big[i] = (i * 7) & 0xff;
  const bigPath = join(dir, "big.bin");
  await Deno.writeFile(bigPath, big);
  let chunks = 0;
  await page.route("**/api/upload/tus/**", async (route) => {
    if (route.request().method() !== "PATCH") return await route.continue();
    chunks++;
    if (chunks <= 2) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await route.continue();
    } else await route.abort("internetdisconnected");
  });
  await page.getByLabel("Files to upload").setInputFiles(bigPath);
  await sendStaged(page);
  await page.getByRole("progressbar", { name: "Progress of big.bin" }).waitFor();
  while (chunks < 3) await new Promise((resolve) => setTimeout(resolve, 50));
  await page.unroute("**/api/upload/tus/**");
  await page.reload();
  await page.getByText("Unfinished: big.bin").waitFor();
  let resumed = 0;
  page.on("request", (request) => {
    if (request.method() === "PATCH" && request.url().includes("/api/upload/tus/")) resumed++;
  });
  await page.getByLabel("Files to upload").setInputFiles(bigPath);
  await sendStaged(page);
  const bigLink = await uploadedLink(page, "big.bin");
  // tus-js-client retries at once: a retry may land between the unroute and the reload.
  assert.ok(resumed >= 1 && resumed <= 3, `only missing chunks are sent again (${resumed})`);
  const served = new Uint8Array(await (await fetch(bigLink)).arrayBuffer());
  assert.deepEqual(served, big, "the resumed file is whole");
  await page.getByText(/^Unfinished/).waitFor({ state: "detached" });

  // Home shows the counts and the recent uploads.
  await page.getByRole("link", { name: "Home", exact: true }).click();
  const bigName = new URL(bigLink).pathname.split("/").pop()!;
  await page.getByRole("link", { name: bigName, exact: true }).waitFor();
  const summary = page.getByRole("region", { name: "Summary" });
  assert.match(await summary.innerText(), /Files\s+5\b/);
  await screenshots(page, "home", kind);

  // Files: find a file by search, in the grid and in the list.
  await page.getByRole("link", { name: "Files", exact: true }).click();
  await page.waitForURL(`${origin}/dashboard/files`);
  await page.getByText("5 files").waitFor();
  await page.getByLabel("Search by name").fill(new URL(notes).pathname.split("/").pop()!);
  await page.getByText("1 file", { exact: true }).waitFor();
  // Its panel: a password set there, and an anonymous visitor asked for it.
  const notesName = new URL(notes).pathname.split("/").pop()!;
  await page.getByRole("button", { name: `Details of ${notesName}` }).click();
  const panel = page.getByRole("dialog", { name: notesName });
  await panel.locator("pre").getByText("my notes").waitFor();
  await screenshots(page, "file-panel", kind);
  await panel.getByLabel("Password", { exact: true }).fill("hunter2");
  await panel.getByRole("button", { name: "Save" }).click();
  await panel.waitFor({ state: "detached" });
  const stranger = await browser.newContext();
  const strangerPage = await stranger.newPage();
  await strangerPage.goto(notes);
  await strangerPage.getByLabel("Password").fill("hunter2");
  await screenshots(strangerPage, "view-password", kind);
  await Promise.all([
    strangerPage.waitForEvent("load"),
    strangerPage.getByRole("button", { name: "Open" }).click(),
  ]);
  await strangerPage.getByText("my notes").waitFor();
  await screenshots(strangerPage, "view", kind);
  await stranger.close();

  // Code is highlighted in its panel.
  const snippetName = new URL(snippet).pathname.split("/").pop()!;
  await page.getByLabel("Search by name").fill(snippetName);
  await page.getByRole("button", { name: `Details of ${snippetName}` }).click();
  const code = page.getByRole("dialog").getByRole("region", { name: `Text of ${snippetName}` });
  await code.locator('.code[data-language="typescript"] .hljs-keyword').first().waitFor();
  await page.getByRole("dialog").getByRole("button", { name: "Close" }).click();

  await page.getByRole("button", { name: "List view" }).click();
  await page.getByRole("table", { name: "Files" }).waitFor();
  await page.getByLabel("Search by name").fill("");
  await page.getByText("5 files").waitFor();
  await screenshots(page, "files-list", kind);
  await page.getByRole("button", { name: "Grid view" }).click();
  await screenshots(page, "files-grid", kind);

  // URLs: shorten one with a vanity, and follow its link.
  await page.getByRole("link", { name: "URLs", exact: true }).click();
  await page.waitForURL(`${origin}/dashboard/urls`);
  await page.getByText("No short URLs yet.").waitFor();
  await page.getByLabel("Destination").fill("https://example.com/a/long/page");
  await page.getByLabel("Vanity (optional)").fill("docs");
  await page.getByRole("button", { name: "Shorten", exact: true }).click();
  const short = await page.getByLabel("Link to docs").first().inputValue();
  assert.equal(short, `${origin}/go/docs`);
  const redirect = await fetch(short, { redirect: "manual" });
  await redirect.body?.cancel();
  assert.equal(redirect.headers.get("location"), "https://example.com/a/long/page");
  await page.getByRole("list", { name: "Short URLs" }).getByText("docs", { exact: true }).waitFor();
  await page.getByRole("button", { name: "QR code for docs" }).first().click();
  await page.getByRole("img", { name: "QR code of the link to docs" }).first().waitFor();
  await screenshots(page, "urls", kind);

  // Account: regenerate the token, then a ShareX config uploads with the headers it holds.
  await openUserMenu(page);
  await page.getByRole("link", { name: "Account", exact: true }).click();
  await page.waitForURL(`${origin}/dashboard/settings`);
  await page.getByRole("button", { name: "Show token" }).click();
  const before = await page.getByRole("textbox", { name: "API token" }).inputValue();
  await page.getByRole("button", { name: "Regenerate token" }).click();
  await page.getByRole("dialog", { name: "Replace the token?" })
    .getByRole("button", { name: "Regenerate token" }).click();
  await page.getByText("A new token was made").waitFor();
  const after = await page.getByRole("textbox", { name: "API token" }).inputValue();
  assert.notEqual(after, before);
  const old = await fetch(`${origin}/api/user`, { headers: { authorization: before } });
  await old.body?.cancel();
  assert.equal(old.status, 401, "the old token no longer works");
  await page.getByText("Upload options").click();
  await page.getByLabel("Name format").selectOption("uuid");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "ShareX: files" }).click(),
  ]);
  const sxcu = JSON.parse(await Deno.readTextFile((await download.path())!));
  assert.equal(sxcu.RequestURL, `${origin}/api/upload`);
  // The config holds an upload-only key made for it (issue #34), not the token.
  assert.match(sxcu.Headers.Authorization, /^fk_/);
  const form = new FormData();
  form.append(sxcu.FileFormName, new Blob(["from sharex"], { type: "text/plain" }), "shot.txt");
  const viaSharex = await fetch(sxcu.RequestURL, {
    method: sxcu.RequestMethod,
    headers: sxcu.Headers,
    body: form,
  });
  assert.equal(viaSharex.status, 200);
  const stored = (await viaSharex.json()).files[0];
  assert.match(stored.url, /\/u\/[0-9a-f-]{36}\.txt$/, "the config's name format applies");
  // The avatar, cropped to a square in the page, and the embed card of file pages.
  await page.getByLabel("Image", { exact: true }).setInputFiles({
    name: "me.png",
    mimeType: "image/png",
    buffer: Buffer.from(redSquare(64)),
  });
  await page.getByRole("img", { name: "The cropped avatar" }).waitFor();
  await page.getByRole("button", { name: "Save avatar" }).click();
  await page.getByText("Avatar saved.").waitFor();
  const avatar = await (await fetch(`${origin}/api/user/avatar`, {
    headers: { authorization: after },
  })).text();
  assert.match(avatar, /^data:image\/png;base64,/);
  await page.getByRole("checkbox", { name: "Show a card when a link is pasted in a chat" }).check();
  await page.getByLabel("Card title").fill("{file.name} by {user.username}");
  await page.getByRole("img", { name: "Preview of the card" }).getByText("aB3dE9.png by admin")
    .waitFor();
  await page.getByRole("form", { name: "File pages and embeds" })
    .getByRole("button", { name: "Save" }).click();
  await page.getByText("Saved.", { exact: true }).waitFor();
  const card = await (await fetch(`${origin}/view/${bigName}`)).text();
  assert.ok(card.includes(`<meta property="og:title" content="${bigName} by admin"/>`));
  await screenshots(page, "account", kind);

  // Folders: a public folder open for uploads, and an anonymous visitor uploading into it.
  await page.getByRole("link", { name: "Folders", exact: true }).click();
  await page.waitForURL(`${origin}/dashboard/folders`);
  await page.getByLabel("Folder name").fill("Drop box");
  await page.getByRole("checkbox", { name: "Public" }).check();
  await page.getByRole("button", { name: "Create folder" }).click();
  const row = page.getByRole("listitem").filter({ hasText: "Drop box" });
  await row.getByRole("checkbox", { name: "Anyone may upload" }).check();
  const folderLink = await row.getByRole("textbox", { name: "Link to the public page of Drop box" })
    .inputValue();
  await screenshots(page, "folders", kind);
  const visitor = await browser.newContext();
  const anonymous = await visitor.newPage();
  const visitorProblems = watchProblems(anonymous, false);
  await anonymous.goto(folderLink);
  await anonymous.getByRole("heading", { name: "Drop box" }).waitFor();
  await anonymous.getByText("0 files").waitFor();
  await anonymous.getByLabel("Files to upload").setInputFiles({
    name: "gift.txt",
    mimeType: "text/plain",
    buffer: Buffer.from("a gift"),
  });
  await anonymous.getByText("1 file", { exact: true }).waitFor();
  await screenshots(anonymous, "public-folder", kind);
  assert.deepEqual(visitorProblems, []);
  await visitor.close();
  const folderId = new URL(folderLink).pathname.split("/").pop()!;
  const inFolder = await page.evaluate(`fetch("/api/user/files?page=1&folder=${folderId}")
    .then((r) => r.json()).then((b) => b.page.map((f) => f.originalName ?? f.name))`);
  assert.equal((inFolder as string[]).length, 1, "the anonymous upload is in the owner's folder");

  // Tags: a coloured tag.
  await page.getByRole("link", { name: "Tags", exact: true }).click();
  await page.waitForURL(`${origin}/dashboard/tags`);
  await page.getByLabel("Tag name").fill("work");
  await page.getByRole("button", { name: "Create tag" }).click();
  await page.getByRole("textbox", { name: "Name of work" }).waitFor();
  await screenshots(page, "tags", kind);

  // Invites, on their own page from the Administration group: one someone uses to register.
  await page.getByRole("navigation", { name: "Administration" })
    .getByRole("link", { name: "Invites" }).click();
  await page.waitForURL(`${origin}/dashboard/admin/invites`);
  await page.getByLabel("Max uses").fill("1");
  await page.getByRole("button", { name: "Create invite" }).click();
  const inviteLink = await page.getByRole("list", { name: "Invites" })
    .getByRole("textbox").first().inputValue();
  await screenshots(page, "invites", kind);
  const guest = await browser.newContext();
  const newcomer = await guest.newPage();
  await newcomer.goto(inviteLink);
  await newcomer.waitForURL(/\/auth\/register/);
  await screenshots(newcomer, "register", kind);
  await newcomer.getByLabel("Username").fill("newcomer");
  await newcomer.getByLabel("Password").fill("a-long-password");
  await newcomer.getByRole("button", { name: "Create the account" }).click();
  await newcomer.waitForURL(`${origin}/dashboard`);
  assert.equal(await newcomer.locator("#signed-in-as").textContent(), "newcomer");
  await guest.close();
  await page.reload();
  await page.getByText("used 1 of 1").waitFor();

  // security #1: a PNG (a passive type) still previews inline in its panel.
  const png = new FormData();
  png.append("file", new Blob([redSquare(8) as BlobPart], { type: "image/png" }), "red.png");
  const pngUpload = await fetch(`${origin}/api/upload`, {
    method: "POST",
    headers: { authorization: after },
    body: png,
  });
  const pngName = (await pngUpload.json()).files[0].name;
  await page.getByRole("link", { name: "Files", exact: true }).click();
  await page.getByLabel("Search by name").fill(pngName);
  await page.getByRole("button", { name: `Details of ${pngName}` }).click();
  const preview = page.getByRole("dialog").getByRole("img", { name: `Preview of ${pngName}` });
  await preview.waitFor();
  await waitInPage(page, `document.querySelector("img.preview")?.naturalWidth === 8`);
  await page.getByRole("dialog").getByRole("button", { name: "Close" }).click();
  await page.getByLabel("Search by name").fill("");

  // The tag on a selected file, and the files filtered by it.
  await page.getByRole("link", { name: "Files", exact: true }).click();
  await page.getByRole("checkbox", { name: `Select ${notesName}` }).check();
  const zipHref = await page.getByRole("link", { name: "Download as zip" }).getAttribute("href");
  assert.equal(await page.evaluate(`fetch(${JSON.stringify(zipHref)}).then((r) => r.status)`), 200);
  await page.getByLabel("Add a tag").selectOption({ label: "work" });
  await page.getByRole("region", { name: "Selected files" }).waitFor({ state: "detached" });
  await page.getByLabel("Tag", { exact: true }).selectOption({ label: "work" });
  await page.getByText("1 file", { exact: true }).waitFor();
  await page.getByRole("button", { name: `Details of ${notesName}` }).waitFor();

  await openUserMenu(page);
  await page.getByRole("link", { name: "Security", exact: true }).click();
  await page.getByRole("heading", { name: "Security" }).waitFor();
  await screenshots(page, "security", kind);

  assert.deepEqual(problems.filter((p) => !p.includes("ERR_INTERNET_DISCONNECTED")), []);
  await context.close();
}

browserTestOnStores(
  "the dashboard: sign in, upload by picker and drop, resume a chunked " +
    "upload after a reload, find the file, shorten a URL, an anonymous upload to a public folder, " +
    "a tag, register with an invite, regenerate the token, use ShareX",
  { SERVICE_CHUNKS_SIZE: String(CHUNK) },
  ({ browser, origin, kind, dir }) => journey(browser, origin, kind, dir),
);
