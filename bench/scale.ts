/**
 * `deno task bench scale`: how Ferry's answers grow with one user's
 * catalogue (issue #32). For each store (Deno KV, PostgreSQL) and each size
 * (10,000 and 100,000 files unless `--sizes=10000,100000,1000000`; the
 * stores with `--stores=kv,postgres`): fills a fresh store with one user's
 * files, through the store's own bulk write (`files.createMany`, the write
 * the Zipline v4 import makes, in runs of 1,000), a folder, a tag and 1,000
 * short URLs, recording the import's time and this process's peak RSS; then
 * starts the real server (`main.ts serve`) over it and asks each request of
 * the issue's table: the first time apart (the files list is the first
 * request after the start), then the median of three more. Last, the
 * server's RSS and how long it takes to exit after SIGTERM. Writes
 * `bench/results/scale.md`.
 *
 * With `--settle`, the requests wait after the start until the server's CPU
 * rests (its background tasks' first passes done), and that wait is a row.
 *
 * Run alone: `deno run --allow-all --unstable-kv bench/scale.ts [--sizes=…] [--stores=…] [--settle]`.
 */
import { join } from "node:path";
import postgres from "postgres";
import { newId, systemClock, systemRandom } from "../core/clock.ts";
import { clientToken } from "../core/tokens.ts";
import type { FileRecord } from "../db/files.ts";
import { openKvStore } from "../db/kv/mod.ts";
import { servingStore } from "../db/serving.ts";
import type { Store } from "../db/store.ts";
import { URL_RULE_DEFAULTS, type UrlRecord } from "../db/urls.ts";
import { startPostgres } from "../tests/helpers/postgres_cluster.ts";
import { cleanUp, cleanups } from "./helpers/cleanup.ts";
import { machineSection } from "./helpers/machine.ts";
import { type BenchServer, FERRY_ARGS, REPO_ROOT, startServer } from "./helpers/server.ts";
import { postgresStore } from "./helpers/stores.ts";
import { populateUsers } from "./helpers/users.ts";

const SECRET = "ferry-bench-secret-ferry-bench-secret-ferry-bench-secret-0123456";
const RESULTS = join(REPO_ROOT, "bench/results/scale.md");
/** Files written by one `createMany`. */
const RUN = 1000;
/** Short URLs of the user. */
const URLS = 1000;
/** Every how many files one is a favourite, in the folder, carries the tag. */
const EVERY = { favorite: 20, folder: 50, tag: 200 };
const TYPES = ["image/png", "image/jpeg", "text/plain", "video/mp4", "application/pdf"];
/** Files removed by the bulk delete (at most), in requests of {@link DELETE_RUN}. */
const BULK_DELETE = 100_000;
/** Files one `DELETE /api/user/files/transaction` names (the route's most). */
const DELETE_RUN = 1000;
/** Every how many milliseconds a request is asked while the bulk delete runs. */
const PROBE_MS = 50;
/** After the first ask of a request, how many more give its median. */
const REPEATS = 3;

type StoreKind = "kv" | "postgres";

/** The command line's options. */
function options(args: string[]) {
  const value = (name: string) =>
    args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const sizes = (value("sizes") ?? "10000,100000").split(",").map(Number);
  const stores = (value("stores") ?? "kv,postgres").split(",") as StoreKind[];
  if (sizes.some((n) => !Number.isInteger(n) || n < 1000)) {
    throw new Error("--sizes: integers ≥ 1000");
  }
  if (stores.some((s) => s !== "kv" && s !== "postgres")) throw new Error("--stores: kv,postgres");
  return { sizes, stores, settle: args.includes("--settle") };
}

/** What one fill left for the measurements. */
interface Filled {
  token: string;
  folderId: string;
  tagId: string;
  /** A fragment of one file's name and of its original name, for the searches. */
  nameFragment: string;
  originalFragment: string;
  importMs: number;
  importPeakMiB: number;
  /** The ids of the files the bulk delete removes (the first {@link BULK_DELETE}). */
  doomed: string[];
}

/** This process's RSS in MiB. */
const rssMiB = () => Deno.memoryUsage().rss / 1024 / 1024;

/** `VmRSS` and `VmHWM` (peak) of `pid`, in MiB. */
async function memory(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)![1]);
  return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}

/** A process's CPU time so far (user and system), in milliseconds. */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await Deno.readTextFile(`/proc/${pid}/stat`)).split(") ")[1].split(" ");
  // utime and stime, fields 14 and 15 of the line: 12 and 13 after the command's name.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A second in which a process used less CPU than this (ms) finds it at rest. */
const REST_CPU_MS = 50;
/** The longest {@link settled} waits. */
const SETTLE_MAX_MS = 300_000;

/**
 * Waits until process `pid` has used under {@link REST_CPU_MS} of CPU in each
 * of two seconds in a row (at most {@link SETTLE_MAX_MS}); returns the wait.
 */
async function settled(pid: number): Promise<number> {
  const started = performance.now();
  let quiet = 0;
  let last = await cpuMs(pid);
  while (quiet < 2 && performance.now() - started < SETTLE_MAX_MS) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = await cpuMs(pid);
    quiet = now - last < REST_CPU_MS ? quiet + 1 : 0;
    last = now;
  }
  return performance.now() - started;
}

/** The `i`th of `n` files of `userId`: the newest first, a second apart. */
export function benchFile(
  userId: string,
  i: number,
  n: number,
  start: number,
  ids: { folderId: string },
): FileRecord {
  const at = new Date(start - (n - i) * 1000);
  const type = TYPES[i % TYPES.length];
  const ext = type.split("/")[1];
  return {
    id: newId(systemRandom, at.getTime()),
    name: `${newId(systemRandom, at.getTime()).slice(-10)}.${ext}`,
    originalName: `holiday-${i}.${ext}`,
    size: 1000 + ((i * 7919) % 5_000_000),
    type,
    views: i % 13,
    maxViews: null,
    favorite: i % EVERY.favorite === 0,
    password: null,
    anonymous: false,
    userId,
    folderId: i % EVERY.folder === 0 ? ids.folderId : null,
    deletesAt: null,
    pending: false,
    createdAt: at,
    updatedAt: at,
  };
}

/** Fills `store` with one user's `n` files, a folder, a tag and {@link URLS} URLs. */
async function fill(store: Store, n: number): Promise<Filled> {
  const [user] = await populateUsers(store, 1);
  const now = Date.now();
  const at = new Date(now);
  const filled: Filled = {
    token: clientToken(user.token, now, SECRET, systemRandom),
    folderId: newId(systemRandom, now),
    tagId: newId(systemRandom, now),
    nameFragment: "",
    originalFragment: `holiday-${Math.floor(n / 3)}`,
    importMs: 0,
    importPeakMiB: 0,
    doomed: [],
  };
  await store.folders.create({
    id: filled.folderId,
    name: "bench",
    public: false,
    allowUploads: false,
    parentId: null,
    userId: user.id,
    createdAt: at,
    updatedAt: at,
  });
  await store.tags.create({
    id: filled.tagId,
    name: "bench",
    color: "#123456",
    userId: user.id,
    createdAt: at,
    updatedAt: at,
  });
  let peak = rssMiB();
  const sampler = setInterval(() => peak = Math.max(peak, rssMiB()), 100);
  const started = performance.now();
  const tagged: string[] = [];
  for (let i = 0; i < n; i += RUN) {
    const run = Array.from(
      { length: Math.min(RUN, n - i) },
      (_, j) => benchFile(user.id, i + j, n, now, filled),
    );
    await store.files.createMany(run);
    for (const f of run) if (filled.doomed.length < BULK_DELETE) filled.doomed.push(f.id);
    for (const f of run) {
      if (Number(f.originalName!.split(/[-.]/)[1]) % EVERY.tag === 0) tagged.push(f.id);
    }
    if (i === Math.floor(n / 2 / RUN) * RUN) filled.nameFragment = run[0].name.slice(0, 6);
    if ((i / RUN) % 100 === 99) console.log(`  ${i + RUN} files, ${rssMiB().toFixed(0)} MiB`);
  }
  filled.importMs = performance.now() - started;
  clearInterval(sampler);
  filled.importPeakMiB = Math.max(peak, rssMiB());
  for (let i = 0; i < tagged.length; i += 50) {
    await Promise.all(
      tagged.slice(i, i + 50).map((id) => store.tags.setFileTags(id, [filled.tagId])),
    );
  }
  const urls: UrlRecord[] = Array.from({ length: URLS }, (_, i) => ({
    id: newId(systemRandom, now - i),
    code: `s${i}`,
    vanity: null,
    destination: `https://example.com/${i}`,
    views: i % 7,
    maxViews: null,
    password: null,
    enabled: true,
    userId: user.id,
    createdAt: new Date(now - i * 1000),
    updatedAt: new Date(now - i * 1000),
    ...URL_RULE_DEFAULTS,
  }));
  await store.urls.createMany(urls);
  return filled;
}

/** One request of the table: its label and path. */
interface Ask {
  label: string;
  path: string;
}

/** The issue's requests, over what {@link fill} made. */
function asks(n: number, f: Filled): Ask[] {
  const deep = Math.floor(n / 50);
  const q = (query: string) => `/api/user/files?${query}`;
  return [
    { label: "`GET /api/user/files?page=1`", path: q("page=1") },
    { label: `a deep page (page ${deep} of 15)`, path: q(`page=${deep}`) },
    { label: "sorted by size, descending", path: q("page=1&sortBy=size&order=desc") },
    { label: "sorted by name, a deep page", path: q(`page=${deep}&sortBy=name&order=asc`) },
    { label: "favourites only", path: q("page=1&favorite=true") },
    { label: "one folder's", path: q(`page=1&folder=${f.folderId}`) },
    { label: "one tag's", path: q(`page=1&searchField=tags&searchQuery=${f.tagId}`) },
    { label: "search by name", path: q(`page=1&searchField=name&searchQuery=${f.nameFragment}`) },
    {
      label: "search by original name",
      path: q(`page=1&searchField=originalName&searchQuery=${f.originalFragment}`),
    },
    { label: "search by type", path: q("page=1&searchField=type&searchQuery=video") },
    { label: "`GET /api/user/stats`", path: "/api/user/stats" },
    { label: `\`GET /api/user/urls\` (${URLS} URLs)`, path: "/api/user/urls" },
  ];
}

/** Milliseconds `path` took, answer read; throws unless it is a 200. */
async function timed(server: BenchServer, path: string, token: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${server.origin}${path}`, { headers: { Authorization: token } });
  await response.arrayBuffer();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
  return ms;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** Everything measured at one size on one store. */
interface Measured {
  store: StoreKind;
  n: number;
  importMs: number;
  /** KV: the imported files' search keys built after the import (`db/kv/search_backlog.ts`). */
  searchBuildMs: number | null;
  importPeakMiB: number;
  startMs: number;
  /** With `--settle`: the wait after the start until the server's CPU rested. */
  settleMs: number | null;
  times: { label: string; first: number; median: number }[];
  rss: number;
  peak: number;
  exitMs: number | null;
  /** {@link exitMs} with every file still stored (before the bulk delete). */
  fullExitMs: number | null;
  bulk: BulkDelete;
}

/** What the bulk delete took, and the answers asked meanwhile. */
interface BulkDelete {
  files: number;
  ms: number;
  health: { median: number; max: number };
  page: { median: number; max: number };
}

/**
 * Deletes `ids` through `DELETE /api/user/files/transaction`, {@link DELETE_RUN}
 * a request, one after the other, while the healthcheck and the files list's
 * first page are each asked every {@link PROBE_MS} ms.
 */
async function bulkDelete(server: BenchServer, token: string, ids: string[]): Promise<BulkDelete> {
  let done = false;
  const probe = async (path: string) => {
    const times: number[] = [];
    while (!done) {
      const started = performance.now();
      const response = await fetch(`${server.origin}${path}`, {
        headers: { Authorization: token },
      });
      await response.arrayBuffer();
      times.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, PROBE_MS));
    }
    return { median: median(times), max: Math.max(...times) };
  };
  const probes = Promise.all([probe("/api/healthcheck"), probe("/api/user/files?page=1")]);
  const started = performance.now();
  let files = 0;
  try {
    for (let i = 0; i < ids.length; i += DELETE_RUN) {
      const response = await fetch(`${server.origin}/api/user/files/transaction`, {
        method: "DELETE",
        headers: { Authorization: token, "Content-Type": "application/json" },
        body: JSON.stringify({ files: ids.slice(i, i + DELETE_RUN) }),
      });
      const body = await response.json();
      if (response.status !== 200) throw new Error(`bulk delete answered ${response.status}`);
      files += body.count;
    }
  } finally {
    done = true;
  }
  const ms = performance.now() - started;
  const [health, page] = await probes;
  return { files, ms, health, page };
}

/** Fills a fresh store of `kind` with `n` files and measures the server over it. */
async function measure(
  kind: StoreKind,
  n: number,
  settle: boolean,
  databaseUrl?: string,
): Promise<Measured> {
  console.log(`== ${kind}, ${n} files`);
  const dataDir = await Deno.makeTempDir({ prefix: "ferry-bench-scale-" });
  cleanups.push(() => Deno.remove(dataDir, { recursive: true }));
  const backend = kind === "kv" ? await openKvStore(join(dataDir, "ferry.kv")) : null;
  const store = backend ? servingStore(backend, systemClock) : await postgresStore(databaseUrl!);
  // As in an import's transaction, the imported files' search keys (KV) are built once it ends.
  await backend?.backlog?.hold();
  let searchBuildMs: number | null = null;
  const filled = await fill(store, n).then(async (filled) => {
    if (!backend) return filled;
    backend.backlog?.release();
    const started = performance.now();
    await backend.buildSearchKeys();
    searchBuildMs = performance.now() - started;
    return filled;
  }).finally(() => store.close());
  console.log(`  imported in ${(filled.importMs / 1000).toFixed(1)} s`);
  if (searchBuildMs !== null) console.log(`  search keys built in ${ms(searchBuildMs)}`);
  const env: Record<string, string> = {
    SERVICE_HOSTNAME: "127.0.0.1",
    SERVICE_DATA_DIR: dataDir,
    SERVICE_SECRET: SECRET,
    SERVICE_RATELIMIT_ENABLED: "false",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
  const starting = performance.now();
  let server = await startServer(FERRY_ARGS, env, "/api/healthcheck");
  const startMs = performance.now() - starting;
  cleanups.push(() => server.stop());
  const settleMs = settle ? await settled(server.pid) : null;
  if (settleMs !== null) console.log(`  the server's CPU rested after ${ms(settleMs)}`);
  const times = [];
  for (const ask of asks(n, filled)) {
    const first = await timed(server, ask.path, filled.token);
    const more = [];
    for (let i = 0; i < REPEATS; i++) more.push(await timed(server, ask.path, filled.token));
    times.push({ label: ask.label, first, median: median(more) });
    console.log(`  ${ask.label}: first ${first.toFixed(1)} ms, then ${median(more).toFixed(1)} ms`);
  }
  const { rss, peak } = await memory(server.pid);
  // Stopped with every file still there, then started again for the bulk delete.
  const fullExitMs = await exitAfterSigterm(server);
  console.log(`  exit after SIGTERM, every file there: ${fullExitMs ?? "not within 9.5 s"}`);
  server = await startServer(FERRY_ARGS, env, "/api/healthcheck");
  const bulk = await bulkDelete(server, filled.token, filled.doomed);
  console.log(`  bulk delete of ${bulk.files} files: ${ms(bulk.ms)}`);
  const exitMs = await exitAfterSigterm(server);
  return {
    store: kind,
    n,
    importMs: filled.importMs,
    searchBuildMs,
    importPeakMiB: filled.importPeakMiB,
    startMs,
    settleMs,
    times,
    rss,
    peak,
    exitMs,
    fullExitMs,
    bulk,
  };
}

/** Milliseconds from SIGTERM to `server`'s exit; `null` past 9.5 s (it is killed then). */
async function exitAfterSigterm(server: BenchServer): Promise<number | null> {
  const stopping = performance.now();
  Deno.kill(server.pid, "SIGTERM");
  const exited = await Promise.race([
    server.stop().then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 9_500)),
  ]);
  const exitMs = exited ? performance.now() - stopping : null;
  await server.stop();
  return exitMs;
}

/** `1.2 s` or `34 ms`. */
function ms(value: number): string {
  return value >= 1000
    ? `${(value / 1000).toFixed(1)} s`
    : `${value.toFixed(value < 10 ? 1 : 0)} ms`;
}

/** The results table: one column per store and size. */
function table(results: Measured[]): string {
  const name = (m: Measured) =>
    `${m.store === "kv" ? "KV" : "PG"} ${m.n >= 1e6 ? `${m.n / 1e6}M` : `${m.n / 1000}k`}`;
  const head = `| request | ${results.map(name).join(" | ")} |`;
  const rule = `| --- | ${results.map(() => "---:").join(" | ")} |`;
  const row = (label: string, cell: (m: Measured) => string) =>
    `| ${label} | ${results.map(cell).join(" | ")} |`;
  const lines = [
    head,
    rule,
    row("import of the files (`createMany`, runs of 1,000)", (m) => ms(m.importMs)),
    row(
      "KV: their search keys, built after the import (searches take them as candidates meanwhile)",
      (m) => m.searchBuildMs === null ? "—" : ms(m.searchBuildMs),
    ),
    row("importing process's peak RSS", (m) => `${m.importPeakMiB.toFixed(0)} MB`),
    row("server start (until the healthcheck answers)", (m) => ms(m.startMs)),
    row(
      "`--settle`: then until the server's CPU rested (background tasks' first passes)",
      (m) => m.settleMs === null ? "—" : ms(m.settleMs),
    ),
  ];
  for (const [i, { label }] of results[0].times.entries()) {
    lines.push(row(`${label}, first`, (m) => ms(m.times[i].first)));
    lines.push(row(`${label}, then`, (m) => ms(m.times[i].median)));
  }
  lines.push(
    row("server RSS after these (peak)", (m) => `${m.rss.toFixed(0)} MB (${m.peak.toFixed(0)})`),
  );
  const thousands = (m: Measured) => `${(m.bulk.files / 1000).toFixed(0)}k`;
  lines.push(
    row(
      "bulk delete (`DELETE /api/user/files/transaction`, 1,000 a request)",
      (m) => `${thousands(m)} in ${ms(m.bulk.ms)}`,
    ),
    row(
      "the healthcheck meanwhile, median (max)",
      (m) => `${ms(m.bulk.health.median)} (${ms(m.bulk.health.max)})`,
    ),
    row(
      "`GET /api/user/files?page=1` meanwhile, median (max)",
      (m) => `${ms(m.bulk.page.median)} (${ms(m.bulk.page.max)})`,
    ),
  );
  const exit = (value: number | null) => value === null ? "**not within 9.5 s**" : ms(value);
  lines.push(
    row("exit after SIGTERM, every file there (none in flight)", (m) => exit(m.fullExitMs)),
    row("exit after SIGTERM after the bulk delete (none in flight)", (m) => exit(m.exitMs)),
  );
  return lines.join("\n");
}

const METHOD = "One user owns every file (5 types in turn, 1 in 20 a favourite, 1 in 50 in a " +
  "folder, 1 in 200 tagged) and 1,000 short URLs. The files are written through the store's " +
  "`files.createMany` (the write the Zipline v4 import makes) in runs of 1,000, by the bench " +
  "process itself, whose peak RSS is the import's memory; on Deno KV their search keys are " +
  "then built (as after an import's transaction) and that time is its own row. Then " +
  "`main.ts serve` starts over the " +
  "store (local datasource, rate limits off, background tasks on as by default: the thumbnails " +
  "task goes through every image once after the start, finding no bytes, which the bench does " +
  "not write; with `--settle` the requests wait until the server's CPU rests, a row of its own) " +
  "and each " +
  "request is asked once (its first time in that process: the files list is the first request " +
  "after the start) and three more times (their median); pages are 15 files (the default). " +
  "Then the server's `VmRSS` (`VmHWM`, its peak, in brackets) and the time from SIGTERM to its " +
  "exit, every file still there; then, the server started again, a bulk delete of the " +
  "first 100,000 files (all of them at 100,000) through `DELETE /api/user/files/transaction`, " +
  "1,000 a request, one after the other, while the healthcheck and the files list's first page " +
  "are each asked every 50 ms; last, the time from SIGTERM to the server's exit.";

/** The commit measured (`git describe`-like: short hash, `+` when the tree has changes). */
async function gitDescription(): Promise<string> {
  const git = async (...args: string[]) =>
    new TextDecoder().decode(
      (await new Deno.Command("git", { args, cwd: REPO_ROOT, stdout: "piped" }).output()).stdout,
    ).trim();
  const hash = await git("rev-parse", "--short", "HEAD");
  const dirty = (await git("status", "--porcelain", "--", "db", "core", "routes", "cli")) !== "";
  return `\`${hash}\`${dirty ? " (with uncommitted changes)" : ""}`;
}

/** The results already in the file, under "Earlier runs", newest first. */
async function earlierRuns(): Promise<string> {
  let old = "";
  try {
    old = await Deno.readTextFile(RESULTS);
  } catch {
    return "";
  }
  const runs = old.split(/^(?=## Results)/m).slice(1).join("")
    .replace(/^## Earlier runs\n\n/m, "")
    .replace(/^## Results/gm, "### Results");
  return runs.trim() ? `## Earlier runs\n\n${runs.trimStart()}` : "";
}

if (import.meta.main) {
  const { sizes, stores, settle } = options(Deno.args);
  const onInterrupt = () => cleanUp().finally(() => Deno.exit(130));
  Deno.addSignalListener("SIGINT", onInterrupt);
  const results: Measured[] = [];
  let pgVersion = "";
  try {
    let admin: postgres.Sql | undefined;
    let clusterUrl = "";
    if (stores.includes("postgres")) {
      const cluster = await startPostgres();
      cleanups.push(() => cluster.stop());
      clusterUrl = cluster.url;
      admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
      cleanups.push(() => admin!.end());
      pgVersion = (await admin`SHOW server_version`)[0].server_version;
    }
    for (const kind of stores) {
      for (const n of sizes) {
        let url: string | undefined;
        if (kind === "postgres") {
          const db = `ferry_scale_${n}`;
          await admin!.unsafe(`CREATE DATABASE ${db}`);
          const u = new URL(clusterUrl);
          u.pathname = `/${db}`;
          url = u.toString();
        }
        results.push(await measure(kind, n, settle, url));
        if (kind === "postgres") await admin!.unsafe(`DROP DATABASE ferry_scale_${n} WITH (FORCE)`);
      }
    }
  } finally {
    await cleanUp();
    Deno.removeSignalListener("SIGINT", onInterrupt);
  }
  const commit = await gitDescription();
  const results_ = [
    `## Results at ${commit}, ${new Date().toISOString().slice(0, 16)} UTC, load average ${
      Deno.loadavg()[0].toFixed(1)
    } (1 min) as written`,
    "",
    table(results),
    "",
  ].join("\n");
  const report = [
    "# Scale: one user's catalogue from 10,000 files up (issue #32)",
    "",
    "Written by `bench/scale.ts` (`deno task bench scale`, sizes with `--sizes=…`); each run " +
    'moves the previous one\'s results under "Earlier runs", so the file shows the curve ' +
    "before and after each change.",
    "",
    await machineSection(
      pgVersion
        ? { PostgreSQL: `${pgVersion} (throwaway cluster: fsync=off, synchronous_commit=off)` }
        : {},
    ),
    "## Method",
    "",
    METHOD,
    "",
    results_,
    await earlierRuns(),
  ].join("\n");
  await Deno.writeTextFile(RESULTS, report);
  console.log(`\nwritten ${RESULTS}`);
}
