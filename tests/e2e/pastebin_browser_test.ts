/**
 * Issue #33 item 5, the pastebin, in a real browser on both stores: a snippet
 * written with Tab indenting, its language picked from highlight.js's list,
 * previewed highlighted; its public page highlighted with line numbers, a copy
 * button and a raw link; a Markdown file rendered and sanitised (no script
 * runs, no event handler or `javascript:` link is left); highlight.js, marked
 * and DOMPurify fetched by the pages that use them only, under the CSP.
 */
import assert from "node:assert/strict";
import {
  browserTestOnStores,
  checkAccessibility,
  screenshots,
  setupAdmin,
  signIn,
  watchProblems,
} from "../helpers/browser.ts";
import { uploadedLink } from "../helpers/dashboard.ts";

const HOSTILE_MARKDOWN = [
  "# Release notes",
  "",
  "Some **bold** text and a [good link](https://example.com/).",
  "",
  "<script>window.pwned = 'script'</script>",
  '<img src="/nothing.png" onerror="window.pwned = \'onerror\'">',
  "<a href=\"javascript:window.pwned='link'\">click</a>",
  "[bad link](javascript:window.pwned='md')",
  '<div onclick="window.pwned=\'click\'" style="color:red">styled</div>',
  "",
  "| a | b |",
  "|---|---|",
  "| 1 | 2 |",
  "",
].join("\n");

browserTestOnStores(
  "the pastebin: language, Tab, preview, a highlighted page, safe Markdown",
  {},
  async ({ browser, origin, kind }) => {
    const cookie = await setupAdmin(origin);
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
    const page = await context.newPage();
    const problems = watchProblems(page);
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
    });
    await signIn(page, origin);
    assert.ok(!scripts.some((s) => /\/(es|common|marked|purify)[.-]/.test(s)), "not on first load");

    await page.goto(`${origin}/dashboard/upload/text`);
    const form = page.getByRole("form", { name: "Text or code" });
    await form.getByLabel("Language").fill("TypeScript");
    assert.equal(await form.getByLabel("File name").inputValue(), "snippet.ts");
    const box = form.getByLabel("Text", { exact: true });
    await box.click();
    await box.pressSequentially("function answer(): number {\n");
    await box.press("Tab");
    await box.pressSequentially("return 42;\n}\n");
    assert.equal(
      await box.inputValue(),
      "function answer(): number {\n  return 42;\n}\n",
      "Tab indents",
    );
    // Escape, then Tab leaves the box.
    await box.press("Escape");
    await box.press("Tab");
    assert.notEqual(await page.evaluate("document.activeElement.tagName"), "TEXTAREA");

    await form.getByRole("tab", { name: "Preview" }).click();
    const preview = form.getByRole("region", { name: "Preview" });
    await preview.locator(".hljs-keyword").first().waitFor();
    assert.equal(await preview.locator(".line-numbers").innerText(), "1\n2\n3");
    assert.ok(
      scripts.some((s) => s.includes("/assets/common-")),
      "highlight.js came with the preview",
    );
    await checkAccessibility(page, "the text upload's preview");
    await screenshots(page, "pastebin-preview", kind);
    await form.getByRole("tab", { name: "Write" }).click();
    await form.getByRole("button", { name: "Upload text" }).click();
    const link = await uploadedLink(page, "snippet.ts");

    // Its public page: highlighted, numbered, copied whole, and its raw bytes a link away.
    await page.goto(link);
    await page.waitForURL(/\/view\//);
    const code = page.locator("#text-preview .code");
    await code.locator(".hljs-keyword").first().waitFor();
    assert.equal(await page.locator("#text-preview .line-numbers").innerText(), "1\n2\n3");
    assert.equal(await code.getAttribute("data-language"), "typescript");
    await page.getByRole("button", { name: "Copy text" }).click();
    await page.getByRole("status").getByText("Copied").waitFor();
    assert.equal(
      await page.evaluate("navigator.clipboard.readText()"),
      "function answer(): number {\n  return 42;\n}\n",
    );
    const raw = await page.getByRole("link", { name: "Raw" }).getAttribute("href");
    assert.equal(
      await (await fetch(`${origin}${raw}`)).text(),
      "function answer(): number {\n  return 42;\n}\n",
    );
    await checkAccessibility(page, "a code file's page");
    await screenshots(page, "pastebin-code-page", kind);

    // Markdown: rendered, with nothing of what could run left in it.
    const upload = new FormData();
    upload.append("file", new Blob([HOSTILE_MARKDOWN], { type: "text/markdown" }), "NOTES.md");
    const res = await fetch(`${origin}/api/upload`, {
      method: "POST",
      body: upload,
      headers: { cookie },
    });
    assert.equal(res.status, 200);
    const { files } = await res.json() as { files: { url: string }[] };
    await page.goto(new URL(files[0].url, origin).href);
    const rendered = page.locator("#text-preview.markdown-view");
    await rendered.getByRole("heading", { name: "Release notes" }).waitFor();
    await rendered.getByRole("table").waitFor();
    assert.equal(
      await rendered.getByRole("link", { name: "good link" }).getAttribute("href"),
      "https://example.com/",
    );
    await rendered.getByText("styled").click();
    await rendered.getByText("click", { exact: true }).click().catch(() => {});
    await page.waitForTimeout(300);
    assert.equal(await page.evaluate("window.pwned ?? null"), null, "nothing ran");
    assert.equal(await rendered.locator("script, [onerror], [onclick], [style]").count(), 0);
    const hrefs = await page.evaluate(
      "[...document.querySelectorAll('#text-preview a')].map((a) => a.getAttribute('href'))",
    ) as (string | null)[];
    assert.ok(
      hrefs.every((h) => h === null || !/^javascript:/i.test(h)),
      `no javascript: link: ${hrefs}`,
    );
    assert.ok(
      scripts.some((s) => s.includes("/assets/marked")),
      "marked came with the Markdown page",
    );
    assert.ok(scripts.some((s) => s.includes("/assets/purify")), "DOMPurify came with it");
    await checkAccessibility(page, "a Markdown file's page");
    await screenshots(page, "pastebin-markdown-page", kind);

    assert.deepEqual(problems, []);
  },
);
