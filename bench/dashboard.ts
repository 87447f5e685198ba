/**
 * The dashboard's files page for a user with 10,000 files, in Debian's
 * chromium (playwright-core) against the real server on Deno KV and on
 * PostgreSQL: how long from navigation until the first page of files is
 * listed and the page answers (`performance.now()` in the page when the count
 * and the grid are shown), how long a search takes to show its result, and
 * the first load's script and style (gzip). Five runs each, medians and
 * ranges; and what every dashboard page loads first, file by file, against
 * the budget of issue #33 (at most 120 KB of compressed script). Writes
 * `bench/results/dashboard.md`. About a minute.
 *
 * Run alone: `deno run --allow-all --unstable-kv bench/dashboard.ts`, or
 * through `deno task bench dashboard`.
 */
import { join } from "node:path";
import { chromium, type Page } from "playwright-core";
import { newId, systemRandom } from "../core/clock.ts";
import type { FileRecord } from "../db/files.ts";
import type { Store } from "../db/store.ts";
import { benchDatabase, cleanUp, cleanups } from "./helpers/cleanup.ts";
import { loadAverage, machineSection } from "./helpers/machine.ts";
import { FERRY_ARGS, REPO_ROOT, startServer } from "./helpers/server.ts";
import { fileRecord } from "../tests/helpers/stores.ts";
import { kvStore, postgresStore } from "./helpers/stores.ts";
import { dashboardSizes } from "./dashboard_size.ts";

/** How many files the user has. */
const FILES = 10_000;
const RUNS = 5;
const CHROMIUM = "/usr/bin/chromium";

/** One store's measurements, in milliseconds. */
interface Measured {
  store: string;
  firstPage: number[];
  search: number[];
  scriptAndStyleGzip: number;
}

/** 10,000 file records of `userId`, a second apart, named so that one matches a search. */
function files(userId: string): FileRecord[] {
  const start = Date.now() - FILES * 1000;
  return Array.from({ length: FILES }, (_, i) => {
    const at = new Date(start + i * 1000);
    return fileRecord(userId, {
      name: i === 4321 ? "needle-in-the-haystack.png" : `${newId(systemRandom, Date.now())}.png`,
      size: 1000 + i,
      type: i % 3 === 0 ? "text/plain" : "application/octet-stream",
      views: i % 17,
      favorite: i % 50 === 0,
      createdAt: at,
      updatedAt: at,
    });
  });
}

/** Adds the files to the store the server uses (in batches, alongside the running server). */
async function populate(store: Store, userId: string): Promise<void> {
  const all = files(userId);
  for (let i = 0; i < all.length; i += 500) await store.files.createMany(all.slice(i, i + 500));
}

/** `performance.now()` in the page once `text` is shown and the grid holds a full page. */
async function shownAt(page: Page, text: string): Promise<number> {
  await page.getByText(text, { exact: true }).waitFor();
  await page.waitForFunction("document.querySelectorAll('.file-card').length > 0");
  return await page.evaluate("performance.now()") as number;
}

async function measure(origin: string, cookie: string): Promise<Omit<Measured, "store">> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  cleanups.push(() => browser.close());
  const firstPage: number[] = [];
  const search: number[] = [];
  let scriptAndStyleGzip = 0;
  for (let run = 0; run < RUNS; run++) {
    const context = await browser.newContext();
    const [name, value] = cookie.split("=");
    await context.addCookies([{ name, value, url: origin }]);
    const page = await context.newPage();
    await page.goto(`${origin}/dashboard/files`);
    firstPage.push(await shownAt(page, `${FILES} files`));
    scriptAndStyleGzip = await page.evaluate(`performance.getEntriesByType("resource")
      .filter((e) => /\\/assets\\/.+\\.(js|css)$/.test(e.name))
      .reduce((sum, e) => sum + e.encodedBodySize, 0)`) as number;
    const before = await page.evaluate("performance.now()") as number;
    await page.getByLabel("Search by name").fill("needle");
    search.push(await shownAt(page, "1 file") - before);
    await context.close();
  }
  return { firstPage, search, scriptAndStyleGzip };
}

/** Starts Ferry over `env`, makes the admin, fills the store through `open`, measures. */
async function run(
  label: string,
  env: Record<string, string>,
  open: () => Promise<Store>,
): Promise<Measured> {
  console.log(label);
  const server = await startServer(FERRY_ARGS, env, "/api/healthcheck");
  cleanups.push(() => server.stop());
  const setup = await fetch(`${server.origin}/api/setup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: "a bench password" }),
  });
  if (!setup.ok) throw new Error(`setup: ${setup.status} ${await setup.text()}`);
  const cookie = setup.headers.getSetCookie()[0].split(";")[0];
  const { user } = await setup.json();
  const store = await open();
  try {
    await populate(store, user.id);
  } finally {
    await store.close();
  }
  const measured = await measure(server.origin, cookie);
  await cleanUp();
  return { store: label, ...measured };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number) => `${Math.round(x)} ms`;

function table(results: Measured[]): string {
  const lines = [
    "| store | first page listed (median, range) | search shown (median, range) | script + style, gzip |",
    "|---|---:|---:|---:|",
  ];
  for (const r of results) {
    lines.push(
      `| ${r.store} | ${ms(median(r.firstPage))} (${ms(Math.min(...r.firstPage))}–${
        ms(Math.max(...r.firstPage))
      }) | ${ms(median(r.search))} (${ms(Math.min(...r.search))}–${ms(Math.max(...r.search))}) | ${
        (r.scriptAndStyleGzip / 1024).toFixed(1)
      } KiB |`,
    );
  }
  return lines.join("\n");
}

if (import.meta.main) {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => cleanUp().finally(() => Deno.exit(130)));
  }
  const results: Measured[] = [];
  try {
    const kvDir = await Deno.makeTempDir({ prefix: "ferry-bench-dash-" });
    cleanups.push(() => Deno.remove(kvDir, { recursive: true }));
    results.push(
      await run(
        "Deno KV",
        { SERVICE_HOSTNAME: "127.0.0.1", SERVICE_DATA_DIR: kvDir },
        () => kvStore(join(kvDir, "ferry.kv")),
      ),
    );
    const pgDir = await Deno.makeTempDir({ prefix: "ferry-bench-dash-" });
    const db = await benchDatabase();
    results.push(
      await run(
        "PostgreSQL",
        { SERVICE_HOSTNAME: "127.0.0.1", SERVICE_DATA_DIR: pgDir, DATABASE_URL: db.url },
        () => postgresStore(db.url),
      ),
    );
    await Deno.remove(pgDir, { recursive: true });
  } finally {
    await cleanUp();
  }
  const report = `# Dashboard: the files page with ${FILES.toLocaleString("en")} files

The files page of a user with ${
    FILES.toLocaleString("en")
  } files, opened in chromium against the real
server (\`bench/dashboard.ts\`). "First page listed" is \`performance.now()\` in the page (from the
start of navigation) once the count and the first grid of files are shown and the page answers;
"search shown" is from typing a name until its one match is listed (the page waits 200 ms
after the last keystroke before it asks the server). ${RUNS} runs each, fresh
browser context each run (nothing cached). Budget (issue #16): under a second, and the first
load under 150 KB of script and style (gzip).

${table(results)}

## First load of a dashboard page, file by file

Every dashboard page (\`/dashboard/…\`) loads the same files first, then its own chunks
(\`bench/dashboard_size.ts\`, whose report is \`bench/results/dashboard_size.md\`).

${await dashboardSizes()}

Load average at the end: ${await loadAverage()}

${await machineSection()}
`;
  await Deno.writeTextFile(join(REPO_ROOT, "bench/results/dashboard.md"), report);
  console.log(report);
}
