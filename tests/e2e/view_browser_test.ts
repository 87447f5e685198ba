/**
 * A file's page in a real browser against the real server process: an image
 * shown under the page's strict CSP, and a password-protected file reached
 * through the files route, its password refused then accepted, the file shown
 * after the page reloads with its cookie. On both stores: the owner's view
 * settings edited on the Account page and drawn on the page (type, tags,
 * folder, their own Markdown, centred); TeX typeset by KaTeX and an
 * asciinema recording played, on the page and in the dashboard's file panel,
 * their styles and fonts from Ferry. Debian's chromium, playwright-core.
 */
import assert from "node:assert/strict";
import {
  browserTestOnStores,
  checkAccessibility,
  launchChromium,
  NO_BROWSER,
  screenshot,
  screenshots,
  setupAdmin,
  signIn,
  waitInPage,
  watchProblems,
} from "../helpers/browser.ts";
import { redSquare } from "../helpers/images.ts";
import { startServer } from "../helpers/process.ts";
/** The password route allows two attempts a second per client. */
const ATTEMPT_INTERVAL_MS = 1100;

Deno.test({
  name: "e2e: the file page shows an image, and opens a protected file with its password",
  ignore: NO_BROWSER,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "ferry-view-" });
    const server = await startServer({ env: { SERVICE_DATA_DIR: dir } });
    const browser = await launchChromium();
    try {
      const cookie = await setupAdmin(server.origin);
      const upload = async (name: string, type: string, content: BlobPart, password?: string) => {
        const form = new FormData();
        form.append("file", new Blob([content], { type }), name);
        const res = await fetch(`${server.origin}/api/upload`, {
          method: "POST",
          body: form,
          headers: { cookie, ...(password ? { "x-service-password": password } : {}) },
        });
        assert.equal(res.status, 200);
        return (await res.json()).files[0] as { id: string; name: string };
      };
      const red = redSquare(4);
      const image = await upload("red.png", "image/png", red as BlobPart);
      const secret = await upload("notes.txt", "text/plain", "the secret notes", "hunter2");

      const context = await browser.newContext();
      const page = await context.newPage();
      const problems = watchProblems(page);

      // An image: shown, under the page's CSP, its view counted by /raw.
      const shown = await page.goto(`${server.origin}/view/${image.name}`);
      assert.match((await shown?.allHeaders())?.["content-security-policy"] ?? "", /media-src/);
      const img = page.locator("#file-image");
      await img.waitFor();
      // Strings: these run in the page, whose DOM types this file does not know.
      await waitInPage(page, "document.getElementById('file-image').complete");
      assert.equal(await page.evaluate("document.getElementById('file-image').naturalWidth"), 4);
      assert.equal(await page.locator("#file-size").textContent(), `${red.byteLength} B`);
      await screenshot(page, "view-image");
      const record = await fetch(`${server.origin}/api/user/files/${image.id}`, {
        headers: { cookie },
      });
      assert.equal((await record.json()).views, 1);

      // A protected file through the files route: the page asks for the password.
      await page.goto(`${server.origin}/u/${secret.name}`);
      assert.equal(page.url(), `${server.origin}/view/${secret.name}`);
      await page.getByLabel("Password").fill("wrong");
      await page.getByRole("button", { name: "Open" }).click();
      await page.locator("#message.error").getByText("Incorrect password").waitFor();
      assert.deepEqual(problems.splice(0), [
        `403 ${server.origin}/api/user/files/${secret.id}/password`,
        "console: Failed to load resource: the server responded with a status of 403 (Forbidden)",
      ], "only the refused attempt");
      await screenshot(page, "view-password");

      await page.waitForTimeout(ATTEMPT_INTERVAL_MS);
      await page.getByLabel("Password").fill("hunter2");
      await Promise.all([
        page.waitForEvent("load"),
        page.getByRole("button", { name: "Open" }).click(),
      ]);
      await page.locator("#text-preview").getByText("the secret notes").waitFor();
      assert.equal(await page.locator("#file-password-form").count(), 0);
      const cookies = await context.cookies();
      const access = cookies.find((c) => c.name === `file_pw_${secret.id}`);
      assert.equal(access?.value, "hunter2");
      assert.equal(access?.httpOnly, false);
      await screenshot(page, "view-unlocked");

      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** A short asciinema recording (asciicast v2): a prompt, a command and its output. */
const RECORDING = [
  JSON.stringify({ version: 2, width: 40, height: 8, title: "demo" }),
  JSON.stringify([0.2, "o", "$ "]),
  JSON.stringify([0.6, "o", "echo hello ferry\r\n"]),
  JSON.stringify([0.9, "o", "hello ferry\r\n$ "]),
  "",
].join("\n");

/** Two formulas, typeset one under the other. */
const FORMULAS = "\\int_0^1 x^2 \\, dx = \\frac{1}{3}\n\ne^{i\\pi} + 1 = 0\n";

browserTestOnStores(
  "the file page: the owner's view settings, KaTeX and asciinema, on the page and in the panel",
  {},
  async ({ browser, origin, kind }) => {
    const cookie = await setupAdmin(origin);
    const send = async (name: string, type: string, content: BlobPart) => {
      const form = new FormData();
      form.append("file", new Blob([content], { type }), name);
      const res = await fetch(`${origin}/api/upload`, {
        method: "POST",
        body: form,
        headers: { cookie, "x-service-original-name": "true" },
      });
      assert.equal(res.status, 200);
      return (await res.json()).files[0] as { id: string; name: string };
    };
    const api = async (method: string, path: string, body: unknown) => {
      const res = await fetch(`${origin}${path}`, {
        method,
        body: JSON.stringify(body),
        headers: { cookie, "content-type": "application/json", origin },
      });
      assert.equal(res.status, 200, await res.clone().text());
      return await res.json();
    };
    const photo = await send("harbour.png", "image/png", redSquare(8) as BlobPart);
    const tex = await send("euler.tex", "text/x-tex", FORMULAS);
    const broken = await send(
      "paper.tex",
      "text/x-tex",
      "\\documentclass{article}\n\\begin{document}",
    );
    const cast = await send("demo.cast", "application/x-asciicast", RECORDING);
    const tag = await api("POST", "/api/user/tags", { name: "seaside", color: "#1b6e3a" });
    await api("PATCH", `/api/user/files/${photo.id}`, { tags: [tag.id] });
    const folder = await api("POST", "/api/user/folders", { name: "Holidays", isPublic: true });
    await api("PUT", `/api/user/folders/${folder.id}`, { id: photo.id });

    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    const elsewhere: string[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).origin !== origin) elsewhere.push(request.url());
    });
    await signIn(page, origin);

    // The Account page: what the file's page shows, with visible labels, saved and kept.
    await page.goto(`${origin}/dashboard/settings`);
    const form = page.getByRole("form", { name: "File pages and embeds" });
    await form.getByLabel("Show the file's type").check();
    await form.getByLabel("Show the file's tags").check();
    await form.getByLabel("Show the file's folder").check();
    await form.getByLabel("Text under the file (Markdown)").fill(
      "**Shared by {user.username}**: [the raw file]({link.raw})",
    );
    await form.getByLabel("Alignment of the text").selectOption("center");
    await form.getByRole("group", { name: "The file's page" }).scrollIntoViewIfNeeded();
    await checkAccessibility(page, "the account page's file page settings");
    await screenshots(page, "account-view-settings", kind);
    await form.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").getByText("Saved.").waitFor();
    await page.reload();
    const again = page.getByRole("form", { name: "File pages and embeds" });
    assert.equal(await again.getByLabel("Show the file's tags").isChecked(), true, "kept");
    assert.equal(await again.getByLabel("Alignment of the text").inputValue(), "center");
    const me = await (await fetch(`${origin}/api/user`, { headers: { cookie } })).json();
    assert.equal(me.user.view.showFolder, true);
    assert.equal(me.user.view.align, "center");

    // The page draws them: type, tag, folder (a link to its public page), the text centred.
    await page.goto(`${origin}/view/${photo.name}`);
    assert.equal(await page.locator("#file-type").textContent(), "image/png");
    const labels = page.getByRole("list", { name: "Tags and folder" });
    await labels.getByText("seaside").waitFor();
    assert.equal(
      await labels.getByRole("link", { name: "Holidays" }).getAttribute("href"),
      `/folder/${folder.id}`,
    );
    const text = page.locator("#view-content");
    assert.equal(await text.locator("strong").textContent(), "Shared by admin");
    assert.equal(
      await text.getByRole("link", { name: "the raw file" }).getAttribute("href"),
      `${origin}/raw/${photo.name}`,
    );
    assert.equal(
      await page.evaluate("getComputedStyle(document.getElementById('view-content')).textAlign"),
      "center",
    );
    await checkAccessibility(page, "a file page with the owner's settings");
    await screenshots(page, "view-settings-page", kind);

    // TeX: typeset by KaTeX, each paragraph a formula, its fonts from Ferry.
    await page.goto(`${origin}/view/${tex.name}`);
    const typeset = page.locator("#text-preview.tex-view");
    await typeset.locator(".katex-display").nth(1).waitFor();
    assert.equal(await typeset.locator(".katex-display").count(), 2);
    assert.match(
      await typeset.locator("annotation").first().textContent() ?? "",
      /\\frac\{1\}\{3\}/,
    );
    await waitInPage(page, "document.fonts.check('16px KaTeX_Main')");
    assert.equal(
      await page.evaluate(
        "[...document.fonts].some((f) => f.family === 'KaTeX_Main' && f.status === 'loaded')",
      ),
      true,
      "KaTeX's font loaded from /assets under the CSP",
    );
    await checkAccessibility(page, "a TeX file's page");
    await screenshots(page, "view-katex", kind);

    // TeX KaTeX cannot read: the reason, then the source highlighted.
    await page.goto(`${origin}/view/${broken.name}`);
    await page.locator(".tex-error").getByText(/KaTeX could not typeset this file/).waitFor();
    await page.locator("#text-preview .code-view .hljs-keyword").first().waitFor();

    // A recording: asciinema's player, fed the bytes the page read.
    await page.goto(`${origin}/view/${cast.name}`);
    const player = page.locator("#cast-player .ap-wrapper");
    await player.waitFor();
    await player.locator(".ap-term").waitFor();
    await page.locator("#cast-player").click();
    // A locator, not a string predicate: the page's policy refuses evaluating strings.
    await page.locator("#cast-player .ap-term", { hasText: "hello ferry" }).waitFor();
    await checkAccessibility(page, "a recording's page");
    await screenshots(page, "view-asciinema", kind);

    // The dashboard's file panel: the same two.
    await page.goto(`${origin}/dashboard/files`);
    await page.getByRole("button", { name: `Details of ${tex.name}` }).first().click();
    const texPanel = page.getByRole("dialog", { name: tex.name });
    await texPanel.locator(".tex-view .katex-display").nth(1).waitFor();
    await checkAccessibility(page, "a TeX file's panel");
    await screenshots(page, "files-panel-katex", kind);
    await page.keyboard.press("Escape");
    await texPanel.waitFor({ state: "detached" });
    await page.getByRole("button", { name: `Details of ${cast.name}` }).first().click();
    const castPanel = page.getByRole("dialog", { name: cast.name });
    await castPanel.getByRole("region", { name: `Recording ${cast.name}` }).locator(".ap-wrapper")
      .waitFor();
    await checkAccessibility(page, "a recording's panel");
    await screenshots(page, "files-panel-asciinema", kind);

    assert.deepEqual(elsewhere, [], "nothing from another host");
    assert.deepEqual(problems, []);
  },
);
