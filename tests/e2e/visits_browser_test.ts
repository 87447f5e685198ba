/**
 * Issue #35 part 2's dashboard views in a real browser against the real
 * server, on both stores: with analytics off the home page says what to do
 * and where; turned on, a short URL and a file are visited by several
 * browsers with and without referrers (plain requests, as the world makes
 * them), and once the batch is written the URLs page's "Visits" dialog, the
 * file panel's and the home page's summary show the counts and tops a person
 * reads, through each range. axe-core in light and dark; screenshots in
 * light, dark and phone width.
 */
import assert from "node:assert/strict";
import type { Locator } from "playwright-core";
import {
  browserTestOnStores,
  checkAccessibility,
  type JourneyContext,
  screenshots,
  setupAdmin,
  signIn,
  watchProblems,
} from "../helpers/browser.ts";
import { eventually } from "../helpers/wait.ts";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like " +
  "Gecko) Chrome/126.0.0.0 Safari/537.36";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 " +
  "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const IPAD = "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, " +
  "like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0";

/** `method path` with the session `cookie` and a JSON body; asserts 200, the parsed answer. */
async function call(origin: string, cookie: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: { cookie, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.equal(res.status, 200, `${method} ${path}: ${await res.clone().text()}`);
  return await res.json();
}

/** Uploads a small binary file (no preview, so the panel fetches none of its bytes). */
async function upload(origin: string, cookie: string): Promise<{ id: string; name: string }> {
  const form = new FormData();
  form.append("file", new Blob(["\x00\x01 report"], { type: "application/octet-stream" }), "r.bin");
  const res = await fetch(`${origin}/api/upload`, {
    method: "POST",
    headers: { cookie },
    body: form,
  });
  assert.equal(res.status, 200, await res.clone().text());
  const { files } = await res.json();
  return { id: files[0].id, name: files[0].name };
}

/** A visit of `path` by `agent` from `referer`, as a browser or an app would make it; its status. */
async function visit(origin: string, path: string, agent: string, referer?: string) {
  const res = await fetch(`${origin}${path}`, {
    redirect: "manual",
    headers: { "user-agent": agent, ...(referer ? { referer } : {}) },
  });
  await res.body?.cancel();
  return res.status;
}

/** The visits the API has written for `path` (a visits route), summed. */
async function written(origin: string, cookie: string, path: string): Promise<number> {
  const report = await call(origin, cookie, "GET", path);
  return report.series.reduce((n: number, p: { visits: number }) => n + p.visits, 0);
}

/** The totals a view shows: its "Visits" and "Unique visitors". */
async function totalsShown(scope: Locator) {
  const count = (term: string) =>
    scope.locator("dl.counts > div").filter({ has: scope.page().getByText(term, { exact: true }) })
      .locator("dd").innerText();
  return { visits: await count("Visits"), unique: await count("Unique visitors") };
}

/** The rows of the table `name` in `scope`, each as its cells' text. */
async function rows(scope: Locator, name: string): Promise<string[][]> {
  const table = scope.getByRole("table", { name, exact: true });
  await table.waitFor();
  return (await table.locator("tbody tr").allInnerTexts()).map((row) =>
    row.split("\t").map((cell) => cell.trim())
  );
}

/** Chooses the range `name` in `scope` and waits for its chart, `Chart: Visits by <per>`. */
async function range(scope: Locator, name: string, per: string) {
  await scope.getByRole("group", { name: "Range" }).getByRole("button", { name, exact: true })
    .click();
  await scope.getByRole("img", { name: `Chart: Visits by ${per}` }).locator("canvas").waitFor();
}

async function journey({ browser, origin, kind }: JourneyContext) {
  const cookie = await setupAdmin(origin);
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems = watchProblems(page, false);
  await signIn(page, origin);

  // Off by default: the home page says so, and an administrator is shown where to turn it on.
  const off = page.getByRole("region", { name: "Visits", exact: true });
  await off.getByText(/^Visits are not recorded on this server/).waitFor();
  assert.equal(
    await off.getByRole("link", { name: "Server settings" }).getAttribute("href"),
    "/dashboard/admin/settings",
  );
  await checkAccessibility(page, "home, visits not recorded");
  await screenshots(page, "visits-home-off", kind);

  // On; a short URL and a file visited by four browsers, two of them from a referring page.
  await call(origin, cookie, "PATCH", "/api/server/settings", { analyticsEnabled: true });
  const link = await call(origin, cookie, "POST", "/api/user/urls", {
    destination: "https://example.com/article",
    vanity: "spread",
  });
  await call(origin, cookie, "POST", "/api/user/urls", {
    destination: "https://example.com/other",
    vanity: "quiet",
  });
  const file = await upload(origin, cookie);
  const news = "https://news.example.org/item?id=7";
  const go = new URL(link.url).pathname;
  for (
    const [agent, referer] of [
      [CHROME, news],
      [CHROME, news], // the same visitor again
      [IPHONE, news],
      [IPAD, "https://mail.example.com/inbox"],
      [FIREFOX, undefined],
    ]
  ) assert.equal(await visit(origin, go, agent!, referer), 302);
  const raw = `/raw/${encodeURIComponent(file.name)}`;
  assert.equal(await visit(origin, raw, CHROME, "https://chat.example.net/room/1"), 200);
  assert.equal(await visit(origin, `/u/${encodeURIComponent(file.name)}`, IPHONE), 200);
  await eventually(
    "the visits' batch",
    async () =>
      await written(origin, cookie, `/api/user/urls/${link.id}/visits`) === 5 &&
      await written(origin, cookie, `/api/user/files/${file.id}/visits`) === 2,
  );

  // The URLs page: the link's Visits dialog, a week by day.
  await page.goto(`${origin}/dashboard/urls`);
  const list = page.getByRole("list", { name: "Short URLs" });
  await list.getByRole("button", { name: "Visits of spread" }).click();
  const dialog = page.getByRole("dialog", { name: "Visits of spread" });
  await dialog.getByRole("img", { name: "Chart: Visits by day" }).locator("canvas").waitFor();
  assert.deepEqual(await totalsShown(dialog), { visits: "5", unique: "4" });
  assert.deepEqual(await rows(dialog, "Top referrers"), [
    ["news.example.org", "3"],
    ["mail.example.com", "1"],
  ]);
  assert.deepEqual(await rows(dialog, "Browsers"), [
    ["Chrome", "2"],
    ["Mobile Safari", "2"],
    ["Firefox", "1"],
  ]);
  assert.deepEqual(await rows(dialog, "Operating systems"), [
    ["Windows", "2"],
    ["iOS", "2"],
    ["Linux", "1"],
  ]);
  assert.deepEqual(await rows(dialog, "Devices"), [
    ["Desktop", "3"],
    ["Mobile", "1"],
    ["Tablet", "1"],
  ]);
  await dialog.getByText(/^None in this range: countries are recorded when/).waitFor();
  await checkAccessibility(page, "a short URL's visits");
  await screenshots(page, "visits-url", kind);
  await range(dialog, "Day", "hour");
  assert.equal((await totalsShown(dialog)).visits, "5");
  await range(dialog, "Year", "month");
  assert.equal((await totalsShown(dialog)).visits, "5");
  assert.deepEqual(await rows(dialog, "Top referrers"), [
    ["news.example.org", "3"],
    ["mail.example.com", "1"],
  ]);
  await dialog.getByRole("button", { name: "Close" }).click();
  await dialog.waitFor({ state: "detached" });

  // A link nobody visited says what to do.
  await list.getByRole("button", { name: "Visits of quiet" }).click();
  const empty = page.getByRole("dialog", { name: "Visits of quiet" });
  await empty.getByRole("status").getByText(/^No visits of this link in this range yet\./)
    .waitFor();
  assert.deepEqual(await totalsShown(empty), { visits: "0", unique: "0" });
  await screenshots(page, "visits-url-empty", kind);
  await empty.getByRole("button", { name: "Close" }).click();

  // The file panel's Visits: the /raw visit from a chat and the /u one.
  await page.goto(`${origin}/dashboard/files`);
  await page.getByRole("button", { name: `Details of ${file.name}` }).click();
  const panel = page.getByRole("dialog", { name: file.name, exact: true });
  await panel.getByRole("button", { name: "Visits", exact: true }).click();
  const fileVisits = page.getByRole("dialog", { name: `Visits of ${file.name}` });
  await fileVisits.getByRole("img", { name: "Chart: Visits by day" }).locator("canvas").waitFor();
  assert.deepEqual(await totalsShown(fileVisits), { visits: "2", unique: "2" });
  assert.deepEqual(await rows(fileVisits, "Top referrers"), [["chat.example.net", "1"]]);
  assert.deepEqual(await rows(fileVisits, "Devices"), [["Desktop", "1"], ["Mobile", "1"]]);
  await checkAccessibility(page, "a file's visits");
  await screenshots(page, "visits-file", kind);
  await fileVisits.getByRole("button", { name: "Close" }).click();
  await fileVisits.waitFor({ state: "detached" });
  await panel.getByRole("button", { name: "Close" }).click();

  // Home: the last 30 days of the admin's links and files, and the server's beside them.
  await page.goto(`${origin}/dashboard`);
  const mine = page.getByRole("region", { name: "Your visits, last 30 days" });
  await mine.getByRole("img", { name: "Chart: Visits by day" }).locator("canvas").waitFor();
  // The visitor hash is the address and the browser: Chrome and the iPhone came to both.
  assert.deepEqual(await totalsShown(mine), { visits: "7", unique: "4" });
  assert.deepEqual(await rows(mine, "Top referrers"), [
    ["news.example.org", "3"],
    ["chat.example.net", "1"],
    ["mail.example.com", "1"],
  ]);
  const server = page.getByRole("region", { name: "Server visits, last 30 days" });
  assert.deepEqual(await totalsShown(server), { visits: "7", unique: "4" });
  await checkAccessibility(page, "home with visits");
  await screenshots(page, "visits-home", kind);

  assert.deepEqual(problems, []);
  await context.close();
}

browserTestOnStores(
  "issue #35.2: a link's, a file's and the home page's visits as a person reads them",
  { SERVICE_RATELIMIT_ENABLED: "false" },
  journey,
);
