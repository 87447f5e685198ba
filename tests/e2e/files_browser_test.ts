/**
 * Issue #33 item 7, the files page as a file manager, in a real browser on
 * both stores: the favourites first; a page size chosen and remembered; a
 * search by id; every match across pages tagged at once; the table's columns
 * shown, hidden and reordered, remembered; a file's panel with favourite, its
 * raw link copied, Markdown rendered, its type changed and a folder made there.
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

interface Stored {
  id: string;
  name: string;
}

browserTestOnStores(
  "files: favourites, page size, search by id, a tag across pages, columns, the panel",
  {},
  async ({ browser, origin, kind }) => {
    const cookie = await setupAdmin(origin);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${origin}${path}`, {
        method,
        headers: { cookie, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
      return await res.json();
    };
    const upload = async (name: string, text: string, type = "text/plain"): Promise<Stored> => {
      const form = new FormData();
      form.append("file", new Blob([text], { type }), name);
      const res = await fetch(`${origin}/api/upload`, {
        method: "POST",
        body: form,
        headers: { cookie },
      });
      assert.equal(res.status, 200);
      return (await res.json()).files[0];
    };
    const stored: Stored[] = [];
    for (let i = 0; i < 29; i++) stored.push(await upload(`file-${i}.txt`, `text ${i}`));
    const readme = await upload("README.md", "# Hello\n\nSome *notes*.\n", "text/markdown");
    stored.push(readme);
    await call("PATCH", `/api/user/files/${stored[3].id}`, { favorite: true });
    await call("PATCH", `/api/user/files/${stored[7].id}`, { favorite: true });
    const tag = await call("POST", "/api/user/tags", { name: "batch", color: "#2266aa" });

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signIn(page, origin);
    await page.goto(`${origin}/dashboard/files`);

    // The favourites come first.
    const favourites = page.getByRole("list", { name: "Favourite files" });
    await favourites.getByRole("button", { name: `Details of ${stored[3].name}` }).waitFor();
    assert.equal(await favourites.getByRole("listitem").count(), 2);

    // A page size, remembered.
    await page.getByText("30 files").waitFor();
    await page.getByLabel("Per page").selectOption("12");
    await page.getByText("Page 1 of 3").waitFor();
    await page.reload();
    await page.getByText("Page 1 of 3").waitFor();

    // Search by id.
    await page.getByLabel("Search in").selectOption("id");
    await page.getByLabel("Search by ID").fill(stored[12].id);
    await page.getByText("1 file", { exact: true }).waitFor();
    await page.getByRole("list", { name: "Files", exact: true })
      .getByRole("button", { name: `Details of ${stored[12].name}` }).waitFor();
    await page.getByLabel("Search by ID").fill("");
    await page.getByText("30 files").waitFor();

    // Every match across the pages tagged at once.
    await page.getByRole("checkbox", { name: "Select this page" }).check();
    const bulk = page.getByRole("region", { name: "Selected files" });
    await bulk.getByRole("button", { name: "Select all 30 matching" }).click();
    await bulk.getByText("All 30 files selected").waitFor();
    await checkAccessibility(page, "the files page with every match selected");
    await screenshots(page, "files-bulk", kind);
    await bulk.getByLabel("Add a tag").selectOption(tag.id);
    await page.getByRole("status").getByText("Tagged 30 files.").waitFor();
    const tagged = await call("GET", `/api/user/files?page=1&perpage=100`);
    assert.equal(tagged.total, 30);
    assert.ok(
      tagged.page.every((f: { tags: { id: string }[] }) => f.tags.some((t) => t.id === tag.id)),
      "every file, on every page, has the tag",
    );

    // The table: columns shown, hidden and reordered, remembered.
    await page.getByRole("button", { name: "List view" }).click();
    await page.getByText("Columns").click();
    const menu = page.getByRole("list", { name: "Columns" });
    await menu.getByRole("checkbox", { name: "ID", exact: true }).check();
    await menu.getByRole("checkbox", { name: "Views", exact: true }).uncheck();
    await menu.getByRole("button", { name: "Move Size left" }).click();
    const headings = async () =>
      (await page.getByRole("table", { name: "Files" }).locator("thead th").allInnerTexts())
        .map((t) => t.trim()).filter((t) => t && t !== "Selected" && t !== "Actions");
    assert.deepEqual(await headings(), ["Name", "Size", "Type", "Uploaded", "ID"]);
    await page.reload();
    await page.getByRole("table", { name: "Files" }).waitFor();
    assert.deepEqual(await headings(), ["Name", "Size", "Type", "Uploaded", "ID"]);
    await checkAccessibility(page, "the files table");
    await screenshots(page, "files-table", kind);

    // The panel of the Markdown file.
    await page.getByLabel("Search in").selectOption("name");
    await page.getByLabel("Search by name").fill(readme.name);
    await page.getByText("1 file", { exact: true }).waitFor();
    await page.getByRole("table", { name: "Files" })
      .getByRole("button", { name: `Details of ${readme.name}` }).click();
    const panel = page.getByRole("dialog", { name: readme.name });
    await panel.getByRole("heading", { name: "Hello" }).waitFor();
    await panel.getByRole("button", { name: "Favourite" }).click();
    await page.getByRole("status").getByText("Added to favourites.").waitFor();
    await panel.getByRole("button", { name: `Copy raw link to ${readme.name}` }).click();
    assert.equal(
      await page.evaluate("navigator.clipboard.readText()"),
      `${origin}/raw/${readme.name}`,
    );
    await panel.getByLabel("Type", { exact: true }).fill("text/x-markdown");
    await panel.getByRole("button", { name: "Create a folder" }).click();
    await panel.getByLabel("New folder's name").fill("docs");
    await panel.getByRole("button", { name: "Create", exact: true }).click();
    await page.getByRole("status").getByText("Folder docs created.").waitFor();
    await checkAccessibility(page, "a file's panel");
    await screenshots(page, "files-panel-markdown", kind);
    await panel.getByRole("button", { name: "Save" }).click();
    await panel.waitFor({ state: "detached" });
    const changed = await call("GET", `/api/user/files/${readme.id}`);
    assert.equal(changed.favorite, true);
    assert.equal(changed.type, "text/x-markdown");
    const folders = await call("GET", "/api/user/folders?noincl=true");
    assert.equal(changed.folderId, folders.find((f: { name: string }) => f.name === "docs").id);
    assert.deepEqual(problems, []);
  },
);
