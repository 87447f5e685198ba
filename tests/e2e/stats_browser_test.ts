/**
 * Issue #33 item 10 in a real browser against the real server, on both
 * stores: the time axis of each statistics chart spans the range chosen
 * (read back from the drawn chart: a week with one snapshot is that week,
 * not years), an empty range says so with its dates, and the values carry
 * their units. Row 87 of docs/dashboard.md: a range of days chosen in two
 * date inputs beside the presets, each headline total's change against the
 * period of the same length before, and files by type as an SVG donut with
 * its legend table. axe-core in light and dark; screenshots in light, dark
 * and phone width.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
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

const DAY = 86_400_000;

/** The time span the chart `title` was drawn over (ms), as uPlot's scale holds it. */
async function drawnSpan(page: Page, title: string): Promise<[number, number]> {
  const chart = page.getByRole("img", { name: `Chart: ${title}` });
  await chart.locator("canvas").waitFor();
  const from = Number(await chart.getAttribute("data-x-from"));
  const to = Number(await chart.getAttribute("data-x-to"));
  return [from, to];
}

/** Chooses the range button `name`. */
async function range(page: Page, name: string): Promise<void> {
  await page.getByRole("group", { name: "Range" }).getByRole("button", { name, exact: true })
    .click();
}

async function onePoint({ browser, origin, kind }: JourneyContext) {
  await setupAdmin(origin);
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems = watchProblems(page, false);
  await signIn(page, origin);
  await page.goto(`${origin}/dashboard/stats`);

  // The metrics task's snapshot at start is the week's only point: the axis is that week.
  for (const title of ["Files", "Storage", "URLs", "Views"]) {
    const [from, to] = await drawnSpan(page, title);
    assert.ok(Math.abs(to - Date.now()) < 5 * 60_000, `${title} ends now: ${new Date(to)}`);
    assert.ok(Math.abs(to - from - 7 * DAY) < 60_000, `${title} spans a week: ${new Date(from)}`);
  }
  // Values with their units, in the chart's description.
  const files = page.getByRole("img", { name: "Chart: Files" });
  assert.match(await files.getAttribute("aria-description") ?? "", /latest Files: 0 files/);
  const storage = page.getByRole("img", { name: "Chart: Storage" });
  assert.match(await storage.getAttribute("aria-description") ?? "", /latest Storage: 0 B/);
  await checkAccessibility(page, "statistics, a week with one snapshot");
  await screenshots(page, "stats-week-one-point", kind);

  await range(page, "Day");
  // Polled from the test: a string predicate polled in the page is an eval its CSP refuses.
  await eventually("the day's axis", async () => {
    const [from, to] = await drawnSpan(page, "Files");
    return to - from < 2 * DAY;
  });
  const [from, to] = await drawnSpan(page, "Files");
  assert.ok(Math.abs(to - from - DAY) < 60_000, "the day view spans a day");

  assert.deepEqual(problems, []);
  await context.close();
}

browserTestOnStores(
  "item 10: a week with one snapshot draws that week (and a day a day), values with units",
  { SERVICE_RATELIMIT_ENABLED: "false" },
  onePoint,
);

/**
 * An empty file: `SERVICE_TASKS_METRICS_INTERVAL_FILE` pointing at it sets the
 * interval to nothing, which turns the metrics task off (an empty variable
 * counts as unset).
 */
const EMPTY_FILE = Deno.makeTempFileSync({ prefix: "ferry-empty-" });

/** The v4 export fixture: four users, nine files, three metrics snapshots (in 2025). */
const V4_FIXTURE = new URL("../fixtures/zipline-v4-export.sample.json", import.meta.url);

async function emptyRange({ browser, origin, kind }: JourneyContext) {
  const cookie = await setupAdmin(origin);
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems = watchProblems(page, false);
  await signIn(page, origin);
  await page.goto(`${origin}/dashboard/stats`);

  // The metrics task is off: nothing recorded, and the page says so.
  await page.getByText(/^No metrics were recorded between .+ and .+\. Choose a longer range\.$/)
    .waitFor();
  assert.equal(await page.getByRole("img", { name: /^Chart:/ }).count(), 0);
  await range(page, "All");
  await page.getByText(/^No metrics have been recorded yet/).waitFor();
  await checkAccessibility(page, "statistics, nothing recorded");
  await screenshots(page, "stats-empty", kind);

  // Three snapshots of 2025, imported: still none this week; all time spans them to now.
  const imported = await fetch(`${origin}/api/server/import/v4`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: await Deno.readFile(V4_FIXTURE),
  });
  assert.equal(imported.status, 200, await imported.clone().text());
  await imported.body?.cancel();
  const api = await (await fetch(`${origin}/api/stats?all=true`, { headers: { cookie } })).json();
  const oldest = Math.min(...api.map((m: { createdAt: string }) => Date.parse(m.createdAt)));
  await page.reload();
  await page.getByText(/^No metrics were recorded between/).waitFor();
  await range(page, "All");
  const [from, to] = await drawnSpan(page, "Files");
  assert.equal(from, oldest, "all time starts at the first snapshot");
  assert.ok(Math.abs(to - Date.now()) < 5 * 60_000, "and ends now");
  await screenshots(page, "stats-all", kind);

  assert.deepEqual(problems, []);
  await context.close();
}

browserTestOnStores(
  "item 10: an empty range says so with its dates; all time spans the first snapshot to now",
  { SERVICE_RATELIMIT_ENABLED: "false", SERVICE_TASKS_METRICS_INTERVAL_FILE: EMPTY_FILE },
  emptyRange,
);

/** `ms` as a date input's value, in the browser's time zone (the test's own). */
function dayOf(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${
    String(d.getDate()).padStart(2, "0")
  }`;
}

/** A snapshot `days` ago with these totals and types. */
function snapshot(days: number, files: number, types: { type: string; sum: number }[] = []) {
  return {
    id: `snapshot-${days}`,
    createdAt: new Date(Date.now() - days * DAY).toISOString(),
    data: {
      users: 2,
      files,
      fileViews: files * 3,
      urls: 1,
      urlViews: 0,
      storage: files * 1024 * 1024,
      filesUsers: [],
      urlsUsers: [],
      types,
    },
  };
}

/** Each headline total's change, as the page writes it (what a screen reader reads). */
async function changes(page: Page): Promise<Record<string, string>> {
  const headline = page.getByRole("definition").first();
  await headline.waitFor();
  return Object.fromEntries(
    await page.locator("dl.headline > div").evaluateAll((items) =>
      items.map((item) => [
        item.querySelector("dt")?.textContent,
        item.querySelector("dd.change")?.textContent ?? "",
      ])
    ),
  );
}

async function rangeAndChange({ browser, origin, kind }: JourneyContext) {
  const cookie = await setupAdmin(origin);
  const doc = JSON.parse(await Deno.readTextFile(V4_FIXTURE));
  doc.data.metrics = [
    snapshot(20, 2),
    snapshot(10, 4),
    snapshot(3, 6),
    snapshot(1, 8, [
      { type: "image/jpeg", sum: 2 },
      { type: "application/pdf", sum: 1 },
      { type: "image/png", sum: 4 },
      { type: "video/mp4", sum: 1 },
    ]),
  ];
  const imported = await fetch(`${origin}/api/server/import/v4`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: JSON.stringify(doc),
  });
  assert.equal(imported.status, 200, await imported.clone().text());
  await imported.body?.cancel();

  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems = watchProblems(page, false);
  await signIn(page, origin);
  await page.goto(`${origin}/dashboard/stats`);

  // The week: its newest snapshot (a day ago) against the newest of the week before (ten
  // days ago).
  await page.getByText("vs the week before").first().waitFor();
  assert.deepEqual(await changes(page), {
    "Files": "▲ +100% from 4 at the end of the week beforevs the week before",
    "Storage": "▲ +100% from 4.0 MB at the end of the week beforevs the week before",
    "URLs": "no change from 1 at the end of the week beforevs the week before",
    "File views": "▲ +100% from 12 at the end of the week beforevs the week before",
    "URL views": "no change from 0 at the end of the week beforevs the week before",
    "Users": "no change from 2 at the end of the week beforevs the week before",
  });
  assert.equal(
    await page.getByRole("group", { name: "Custom range" }).getByLabel("From")
      .inputValue(),
    dayOf(Date.now() - 7 * DAY),
    "the dates show the preset's",
  );

  // Files by type: an SVG donut named for what it shows, and its legend as a table.
  const donut = page.getByRole("img", { name: "Files by type" });
  assert.equal(await donut.evaluate((el) => el.tagName), "svg");
  assert.match(
    await donut.getAttribute("aria-describedby").then((id) =>
      page.locator(`[id="${id}"]`).textContent()
    ) ?? "",
    /^image\/png: 4 files \(50%\); image\/jpeg: 2 files \(25%\)/,
  );
  assert.equal(await donut.locator("circle.donut-slice").count(), 4);
  assert.deepEqual(
    await page.getByRole("table", { name: "Files by type" }).locator("tbody tr").evaluateAll(
      (rows) => rows.map((r) => [...r.children].map((c) => c.textContent)),
    ),
    [
      ["image/png", "4", "50%"],
      ["image/jpeg", "2", "25%"],
      ["application/pdf", "1", "13%"],
      ["video/mp4", "1", "13%"],
    ],
  );
  await checkAccessibility(page, "statistics with changes and the donut of types");
  await screenshots(page, "stats-change", kind);

  // Days of one's own: twelve days ago to two days ago, eleven days, against the eleven before.
  const dates = page.getByRole("group", { name: "Custom range" });
  await dates.getByLabel("From").fill(dayOf(Date.now() - 12 * DAY));
  await dates.getByLabel("To").fill(dayOf(Date.now() - 2 * DAY));
  await page.getByText("vs the 11 days before").first().waitFor();
  assert.equal(
    await page.getByRole("group", { name: "Range" }).locator('[aria-pressed="true"]').count(),
    0,
    "no preset is chosen",
  );
  const [from, to] = await drawnSpan(page, "Files");
  const start = new Date(Date.now() - 12 * DAY);
  start.setHours(0, 0, 0, 0);
  assert.equal(from, start.getTime(), "the axis starts at the first day's midnight");
  assert.ok(Math.abs(to - from - 11 * DAY) < 2 * 3_600_000, "and spans the eleven days");
  assert.equal(
    (await changes(page))["Files"],
    "▲ +200% from 2 at the end of the 11 days beforevs the 11 days before",
    "six files three days ago against two twenty days ago",
  );
  await checkAccessibility(page, "statistics over days of one's own");
  await screenshots(page, "stats-custom-range", kind);

  // A backwards range is refused where it is chosen.
  await dates.getByLabel("From").fill(dayOf(Date.now() - DAY));
  await page.getByRole("alert").filter({ hasText: "The first day is after the last." }).waitFor();
  await range(page, "All");
  // All time has nothing before it: no change is shown.
  await page.getByText(/vs the/).first().waitFor({ state: "detached" });
  await page.getByRole("img", { name: "Chart: Files" }).waitFor();

  assert.deepEqual(problems, []);
  await context.close();
}

browserTestOnStores(
  "row 87: a week's totals with their change against the week before, files by type as an " +
    "SVG donut with its legend; a range of days of one's own from two date inputs",
  { SERVICE_RATELIMIT_ENABLED: "false", SERVICE_TASKS_METRICS_INTERVAL_FILE: EMPTY_FILE },
  rangeAndChange,
);
