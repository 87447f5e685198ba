/**
 * Visits (issue #35 part 2), on Deno KV and on PostgreSQL:
 *
 * (a) redirects per second with analytics on against off, paired: the same
 *     server setup started with `SERVICE_ANALYTICS_ENABLED` on and off in
 *     turn, {@link ROUNDS} rounds (`helpers/paired.ts`: the first of each
 *     round alternating, the verdict the median of the rounds' on / off), wrk
 *     on loopback (`GET /go/<code>`); beside requests per second, the CPU time
 *     the server (and PostgreSQL) spent per redirect, steadier on a shared
 *     machine; goal: on at least 85 % of off. Two kinds of traffic
 *     ({@link TRAFFIC}): every request from one client with one user agent
 *     (the recorder groups a batch's visits by visitor: its best case, as
 *     traffic that repeats its visitors is), and every request from a visitor
 *     of its own (`wrk/many_visitors.lua`: a random `X-Forwarded-For`, the
 *     server trusting one proxy, and one of five user agents: a group, a hash
 *     and a sketch entry a visit, its worst case);
 * (b) the time `GET /api/user/urls/:id/visits`'s store reads take for a month
 *     by day (the core's `targetVisits` / `ownerVisits` / `serverVisits`),
 *     over hourly roll-ups holding {@link VISITS} visits written in bulk
 *     through the store (`VisitStore.addHours`, no raw visits; each hour with
 *     a sketch of 80 % of its visits as distinct visitors: a link's hours
 *     sparse, the owner's and the server's dense); goal: under
 *     200 ms on PostgreSQL and 1 s on Deno KV.
 *
 * Writes `bench/results/visits.md`, a section per part, each with when it was
 * measured and the load average; `--parts=a` or `--parts=b` runs one part and
 * keeps the other's section from the file as it was (hand-written notes are
 * not kept: write them again). `--visits=N` changes (b)'s total,
 * `--rounds=N` (or `BENCH_VISITS_ROUNDS=<n>`) (a)'s rounds, `--traffic=one` or
 * `--traffic=many` measures (a) with that traffic only.
 * Run: `deno task bench visits [--parts=a|b] [--rounds=N] [--traffic=one|many]`.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { systemRandom } from "../core/clock.ts";
import { ManualClock } from "../core/clock.ts";
import type { Services } from "../core/services.ts";
import { ownerVisits, serverVisits, targetVisits } from "../core/visits/query.ts";
import type { Store } from "../db/store.ts";
import type { UserRecord } from "../db/users.ts";
import { entryOf, type Sketch, sketchOf } from "../db/hll.ts";
import { HOUR_MS } from "../db/visit_rollup.ts";
import { SERVER_SCOPE, type VisitHourWrite, type VisitScope } from "../db/visits.ts";
import { CODE, populate } from "./http_redirects.ts";
import { benchDatabase, cleanUp, cleanups, wrkBench } from "./helpers/cleanup.ts";
import { treeCpuSeconds } from "./helpers/cpu.ts";
import { loadAverage, wrkMachineSection } from "./helpers/machine.ts";
import { alternate, median, type PairedRound, pairedVerdict } from "./helpers/paired.ts";
import { FERRY_ARGS, REPO_ROOT, startServer } from "./helpers/server.ts";
import { kvStore, postgresStore } from "./helpers/stores.ts";
import { wrk, WRK_SCRIPTS, type WrkResult } from "./helpers/wrk.ts";

const LOAD = { threads: 2, connections: 32, durationSeconds: 8, warmupSeconds: 2 };
/** Rounds of off and on per store and traffic (`--rounds` changes it for a run). */
let ROUNDS = Number(Deno.env.get("BENCH_VISITS_ROUNDS") ?? 7);
/** The traffics (a) measures (`--traffic` picks one). */
let TRAFFICS: Traffic[] = ["one", "many"];
/** Visits the roll-ups of (b) hold, by default. */
const VISITS = 10_000_000;
/** Links (b) spreads them over, and the days. */
const TARGETS = 100;
const DAYS = 90;
const RESULTS = join(REPO_ROOT, "bench/results/visits.md");

const ENV = {
  SERVICE_HOSTNAME: "127.0.0.1",
  SERVICE_SECRET: "ferry-bench-secret-ferry-bench-secret-ferry-bench-secret-0123456",
  SERVICE_RATELIMIT_ENABLED: "false",
};

/** (a)'s kinds of traffic: what wrk sends and what the server needs for it. */
const TRAFFIC = {
  one: { label: "one visitor", script: undefined, env: {} },
  many: {
    label: "many visitors",
    script: WRK_SCRIPTS.manyVisitors,
    env: { SERVICE_CORE_TRUST_PROXY: "true" },
  },
} as const;
type Traffic = keyof typeof TRAFFIC;

/** The parts this run measures. */
type Part = "a" | "b";

/** One measured run: wrk's report and the CPU time spent per redirect. */
interface Run {
  wrk: WrkResult;
  /** The server process's CPU microseconds per request (every thread). */
  serverUs: number;
  /** PostgreSQL's (every backend), `0` on Deno KV. */
  databaseUs: number;
}

interface Paired {
  store: string;
  traffic: Traffic;
  /** Side `a`: analytics off; `b`: on. */
  rounds: PairedRound<Run>[];
}

/** `GET /go/<code>` under `traffic` with analytics `on` or off; `databasePid` the postmaster's. */
async function redirects(
  env: Record<string, string>,
  traffic: Traffic,
  on: boolean,
  databasePid: number | null,
): Promise<Run> {
  const { script, env: trafficEnv } = TRAFFIC[traffic];
  const server = await startServer(FERRY_ARGS, {
    ...env,
    ...trafficEnv,
    SERVICE_ANALYTICS_ENABLED: String(on),
  }, "/api/healthcheck");
  cleanups.push(() => server.stop());
  try {
    const url = `${server.origin}/go/${CODE}`;
    await wrk({ url, ...LOAD, script, durationSeconds: LOAD.warmupSeconds });
    const cpu = async () => [
      await treeCpuSeconds(server.pid),
      databasePid === null ? 0 : await treeCpuSeconds(databasePid),
    ];
    const [server0, database0] = await cpu();
    const result = await wrk({ url, ...LOAD, script });
    const [server1, database1] = await cpu();
    if (result.non2xx > 0) throw new Error(`${result.non2xx} answers not 3xx:\n${result.output}`);
    const perRequest = (seconds: number) => (seconds * 1e6) / Math.max(1, result.requests);
    const run = {
      wrk: result,
      serverUs: perRequest(server1 - server0),
      databaseUs: perRequest(database1 - database0),
    };
    console.log(
      `  ${traffic}, analytics ${on ? "on" : "off"}: ${
        result.requestsPerSecond.toFixed(0)
      } req/s, ` +
        `${run.serverUs.toFixed(1)} µs server + ${
          run.databaseUs.toFixed(1)
        } µs database CPU a request`,
    );
    return run;
  } finally {
    await server.stop();
  }
}

/** (a) on one store: {@link ROUNDS} paired rounds of each traffic. */
async function paired(
  store: string,
  env: Record<string, string>,
  databasePid: number | null,
): Promise<Paired[]> {
  const pairs: Paired[] = [];
  for (const traffic of TRAFFICS) {
    const rounds = await alternate(
      ROUNDS,
      (side) => redirects(env, traffic, side === "b", databasePid),
    );
    pairs.push({ store, traffic, rounds });
  }
  return pairs;
}

/** The roll-up hours of (b): `TARGETS` links of one owner, their owner's and the server's. */
async function fill(store: Store, owner: string, total: number, end: number): Promise<string[]> {
  const hours = DAYS * 24;
  const perHour = Math.max(1, Math.round(total / (TARGETS * hours)));
  const targets = Array.from(
    { length: TARGETS },
    (_, i) => `cbenchtarget${String(i).padStart(13, "0")}`,
  );
  const dims = (n: number, i: number) => [
    { dimension: "referrer" as const, value: `site${i % 7}.example`, count: n },
    { dimension: "country" as const, value: ["DE", "US", "FR", "GB"][i % 4], count: n },
    { dimension: "browser" as const, value: ["Chrome", "Firefox", "Safari"][i % 3], count: n },
    { dimension: "os" as const, value: ["Windows", "iOS", "Android", "macOS"][i % 4], count: n },
    { dimension: "device" as const, value: ["desktop", "mobile"][i % 2], count: n },
  ];
  // Each hour's sketch of 80 % of its visits as distinct visitors, from a pool of 24 a size
  // (made once: their bytes and the reads' work are those of distinct ones).
  const pools = new Map<number, Sketch[]>();
  const sketchFor = (n: number, i: number): Sketch => {
    let pool = pools.get(n);
    if (pool === undefined) {
      pools.set(n, pool = Array.from({ length: 24 }, () => randomSketch(Math.ceil(n * 0.8))));
    }
    return pool[i % pool.length];
  };
  const row = (scope: VisitScope, hour: number, n: number, i: number): VisitHourWrite => ({
    scope,
    hour: new Date(hour),
    visits: n,
    hourUniques: 0,
    dayUniques: 0,
    sketch: sketchFor(n, i),
    dimensions: dims(n, i),
  });
  const start = end - hours * HOUR_MS;
  const began = performance.now();
  for (const [t, target] of targets.entries()) {
    const batch: VisitHourWrite[] = [];
    for (let h = 0; h < hours; h++) {
      batch.push(row({ kind: "url", id: target }, start + h * HOUR_MS, perHour, h + t));
    }
    await store.visits.addHours(batch);
  }
  const rollups: VisitHourWrite[] = [];
  for (let h = 0; h < hours; h++) {
    rollups.push(row({ kind: "owner", id: owner }, start + h * HOUR_MS, perHour * TARGETS, h));
    rollups.push(row(SERVER_SCOPE, start + h * HOUR_MS, perHour * TARGETS, h));
  }
  await store.visits.addHours(rollups);
  console.log(
    `  filled ${perHour * TARGETS * hours} visits in ${
      ((performance.now() - began) / 1000).toFixed(0)
    } s`,
  );
  return targets;
}

/** The sketch of `n` random visitor hashes. */
function randomSketch(n: number): Sketch {
  const entries: number[] = [];
  const bytes = new Uint8Array(8);
  for (let i = 0; i < n; i++) {
    crypto.getRandomValues(bytes);
    entries.push(entryOf(Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")));
  }
  return sketchOf(entries);
}

interface QueryRow {
  store: string;
  what: string;
  ms: number[];
  visits: number;
}

/** (b) on `store`: the median of five reads of a month by day of a link, the owner and the server. */
async function queries(label: string, store: Store, total: number): Promise<QueryRow[]> {
  const owner: UserRecord = { id: "cbenchowner00000000000000", role: "ADMIN" } as UserRecord;
  const end = Date.UTC(2027, 5, 1);
  const targets = await fill(store, owner.id, total, end);
  // The link's record, for the owner check of targetVisits.
  const url = { id: targets[0], userId: owner.id };
  const s = {
    store: {
      ...store,
      visits: store.visits,
      urls: { ...store.urls, get: () => Promise.resolve(url) },
    },
    clock: new ManualClock(end),
    random: systemRandom,
    settings: { get: () => false },
    logger: console,
  } as unknown as Services;
  const query = {
    from: new Date(end - 30 * 86_400_000).toISOString(),
    to: new Date(end).toISOString(),
    bucket: "day" as const,
  };
  const rows: QueryRow[] = [];
  for (
    const [what, read] of [
      ["one link, a month by day", () => targetVisits(s, owner, "url", url.id, query)],
      ["the owner's links (`/api/user/visits`)", () => ownerVisits(s, owner, query)],
      ["the server (`/api/server/visits`)", () => serverVisits(s, owner, query)],
    ] as const
  ) {
    const ms: number[] = [];
    let visits = 0;
    for (let i = 0; i < 5; i++) {
      const began = performance.now();
      const report = await read();
      ms.push(performance.now() - began);
      visits = report.series.reduce((n, p) => n + p.visits, 0);
    }
    console.log(`  ${label}, ${what}: ${median(ms).toFixed(1)} ms`);
    rows.push({ store: label, what, ms, visits });
  }
  return rows;
}

/** The parts `--parts` names (`a`, `b` or `a,b`; both when absent). */
function partsOf(value: string | undefined): Set<Part> {
  const parts = new Set((value ?? "a,b").split(",").map((p) => p.trim()));
  for (const part of parts) {
    if (part !== "a" && part !== "b") throw new Error(`--parts: no part ${part} (a, b)`);
  }
  return parts as Set<Part>;
}

/**
 * The section of the Markdown `text` whose heading starts with `heading`
 * (`## (b)`), up to the next heading of its level; `null` when it has none.
 */
function sectionOf(text: string, heading: string): string | null {
  const lines = text.split("\n");
  const start = lines.findIndex((line) => line.startsWith(heading));
  if (start < 0) return null;
  const end = lines.findIndex((line, i) => i > start && line.startsWith("## "));
  return `${lines.slice(start, end < 0 ? undefined : end).join("\n").trimEnd()}\n`;
}

/** When a part was measured, for its section. */
interface Measured {
  date: string;
  loadBefore: string;
  loadAfter: string;
}

/** Runs `body`, noting when and at which load. */
async function measured<T>(body: () => Promise<T>): Promise<{ result: T; when: Measured }> {
  const date = new Date().toISOString();
  const loadBefore = await loadAverage();
  const result = await body();
  return { result, when: { date, loadBefore, loadAfter: await loadAverage() } };
}

const measuredLine = (m: Measured) =>
  `Measured ${m.date}, load average ${m.loadBefore} before, ${m.loadAfter} after.`;
const rps = (run: Run) => run.wrk.requestsPerSecond;
const cpuUs = (run: Run) => run.serverUs + run.databaseUs;
const pct = (ratio: number) => `${(100 * ratio).toFixed(0)} %`;

/** (a)'s section of the results. */
function redirectSection(pairs: Paired[], when: Measured): string {
  return [
    "## (a) Redirects per second, analytics off and on (paired)",
    "",
    measuredLine(when),
    "",
    `\`GET /go/<code>\` (302, the fast path), wrk ${LOAD.threads} threads, ${LOAD.connections} ` +
    `connections, ${LOAD.durationSeconds} s after ${LOAD.warmupSeconds} s of warm-up; ${ROUNDS} ` +
    "rounds of off and on (the first of each round alternating) per store and traffic, a fresh " +
    "server each run. Traffic: *one visitor* (every request from one client, one user agent: " +
    "the batch's best case) or *many visitors* (`bench/wrk/many_visitors.lua`: each request " +
    "from an address of its own out of 16 million through a trusted proxy's " +
    "`X-Forwarded-For`, one of five user agents: a group, a hash and a sketch entry a visit, the " +
    "batch's worst case; the server trusts the proxy with analytics off too). The verdict is " +
    "the median of the rounds' on / off (each round's two runs a minute apart at most). CPU " +
    "is the time the server process (every thread) and PostgreSQL (every backend) spent per " +
    "redirect during the run; on / off of CPU is the median of the rounds' off CPU / on CPU " +
    "(the throughput the CPU alone would allow). Goal: on ≥ 85 % of off.",
    "",
    "| store | traffic | off (req/s, median) | on (req/s, median) | on / off (median of rounds) " +
    "| CPU µs a redirect, off → on (medians) | on / off by CPU (median of rounds) |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ...pairs.map((p) => {
      const v = pairedVerdict(p.rounds, rps);
      const cpu = pairedVerdict(p.rounds, cpuUs);
      const byCpu = pairedVerdict(p.rounds, (run) => 1 / cpuUs(run));
      return `| ${p.store} | ${TRAFFIC[p.traffic].label} | ${v.a.toFixed(0)} | ` +
        `${v.b.toFixed(0)} | ${pct(v.ratio)} | ${cpu.a.toFixed(1)} → ${cpu.b.toFixed(1)} | ` +
        `${pct(byCpu.ratio)} |`;
    }),
    "",
    "Each round (load average at its start; req/s and server + database CPU µs a redirect):",
    "",
    "| store | traffic | round | load | off req/s | on req/s | on / off | off CPU µs | " +
    "on CPU µs |",
    "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |",
    ...pairs.flatMap((p) =>
      p.rounds.map((r, i) =>
        `| ${p.store} | ${TRAFFIC[p.traffic].label} | ${i + 1} | ${r.load} | ` +
        `${rps(r.a).toFixed(0)} | ${rps(r.b).toFixed(0)} | ${pct(rps(r.b) / rps(r.a))} | ` +
        `${r.a.serverUs.toFixed(1)} + ${r.a.databaseUs.toFixed(1)} | ` +
        `${r.b.serverUs.toFixed(1)} + ${r.b.databaseUs.toFixed(1)} |`
      )
    ),
    "",
  ].join("\n");
}

/** (b)'s section of the results. */
function querySection(rows: QueryRow[], total: number, when: Measured): string {
  return [
    "## (b) A month by day over stored visits",
    "",
    measuredLine(when),
    "",
    `${total.toLocaleString("en")} visits as hourly roll-ups written in bulk through the store ` +
    `(\`VisitStore.addHours\`): ${TARGETS} links of one owner over ${DAYS} days (one row per ` +
    "link and hour, five dimension values each, a sketch of 80 % of its visits as distinct " +
    "visitors: a link's sparse, about 150 bytes; the owner's and the server's dense, 12,289 " +
    "bytes), with the owner's and the server's roll-ups; " +
    "no raw visits (the reads never touch them). Each read is the core's report (the hours " +
    "of 30 days, the dimensions' sums, the buckets), timed five times. Goal: < 200 ms on " +
    "PostgreSQL, < 1 s on Deno KV.",
    "",
    "| store | read | median ms | runs (ms) | visits in the month |",
    "| --- | --- | ---: | --- | ---: |",
    ...rows.map((r) =>
      `| ${r.store} | ${r.what} | ${median(r.ms).toFixed(1)} | ` +
      `${r.ms.map((m) => m.toFixed(1)).join(", ")} | ${r.visits.toLocaleString("en")} |`
    ),
    "",
  ].join("\n");
}

/** (a) on both stores: the stores filled with the redirect's link, then the paired rounds. */
async function partA(url: string, pid: number): Promise<Paired[]> {
  const kvDir = await Deno.makeTempDir({ prefix: "ferry-bench-visits-kv-" });
  cleanups.push(() => Deno.remove(kvDir, { recursive: true }));
  const kv = await kvStore(join(kvDir, "ferry.kv"));
  await populate(kv).finally(() => kv.close());
  console.log("(a) Deno KV");
  const kvPairs = await paired("Deno KV", { ...ENV, SERVICE_DATA_DIR: kvDir }, null);

  const pg = await postgresStore(url);
  await populate(pg).finally(() => pg.close());
  const pgDir = await Deno.makeTempDir({ prefix: "ferry-bench-visits-pg-" });
  cleanups.push(() => Deno.remove(pgDir, { recursive: true }));
  console.log("(a) PostgreSQL");
  const pgPairs = await paired("PostgreSQL", {
    ...ENV,
    SERVICE_DATA_DIR: pgDir,
    DATABASE_URL: url,
  }, pid);
  return [...kvPairs, ...pgPairs];
}

/** (b) on both stores, each filled with `total` visits. */
async function partB(url: string, total: number): Promise<QueryRow[]> {
  console.log("(b)");
  const kvQueryDir = await Deno.makeTempDir({ prefix: "ferry-bench-visits-kvq-" });
  cleanups.push(() => Deno.remove(kvQueryDir, { recursive: true }));
  const kvq = await kvStore(join(kvQueryDir, "ferry.kv"));
  const kvRows = await queries("Deno KV", kvq, total).finally(() => kvq.close());
  const pgq = await postgresStore(url);
  const pgRows = await queries("PostgreSQL", pgq, total).finally(() => pgq.close());
  return [...kvRows, ...pgRows];
}

/**
 * Runs the parts `--parts` names (both by default) on both stores and writes
 * `bench/results/visits.md`, a part not run keeping its section as it was.
 */
export function run(args: string[] = Deno.args): Promise<string> {
  const { values } = parseArgs({
    args,
    options: {
      visits: { type: "string" },
      parts: { type: "string" },
      rounds: { type: "string" },
      traffic: { type: "string" },
    },
    strict: false,
  });
  if (values.rounds !== undefined) ROUNDS = Number(values.rounds);
  if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error("--rounds: a whole number ≥ 1");
  if (values.traffic !== undefined) {
    if (!((values.traffic as string) in TRAFFIC)) throw new Error("--traffic: one or many");
    TRAFFICS = [values.traffic as Traffic];
  }
  const total = Number(values.visits ?? VISITS);
  const parts = partsOf(values.parts as string | undefined);
  return wrkBench(async () => {
    const previous = await Deno.readTextFile(RESULTS).catch(() => "");
    const kept = (heading: string) =>
      sectionOf(previous, heading) ?? `${heading} …\n\nNot measured yet.\n`;
    const { url, version, pid } = await benchDatabase();
    let a = kept("## (a)");
    if (parts.has("a")) {
      const { result, when } = await measured(() => partA(url, pid));
      a = redirectSection(result, when);
    }
    let b = kept("## (b)");
    if (parts.has("b")) {
      const { result, when } = await measured(() => partB(url, total));
      b = querySection(result, total, when);
    }
    const machine = await wrkMachineSection(version);
    await cleanUp();

    const text = [
      "# Visits: redirects with analytics on and off, and reading a month",
      "",
      "Written by `bench/visits.ts` (`deno task bench visits`; `--parts=a` or `--parts=b` " +
      "measures one part and keeps the other's section as it was). Each part says when it was " +
      "measured and the load average then: the machine is shared with other work. The machine " +
      `below is the latest run's (parts: ${[...parts].join(", ")}).`,
      "",
      machine,
      a,
      b,
    ].join("\n");
    await Deno.writeTextFile(RESULTS, text);
    console.log(text);
    return RESULTS;
  });
}

if (import.meta.main) await run();
