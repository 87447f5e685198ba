/**
 * Issue #33 item 10 in a real browser against the real server, on both
 * stores: the time axis of each statistics chart spans the range chosen
 * (read back from the drawn chart: a week with one snapshot is that week,
 * not years), an empty range says so with its dates, and the values carry
 * their units. axe-core in light and dark; screenshots in light, dark and
 * phone width.
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
  await page.waitForFunction(`(() => {
    const el = document.querySelector('[aria-label="Chart: Files"]');
    return el && Number(el.dataset.xTo) - Number(el.dataset.xFrom) < 2 * ${DAY};
  })()`);
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
