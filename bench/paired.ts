/**
 * The serving store's speed against the code before it (issue #31: within
 * 5 %), in paired runs: the baseline commit ({@link BASELINE}, main just
 * before the serving store's merge) checked out into a temporary `git
 * worktree`, and this checkout, each as its own server (`main.ts serve`, as
 * `deno task start`) on its own copy of the same data, on Deno KV and on
 * PostgreSQL. For each scenario (a redirect, `/raw` of a 6-byte file, `GET
 * /api/user`, the healthcheck, a 1 KiB upload) the two are loaded by wrk
 * alternately, {@link ROUNDS} rounds, the first of each round alternating
 * (`helpers/paired.ts`), with the wrk settings of the scenario's own
 * benchmark; the verdict is the median over rounds of candidate / baseline
 * requests per second, and the load average at each round is recorded: the
 * machine is shared, and the pairing is what makes the comparison fair.
 * Writes `bench/results/serving_store.md`. About 17 minutes.
 *
 * `BENCH_PAIRED_BASELINE=<commit>` compares with another commit,
 * `BENCH_PAIRED_ROUNDS=<n>` sets the rounds, `BENCH_PAIRED_ONLY=<regexp>`
 * keeps the scenarios whose `<scenario> — <store>` matches (for trying a
 * fix: the file then says which ran), `BENCH_PAIRED_RESULTS=<path>` writes
 * another file than `bench/results/serving_store.md`.
 *
 * Run alone: `deno run --allow-all --unstable-kv bench/paired.ts`, or through
 * `deno task bench paired`.
 */
import { join } from "node:path";
import postgres from "postgres";
import { systemRandom } from "../core/clock.ts";
import { clientToken } from "../core/tokens.ts";
import type { Store } from "../db/store.ts";
import type { UserRecord } from "../db/users.ts";
import { SECRET } from "./http_accounts.ts";
import { LOAD as FILES_LOAD, populateFiles, SMALL_NAME, USERS } from "./http_files.ts";
import { CODE, LOAD as REDIRECTS_LOAD, populateUrls } from "./http_redirects.ts";
import { BODY, BOUNDARY, LOAD as UPLOADS_LOAD } from "./http_uploads.ts";
import { type Checkout, describeCommit, openersOf, worktreeAt } from "./helpers/checkout.ts";
import { benchDatabases, cleanUp, cleanups, wrkBench } from "./helpers/cleanup.ts";
import { databaseCpuSeconds, threadCpuSeconds, treeCpuSeconds } from "./helpers/cpu.ts";
import { wrkMachineSection } from "./helpers/machine.ts";
import { alternate, median, type PairedRound, pairedVerdict } from "./helpers/paired.ts";
import { type BenchServer, FERRY_ARGS, REPO_ROOT, startServer } from "./helpers/server.ts";
import { wrk, WRK_SCRIPTS, type WrkOptions, type WrkResult } from "./helpers/wrk.ts";

/**
 * `BENCH_PAIRED_PROFILE=<dir>`: both sides' servers run with `--cpu-prof`
 * into `<dir>/baseline` and `<dir>/candidate` (a V8 profile each, written
 * as they stop; not for figures).
 */
const PROFILE = Deno.env.get("BENCH_PAIRED_PROFILE");

/** The commit before the serving store (main before merge 7226437). */
const BASELINE = Deno.env.get("BENCH_PAIRED_BASELINE") ?? "0f813ff";
/** Rounds per scenario and store: each side measured once a round. */
const ROUNDS = Number(Deno.env.get("BENCH_PAIRED_ROUNDS") ?? 5);
/** Which `<scenario> — <store>` run. */
const ONLY = Deno.env.get("BENCH_PAIRED_ONLY");
/** The most the candidate's median ratio may fall below 1. */
const TOLERANCE = 0.05;
/** The results file (`BENCH_PAIRED_RESULTS`, relative to the repository, for a re-check beside it). */
const RESULTS = join(
  REPO_ROOT,
  Deno.env.get("BENCH_PAIRED_RESULTS") ?? "bench/results/serving_store.md",
);

/** The tokens a side's store was filled with. */
interface Fixture {
  /** The SUPERADMIN's, who owns the small file and uploads. */
  admin: string;
  /** A USER's (one of 1,000 users), for `GET /api/user`. */
  owner: string;
}

/** wrk's load: threads, connections, seconds measured, seconds of warm-up before. */
type Load = typeof FILES_LOAD;

/** One request measured on both sides. */
interface Scenario {
  name: string;
  /** The benchmark whose wrk settings it takes. */
  from: string;
  load: Load;
  /** The status every answer has. */
  status: number;
  /** wrk's request (without its load) at `origin`. */
  request(origin: string, fixture: Fixture): WrkOptions;
  /** The same request, sent once to check it before the load. */
  probe(fixture: Fixture): RequestInit & { path: string };
}

const SCENARIOS: Scenario[] = [
  {
    name: `GET /go/<code> (302, view counted)`,
    from: "redirects",
    load: REDIRECTS_LOAD,
    status: 302,
    request: (origin) => ({ url: `${origin}/go/${CODE}` }),
    probe: () => ({ path: `/go/${CODE}` }),
  },
  {
    name: `GET /raw/${SMALL_NAME} (6 bytes)`,
    from: "files",
    load: FILES_LOAD,
    status: 200,
    request: (origin) => ({ url: `${origin}/raw/${SMALL_NAME}` }),
    probe: () => ({ path: `/raw/${SMALL_NAME}` }),
  },
  {
    name: "GET /api/user (token)",
    from: "accounts",
    load: REDIRECTS_LOAD,
    status: 200,
    request: (origin, f) => ({
      url: `${origin}/api/user`,
      headers: { Authorization: f.owner },
      redact: ["Authorization"],
    }),
    probe: (f) => ({ path: "/api/user", headers: { authorization: f.owner } }),
  },
  {
    name: "GET /api/healthcheck",
    from: "files",
    load: FILES_LOAD,
    status: 200,
    request: (origin) => ({ url: `${origin}/api/healthcheck` }),
    probe: () => ({ path: "/api/healthcheck" }),
  },
  {
    name: "POST /api/upload (one 1 KiB file, token)",
    from: "uploads",
    load: UPLOADS_LOAD,
    status: 200,
    request: (origin, f) => ({
      url: `${origin}/api/upload`,
      headers: { Authorization: f.admin },
      redact: ["Authorization"],
      script: WRK_SCRIPTS.upload,
      env: { WRK_BODY: BODY, WRK_BOUNDARY: BOUNDARY },
    }),
    probe: (f) => ({
      path: "/api/upload",
      method: "POST",
      headers: {
        authorization: f.admin,
        "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
      },
      body: BODY,
    }),
  },
];

/** A store kind and where each side keeps its copy. */
interface StoreKind {
  name: "Deno KV" | "PostgreSQL";
  /** The database of side `a` and of side `b` (PostgreSQL), and their cluster's postmaster. */
  urls?: { a: string; b: string };
  postmaster?: number;
}

/** One measured run: wrk's figures and the server's CPU per answer. */
interface Run extends WrkResult {
  /** The server process's user + system CPU over the run, per request answered (µs). */
  cpuUs: number;
  /** The same of its database's backends (PostgreSQL), not counted in {@link cpuUs}. */
  dbCpuUs?: number;
  /** {@link cpuUs} by thread (`threadCpuSeconds`' names: `deno` the main thread, `sw` KV's writer). */
  threads: Map<string, number>;
}

/** One scenario on one store, measured. */
interface Measured {
  scenario: Scenario;
  store: StoreKind["name"];
  rounds: PairedRound<Run>[];
}

/** A running side: its server and the tokens of its data. */
interface Running {
  server: BenchServer;
  fixture: Fixture;
}

/**
 * Fills a fresh copy of the data for `checkout` with its own store code
 * (`http_files.ts`' users, files and small file, `http_redirects.ts`' short
 * URLs) and starts its server on it.
 */
async function startSide(checkout: Checkout, kind: StoreKind, side: "a" | "b"): Promise<Running> {
  const dataDir = await Deno.makeTempDir({ prefix: `ferry-bench-paired-${side}-` });
  cleanups.push(() => Deno.remove(dataDir, { recursive: true }));
  const open = await openersOf(checkout.root);
  const url = kind.urls?.[side];
  const opened = url ? await open.openPostgresStore(url) : await open.openKvStore(
    join(dataDir, "ferry.kv"),
  );
  // Both builds' stores have the file and URL areas, with the same methods; users
  // are made by each build's own helper (older builds have no user area).
  const store = opened as unknown as Store;
  let fixture: Fixture;
  try {
    const [admin, owner] = await open.populateUsers(opened, USERS) as UserRecord[];
    await populateFiles(store, dataDir, admin.id, owner.id);
    await populateUrls(store, owner.id);
    const now = Date.now();
    const token = (stored: string) => clientToken(stored, now, SECRET, systemRandom);
    fixture = { admin: token(admin.token), owner: token(owner.token) };
  } finally {
    await opened.close();
  }
  if (url) {
    // The planner's statistics, as autovacuum leaves them on a table in use.
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    await sql`VACUUM ANALYZE`.finally(() => sql.end());
  }
  const env: Record<string, string> = {
    SERVICE_HOSTNAME: "127.0.0.1",
    SERVICE_DATA_DIR: dataDir,
    SERVICE_SECRET: SECRET,
    SERVICE_RATELIMIT_ENABLED: "false",
    ...(url ? { DATABASE_URL: url } : {}),
  };
  const args = PROFILE
    ? [
      FERRY_ARGS[0],
      "--cpu-prof",
      `--cpu-prof-dir=${join(PROFILE, side === "a" ? "baseline" : "candidate")}`,
      ...FERRY_ARGS.slice(1),
    ]
    : FERRY_ARGS;
  const server = await startServer(args, env, "/api/healthcheck", checkout.root);
  cleanups.push(() => server.stop());
  return { server, fixture };
}

/** The most a server may use of a CPU (10 ms of 500) and count as idle ({@link settled}). */
const IDLE_CPU_SECONDS = 0.01;
/** How long {@link settled} waits at most after a run, and after a server starts (its tasks' first pass). */
const SETTLE_MAX_MS = 20_000;
const STARTED_MAX_MS = 120_000;

/**
 * Waits until the server `pid` (with its children) is idle: a while of
 * 500 ms in which it used at most {@link IDLE_CPU_SECONDS}. So the work
 * requests leave to the background (a store's builds after uploads) is
 * counted in the run whose requests left it, not in the next one's, nor
 * left out when the run ends before it.
 */
async function settled(pid: number, maxMs = SETTLE_MAX_MS): Promise<void> {
  const deadline = Date.now() + maxMs;
  let last = await treeCpuSeconds(pid);
  while (Date.now() < deadline) {
    await new Promise((wake) => setTimeout(wake, 500));
    const now = await treeCpuSeconds(pid);
    if (now - last <= IDLE_CPU_SECONDS) return;
    last = now;
  }
}

/** Sends `scenario`'s probe to `running` and throws unless it answers the expected status. */
async function probe(scenario: Scenario, running: Running, label: string): Promise<void> {
  const { path, ...init } = scenario.probe(running.fixture);
  const response = await fetch(`${running.server.origin}${path}`, { ...init, redirect: "manual" });
  const body = await response.text();
  if (response.status !== scenario.status) {
    throw new Error(`${label}: ${scenario.name} answered ${response.status}: ${body}`);
  }
}

/** Every selected scenario on one store, the two sides alternating. */
async function storeRuns(kind: StoreKind, sides: { a: Checkout; b: Checkout }) {
  console.log(kind.name);
  const selected = SCENARIOS.filter((s) =>
    !ONLY || new RegExp(ONLY).test(`${s.name} — ${kind.name}`)
  );
  if (!selected.length) return { measured: [], commands: [] };
  const running = {
    a: await startSide(sides.a, kind, "a"),
    b: await startSide(sides.b, kind, "b"),
  };
  // The tasks' first pass at start (the statistics' recount, metrics) done before any run.
  await Promise.all([running.a, running.b].map((r) => settled(r.server.pid, STARTED_MAX_MS)));
  const measured: Measured[] = [];
  for (const scenario of selected) {
    await probe(scenario, running.a, "baseline");
    await probe(scenario, running.b, "candidate");
    const rounds = await alternate(ROUNDS, async (side, round) => {
      const options = {
        ...scenario.request(running[side].server.origin, running[side].fixture),
        ...scenario.load,
      };
      await wrk({ ...options, durationSeconds: scenario.load.warmupSeconds });
      const { pid } = running[side].server;
      await settled(pid);
      const database = kind.urls && new URL(kind.urls[side]).pathname.slice(1);
      const dbCpu = () =>
        database ? databaseCpuSeconds(kind.postmaster!, database) : Promise.resolve(0);
      const [cpuBefore, dbBefore, threadsBefore] = await Promise.all([
        treeCpuSeconds(pid),
        dbCpu(),
        threadCpuSeconds(pid),
      ]);
      const result = await wrk(options);
      await settled(pid);
      const [cpuAfter, dbAfter, threadsAfter] = await Promise.all([
        treeCpuSeconds(pid),
        dbCpu(),
        threadCpuSeconds(pid),
      ]);
      const each = (seconds: number) => seconds / result.requests * 1e6;
      const cpuUs = each(cpuAfter - cpuBefore);
      const dbCpuUs = database ? each(dbAfter - dbBefore) : undefined;
      const threads = new Map(
        [...threadsAfter].map(([name, s]) => [name, each(s - (threadsBefore.get(name) ?? 0))]),
      );
      console.log(
        `  ${scenario.name}, round ${round + 1}, ${side === "a" ? "baseline" : "candidate"}: ` +
          `${result.requestsPerSecond.toFixed(0)} req/s, ${cpuUs.toFixed(0)} µs CPU each` +
          `${dbCpuUs === undefined ? "" : ` + ${dbCpuUs.toFixed(0)} µs database`} (${
            threadSplit(threads)
          }), p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, load ${Deno.loadavg()[0].toFixed(2)}`,
      );
      return { ...result, cpuUs, dbCpuUs, threads };
    });
    measured.push({ scenario, store: kind.name, rounds });
  }
  await running.a.server.stop();
  await running.b.server.stop();
  return { measured, commands: [running.a.server.command, running.b.server.command] };
}

/** A run's CPU by thread, largest first: `deno 1200 · sw 300 · …` (µs a request). */
function threadSplit(threads: Map<string, number>): string {
  return [...threads].filter(([, us]) => us >= 1).sort((x, y) => y[1] - x[1])
    .map(([name, us]) => `${name} ${us.toFixed(0)}`).join(" · ");
}

const rps = (r: WrkResult) => r.requestsPerSecond;
/** Answers per CPU second: the server's capacity, steadier than req/s when others load the CPUs. */
const perCpu = (r: Run) => 1e6 / r.cpuUs;
/** Answers per CPU second of the server and its database's backends (PostgreSQL). */
const perTotalCpu = (r: Run) => 1e6 / (r.cpuUs + (r.dbCpuUs ?? 0));
const pct = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;
/** A number of milliseconds to the microsecond, without float noise. */
const ms = (value: number) => String(Math.round(value * 1000) / 1000);
const latencies = (rs: WrkResult[]) =>
  `${ms(median(rs.map((r) => r.p50Ms)))} / ${ms(median(rs.map((r) => r.p99Ms)))} ms`;

/** One line per scenario and store: the medians, the ratio and the verdict. */
function summary(all: Measured[]): string {
  const lines = [
    "| scenario | store | baseline req/s | candidate req/s | candidate / baseline (median of rounds) | each round | baseline p50 / p99 | candidate p50 / p99 | server CPU per request, baseline / candidate | baseline / candidate CPU (median of rounds) | server + database CPU per request (PostgreSQL), baseline / candidate | its ratio (median of rounds) | within 5 % |",
    "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const m of all) {
    const v = pairedVerdict(m.rounds, rps);
    const cpu = pairedVerdict(m.rounds, perCpu);
    const total = pairedVerdict(m.rounds, perTotalCpu);
    const withDb = m.rounds[0].a.dbCpuUs !== undefined;
    lines.push(
      `| ${m.scenario.name} | ${m.store} | ${v.a.toFixed(0)} | ${v.b.toFixed(0)} | ` +
        `${pct(v.ratio)} | ${v.ratios.map((r) => (r * 100).toFixed(0)).join(", ")} | ` +
        `${latencies(m.rounds.map((r) => r.a))} | ${latencies(m.rounds.map((r) => r.b))} | ` +
        `${(1e6 / cpu.a).toFixed(0)} / ${(1e6 / cpu.b).toFixed(0)} µs | ${pct(cpu.ratio)} | ` +
        (withDb
          ? `${(1e6 / total.a).toFixed(0)} / ${(1e6 / total.b).toFixed(0)} µs | ${
            pct(total.ratio)
          } | `
          : "| | ") +
        `${v.ratio >= 1 - TOLERANCE ? "yes" : "**no**"} |`,
    );
  }
  return lines.join("\n");
}

/** Every run, with the load average at its round's start. */
function everyRun(all: Measured[]): string {
  const lines = [
    "| scenario | store | round | first | load (1, 5, 15 min) at the round's start | baseline req/s | candidate req/s | ratio | CPU per request, baseline / candidate | by thread, baseline; candidate (µs) | database CPU per request, baseline / candidate | baseline p50 / p99 | candidate p50 / p99 | non-2xx/3xx (baseline / candidate) |",
    "| --- | --- | ---: | --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |",
  ];
  for (const m of all) {
    m.rounds.forEach((r, i) => {
      const errors = (x: Run) => `${x.non2xx}${x.socketErrors ? ` (${x.socketErrors})` : ""}`;
      lines.push(
        `| ${m.scenario.name} | ${m.store} | ${i + 1} | ` +
          `${r.first === "a" ? "baseline" : "candidate"} | ${r.load} | ` +
          `${rps(r.a).toFixed(0)} | ${rps(r.b).toFixed(0)} | ${pct(rps(r.b) / rps(r.a))} | ` +
          `${r.a.cpuUs.toFixed(0)} / ${r.b.cpuUs.toFixed(0)} µs | ` +
          `${threadSplit(r.a.threads)}; ${threadSplit(r.b.threads)} | ` +
          (r.a.dbCpuUs === undefined
            ? "| "
            : `${r.a.dbCpuUs.toFixed(0)} / ${r.b.dbCpuUs!.toFixed(0)} µs | `) +
          `${r.a.p50Ms} / ${r.a.p99Ms} ms | ${r.b.p50Ms} / ${r.b.p99Ms} ms | ` +
          `${errors(r.a)} / ${errors(r.b)} |`,
      );
    });
  }
  return lines.join("\n");
}

/** The candidate: this checkout's HEAD, said to carry uncommitted changes when it does. */
async function candidate(): Promise<Checkout> {
  const head = await describeCommit("HEAD");
  head.title = head.title.length > 90 ? `${head.title.slice(0, 89)}…` : head.title;
  const status = await new Deno.Command("git", {
    args: ["status", "--porcelain", "--untracked-files=no"],
    cwd: REPO_ROOT,
    stdout: "piped",
  }).output();
  const dirty = new TextDecoder().decode(status.stdout).trim() !== "";
  return {
    root: REPO_ROOT,
    ...head,
    title: head.title + (dirty ? " (with uncommitted changes)" : ""),
  };
}

/** Runs the pairs on both stores and writes {@link RESULTS}; returns its path. */
export function run(): Promise<string> {
  return wrkBench(async () => {
    const started = Date.now();
    const sides = { a: await worktreeAt(BASELINE), b: await candidate() };
    console.log(`baseline ${sides.a.title}\ncandidate ${sides.b.title}`);
    const loadAtStart = Deno.loadavg().map((l) => l.toFixed(2)).join(", ");
    const kv = await storeRuns({ name: "Deno KV" }, sides);
    const pg = await benchDatabases(["ferry_paired_a", "ferry_paired_b"]);
    const onPg = await storeRuns(
      { name: "PostgreSQL", urls: { a: pg.urls[0], b: pg.urls[1] }, postmaster: pg.pid },
      sides,
    );
    const all = [...kv.measured, ...onPg.measured];
    const commands = [
      ...kv.commands,
      ...onPg.commands,
      ...all.map((m) => m.rounds[0].a.command),
    ];
    await cleanUp();
    const loads = all.flatMap((m) => m.rounds.map((r) => Number(r.load.split(" ")[0])));
    const text = [
      "# The serving store against the code before it (paired)",
      "",
      `Written by \`bench/paired.ts\` (\`deno task bench paired\`) in ${
        ((Date.now() - started) / 60_000).toFixed(0)
      } minutes. Baseline: \`${sides.a.title}\` (main before the serving store's merge), ` +
      `checked out into a temporary worktree; candidate: \`${sides.b.title}\`. Each runs as ` +
      "its own server (`main.ts serve`, rate limits off) on its own copy of the same data " +
      "(1,000 users, 10,000 files of one of them, the SUPERADMIN's 6-byte file, two short " +
      "URLs), filled by its own store code; both servers are up for the whole store. For " +
      `each scenario and store, ${ROUNDS} rounds: in each, wrk loads one side (warm-up, then ` +
      "the measured run, with the wrk settings of the benchmark named) and then the other, " +
      "the first alternating from round to round, so that the machine's other work falls on " +
      "both alike. The verdict is the median of the rounds' candidate / baseline ratios " +
      "(requests per second); the issue asks for at least 95 %. Beside it, the server " +
      "process's CPU time (user + system, `/proc`) per request answered: what a request " +
      "costs, whatever else shares the CPUs, so steadier than requests per second on a " +
      "loaded machine; its column is baseline CPU / candidate CPU (above 100 %: the " +
      "candidate costs less). Each side is left to settle (500 ms with at most 10 ms of its CPU) " +
      "after its warm-up and after its measured run, which the CPU counts: background work a run's " +
      "requests leave (a store's builds after uploads) falls in that run. On PostgreSQL the CPU of each side's database backends " +
      "(`postgres: … <database>` processes of the cluster both use) is counted beside it." +
      (ONLY ? ` Only the scenarios matching \`${ONLY}\` ran.` : ""),
      "",
      `The machine is shared (2 CPUs, other sessions' tests and benchmarks running): the ` +
      `1-minute load average was ${loadAtStart.split(",")[0]} at the start and ranged from ` +
      `${Math.min(...loads).toFixed(2)} to ${Math.max(...loads).toFixed(2)} at the rounds' ` +
      "starts (each round's below). Absolute figures are therefore lower than on an idle " +
      "machine; the ratios, taken between runs seconds apart, are the result.",
      "",
      await wrkMachineSection(pg.version),
      "## Verdict",
      "",
      summary(all),
      "",
      "wrk settings (threads, connections, seconds measured after a warm-up of): " +
      SCENARIOS.map((s) =>
        `${s.name} as \`bench/http_${s.from}.ts\`, -t${s.load.threads} -c${s.load.connections} ` +
        `${s.load.durationSeconds} s after ${s.load.warmupSeconds} s`
      ).join("; ") + ".",
      "",
      "## Every round",
      "",
      everyRun(all),
      "",
      "## Commands",
      "",
      "The servers (the baseline's from its worktree, the candidate's from this checkout), then wrk:",
      "",
      "```sh",
      ...new Set(commands.map(shown)),
      "```",
      "",
    ].join("\n");
    await Deno.mkdir(join(REPO_ROOT, "bench/results"), { recursive: true });
    await Deno.writeTextFile(RESULTS, text);
    console.log(`\n${summary(all)}\n\nwritten to ${RESULTS}`);
    return RESULTS;
  });
}

/** A command line for the results file, without its ports, temp dirs and body. */
function shown(command: string): string {
  return command.replace(/SERVICE_PORT=\d+/, "SERVICE_PORT=<port>")
    .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>")
    .replace(/SERVICE_DATA_DIR=\S+/, "SERVICE_DATA_DIR=<temp dir>")
    .replace(/DATABASE_URL=\S+/, "DATABASE_URL=<throwaway cluster>")
    .replace(/WRK_BODY='[^']*'/, "WRK_BODY=<1 KiB upload>");
}

if (import.meta.main) await run();
