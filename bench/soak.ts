/**
 * `deno task bench soak`: three Ferry instances on PostgreSQL and s3rver
 * behind a round-robin balancer, a mixed load for five minutes (`--seconds N`
 * for another length) while an instance is killed, PostgreSQL restarted, S3
 * made unreachable and a local disk filled; then every accepted upload is
 * checked in the store and the bucket (`tests/helpers/soak/`). Writes
 * `bench/results/soak.md`; exits 1 when anything was lost or a promise broken.
 * `--chunked MIN,MAX` sets the chunked uploads' sizes in MiB (default 20,200);
 * `SOAK_LOG_DIR=<dir>` keeps each instance's stderr (its warnings and errors) there;
 * `SOAK_V8_FLAGS=<flags>` starts the instances with `--v8-flags=<flags>`;
 * `SOAK_HEAP_DIR=<dir>` lets `kill -USR2 <instance pid>` write a V8 heap snapshot
 * there (`tests/helpers/soak/memory_probe.ts`); `SOAK_MALLINFO=1` writes glibc's
 * allocator counts each second into those logs; `MALLOC_*` variables reach the
 * instances (over `deno task start`'s own). The section from "What holds the
 * memory" on is written by hand and kept when the file is rewritten.
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { V8_FLAGS } from "../tests/helpers/soak/instance.ts";
import { runSoak, type SoakResult } from "../tests/helpers/soak/run.ts";
import { machineSection } from "./helpers/machine.ts";
import { FERRY_ARGS, REPO_ROOT } from "./helpers/server.ts";

/** The report: requests, faults, data checked, losses, latency by phase, peak RSS. */
export async function soakReport(result: SoakResult, load: string): Promise<string> {
  const { recorder, checked, options } = result;
  const lines = [
    "# Soak: three instances, faults and a full disk",
    "",
    "Written by `bench/soak.ts` (`deno task bench soak`); the same run, 30 s long, is",
    "`tests/e2e/soak_test.ts`.",
    "",
    await machineSection(),
    `Load average at the start and at the end: ${load} / ${await loadAverage()}.`,
    "",
    "## Set-up",
    "",
    "- One throwaway PostgreSQL 15 cluster (`tests/helpers/postgres_cluster.ts`), one s3rver",
    "  (`tests/helpers/s3rver.ts`) reached through a TCP gate that can refuse connections",
    "  (`tests/helpers/soak/gate.ts`).",
    "- Three Ferry processes (`deno run … main.ts serve`, as `deno task start`) on that",
    "  database and bucket, behind a round-robin HTTP balancer on loopback",
    "  (`tests/helpers/soak/balancer.ts`): the clients send every request to the balancer,",
    "  which passes each to the next instance (a refused connection rests that instance for",
    "  1 s; a request without a body is tried on the next one).",
    "- A fourth Ferry process on its own database with a local datasource on a 24 MiB tmpfs,",
    "  for the full disk (S3 has no full disk).",
    `- Rate limit: ${40} requests per 5 s window; chunks of 5 MiB; one user with an 8 MiB quota.`,
    `- V8 flags of the instances: ${
      FERRY_ARGS.filter((arg) => arg.startsWith("--v8-flags=")).map((arg) => `\`${arg.slice(11)}\``)
        .join(", ") || "none"
    } (as \`deno task start\`); more from \`SOAK_V8_FLAGS\`: ${
      V8_FLAGS ? `\`${V8_FLAGS}\`` : "none (V8 sizes its old generation from the machine's memory)"
    }.`,
    "",
    `Duration: ${options.durationMs / 1000} s of load (${(result.wallMs / 1000).toFixed(0)} s wall`,
    `with start-up and checks); ${options.workers} mixed clients, 2 clients of the quota user,`,
    `1 chunked uploader (${options.chunkedMib[0]}–${options.chunkedMib[1]} MiB).`,
    "",
    "## Losses",
    "",
    `**${recorder.problems.length}** problems found (must be 0).`,
    "",
    ...recorder.problems.map((p) => `- ${p}`),
    "",
    "## Data checked (from the store and the bucket)",
    "",
    "| what | count |",
    "| --- | ---: |",
    `| uploads answered 2xx | ${checked.accepted} |`,
    `| … found with the same SHA-256 | ${checked.acceptedFound} |`,
    `| chunked uploads completed and whole | ${checked.chunkedCompleted} |`,
    `| chunked uploads left incomplete and resumable | ${checked.chunkedResumable} |`,
    `| chunked uploads whose first chunk never got in | ${checked.chunkedNeverStarted} |`,
    `| chunked uploads whose chunks reached more than one instance | ${checked.chunkedAcrossInstances} |`,
    `| file records in the store | ${checked.records} |`,
    `| … pending (removed by the cleanup task) | ${checked.pendingRecords} |`,
    `| objects in the bucket | ${checked.objects} |`,
    `| … staged parts of uploads in progress | ${checked.stagedParts} |`,
    `| … objects without a record (orphans) | ${checked.orphans} |`,
    `| bytes read back and hashed | ${(checked.bytesHashed / 1048576).toFixed(1)} MiB |`,
    "",
    "Settings changes (`websiteTitle` through one instance, read back from each every 50 ms):",
    "the last instance took each change after / before (ms; after: the last request that did",
    "not see it was sent; before: the first that did was answered; on this loaded machine",
    "requests wait for the CPU in between):",
    `${result.settingsLagMs.map(([after, before]) => `${after} / ${before}`).join(", ")}`,
    "(a change is late for certain when the first figure passes 2000 ms).",
    "",
    "Rate-limit probes (one user, 50 requests at once through the balancer, at the start of a",
    "window; max 40 per window; the windows are those the answers' `X-RateLimit-Reset` name):",
    "",
    ...result.rateProbes.map((p) =>
      `- ${p.ok} allowed, ${p.limited} refused (429), ${p.failed} failed otherwise; ` +
      `allowed per window: ${p.allowedPerWindow.join(", ")}`
    ),
    "",
    "## What a request costs PostgreSQL",
    "",
    "Measured before the load: each kind sent 20 times in a row through the balancer; the",
    "database's committed + rolled-back transactions (`pg_stat_database`) counted around them,",
    "less the instances' background rate measured over 3 s idle. postgres.js runs each statement",
    "outside a transaction as a transaction of its own, so this is statements per request (a",
    "multi-statement transaction counts once).",
    "",
    "| request | transactions per request |",
    "| --- | ---: |",
    ...result.queryCosts.map((q) => `| ${q.kind} | ${q.perRequest.toFixed(1)} |`),
    "",
    `Connections from the instances to PostgreSQL, most at once (sampled each second): ${result.peakConnections}`,
    "(each instance's pool holds up to 10, plus one for LISTEN).",
    "",
    "## Faults injected",
    "",
    ...result.faults.flatMap((
      f,
    ) => [`- **${f.name}** at ${f.at}`, ...f.observed.map((o) => `  - ${o}`)]),
    "",
    "## Requests by kind and status",
    "",
    ...statusTable(result),
    "",
    "## Latency by phase (ms)",
    "",
    ...latencyTable(result),
    "",
    "## Peak RSS",
    "",
    "| instance | peak RSS (MiB) | requests through the balancer |",
    "| --- | ---: | ---: |",
    ...Object.entries(result.peakRssMib).map(([name, mib], i) =>
      `| ${name} | ${mib} | ${result.served[i] ?? "–"} |`
    ),
    "",
    "## Where the memory goes",
    "",
    "Each instance's `Deno.memoryUsage()`, sampled once a second (`tests/helpers/soak/",
    "memory_probe.ts`), at its most in each phase of the run (MiB; a phase's figures may come",
    "from different seconds). `heapUsed`/`heapTotal`: V8's JavaScript heap; `external`: memory",
    "held outside it by JavaScript objects (ArrayBuffers: bodies, buffers); the rest of `rss` is",
    "the runtime's own (Rust: HTTP, TLS, sockets, the allocator's free lists) and the code.",
    "",
    ...memoryTable(result),
    "",
    "## Warnings and errors the instances logged",
    "",
    ...Object.entries(result.logged).flatMap(([name, lines]) =>
      lines.length ? [`- ${name}:`, ...lines.map(([line, n]) => `  - ${n} × ${line}`)] : []
    ),
    "",
    "## Notes",
    "",
    ...recorder.notes.map((n) => `- ${n}`),
    "",
  ];
  return lines.join("\n");
}

function memoryTable(result: SoakResult): string[] {
  const mib = (bytes: number) => (bytes / 1048576).toFixed(0);
  return [
    "| instance | phase | samples | rss | heapTotal | heapUsed | external |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ...Object.entries(result.memory).flatMap(([name, phases]) =>
      phases.map((p) =>
        `| ${name} | ${p.phase} | ${p.samples} | ${mib(p.rss)} | ${mib(p.heapTotal)} | ` +
        `${mib(p.heapUsed)} | ${mib(p.external)} |`
      )
    ),
  ];
}

function statusTable(result: SoakResult): string[] {
  const counts = new Map<string, Map<number, number>>();
  const statuses = new Set<number>();
  for (const s of result.recorder.samples) {
    const row = counts.get(s.kind) ?? new Map();
    row.set(s.status, (row.get(s.status) ?? 0) + 1);
    counts.set(s.kind, row);
    statuses.add(s.status);
  }
  const columns = [...statuses].sort((a, b) => a - b);
  return [
    `| kind | ${columns.map((c) => (c === 0 ? "no answer" : String(c))).join(" | ")} |`,
    `| --- | ${columns.map(() => "---:").join(" | ")} |`,
    ...[...counts.entries()].sort().map(([kind, row]) =>
      `| ${kind} | ${columns.map((c) => row.get(c) ?? "").join(" | ")} |`
    ),
  ];
}

function latencyTable(result: SoakResult): string[] {
  const byPhase = new Map<string, number[]>();
  for (const s of result.recorder.samples) {
    if (s.kind === "chunk") continue; // 5 MiB bodies: their own scale
    const list = byPhase.get(s.phase) ?? [];
    list.push(s.ms);
    byPhase.set(s.phase, list);
  }
  const chunks = result.recorder.samples.filter((s) => s.kind === "chunk").map((s) => s.ms);
  const row = (name: string, ms: number[]) => {
    ms.sort((a, b) => a - b);
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]?.toFixed(0);
    return `| ${name} | ${ms.length} | ${at(0.5)} | ${at(0.99)} |`;
  };
  return [
    "| phase | requests | p50 | p99 |",
    "| --- | ---: | ---: | ---: |",
    ...[...byPhase.entries()].map(([phase, ms]) => row(phase, ms)),
    row("5 MiB chunks, all phases", chunks),
  ];
}

/** The written analysis's heading: it and what follows are kept when the results are rewritten. */
const KEPT_HEADING = "## What holds the memory";

/** The hand-written part of the results file at `path` ({@link KEPT_HEADING} on), or `""`. */
async function keptSection(path: string): Promise<string> {
  const old = await Deno.readTextFile(path).catch(() => "");
  const at = old.indexOf(KEPT_HEADING);
  return at < 0 ? "" : "\n" + old.slice(at);
}

async function loadAverage(): Promise<string> {
  const text = await Deno.readTextFile("/proc/loadavg").catch(() => "");
  return text.split(" ").slice(0, 3).join(" ") || "unknown";
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { seconds: { type: "string" }, chunked: { type: "string" } },
  });
  const seconds = Number(values.seconds ?? 300);
  const [min, max] = (values.chunked ?? "20,200").split(",").map(Number);
  const load = await loadAverage();
  const result = await runSoak({
    durationMs: seconds * 1000,
    chunkedMib: [min, max],
    workers: 6,
    measureQueries: true,
    log: console.log,
  });
  const results = join(REPO_ROOT, "bench/results/soak.md");
  const report = await soakReport(result, load) + await keptSection(results);
  await Deno.mkdir(join(REPO_ROOT, "bench/results"), { recursive: true });
  await Deno.writeTextFile(results, report);
  console.log(report);
  Deno.exit(result.recorder.problems.length ? 1 : 0);
}
