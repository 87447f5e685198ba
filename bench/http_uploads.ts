/**
 * Small uploads under HTTP load: `POST /api/upload` of one 1 KiB file with an
 * admin token, wrk on loopback against the real server process (`main.ts
 * serve`, local datasource) on Deno KV and on PostgreSQL. Each run measures
 * uploads per second and what one upload costs in CPU: the server's (user +
 * system time of its process, `helpers/cpu.ts`) and, on PostgreSQL, the
 * database's (the postmaster and its backends). CPU time is steadier than
 * uploads/s on a shared machine. Writes `bench/results/uploads.md`.
 *
 * `BENCH_UPLOADS_BEFORE=<checkout>` measures another checkout of Ferry (say
 * `git worktree add /tmp/before main`) beside this one, interleaved
 * (before, after, before, after on each store), for paired figures.
 * `BENCH_UPLOADS_PROFILE=<dir>` starts this checkout's servers with
 * `--cpu-prof` into `<dir>` (a V8 profile per run; not for figures).
 *
 * Run alone: `deno run --allow-all --unstable-kv bench/http_uploads.ts`, or
 * through `deno task bench uploads`. About a minute, two with a checkout to
 * compare.
 */
import { join, resolve } from "node:path";
import postgres from "postgres";
import { systemRandom } from "../core/clock.ts";
import { clientToken } from "../core/tokens.ts";
import { startPostgres } from "../tests/helpers/postgres_cluster.ts";
import { type CheckoutStore, type Openers, openersOf } from "./helpers/checkout.ts";
import { cleanups, wrkBench } from "./helpers/cleanup.ts";
import { threadCpuSeconds, treeCpuSeconds } from "./helpers/cpu.ts";
import { wrkMachineSection } from "./helpers/machine.ts";
import { type BenchServer, FERRY_ARGS, REPO_ROOT, startServer } from "./helpers/server.ts";
import { wrk, WRK_SCRIPTS, type WrkResult } from "./helpers/wrk.ts";

/** wrk's load (the figures of issue #18): threads, connections, seconds measured and warm-up. */
export const LOAD = { threads: 2, connections: 10, durationSeconds: 5, warmupSeconds: 1 };
/** Runs of each build on each store (`BENCH_UPLOADS_ROUNDS` overrides, for a quick try). */
const ROUNDS = Number(Deno.env.get("BENCH_UPLOADS_ROUNDS") ?? 3);
const SECRET = "ferry-bench-secret-ferry-bench-secret-ferry-bench-secret-0123456";
const RESULTS = join(REPO_ROOT, "bench/results/uploads.md");
/** The multipart boundary of {@link BODY}. */
export const BOUNDARY = "----ferrybench7d1c";
/** One upload: a 1 KiB text file as `multipart/form-data`. */
export const BODY = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; ` +
  `filename="small.txt"\r\nContent-Type: text/plain\r\n\r\n${"x".repeat(1024)}\r\n` +
  `--${BOUNDARY}--\r\n`;
const BEFORE = Deno.env.get("BENCH_UPLOADS_BEFORE");
/** The reference: a bare `Deno.serve` storing each upload durably, nothing else. */
const UPLOAD_SERVER_ARGS = [
  "run",
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "bench/helpers/upload_server.ts",
];
const PROFILE = Deno.env.get("BENCH_UPLOADS_PROFILE");

/** A checkout of Ferry to measure. */
interface Build {
  label: "before" | "after";
  root: string;
}

/** Server CPU per upload by thread, in seconds ({@link threadCpuSeconds}). */
interface ThreadCpu {
  /** The main thread (`deno`): JavaScript, HTTP, op dispatch. */
  main: number;
  /** Deno KV's SQLite writer (`sw-0`). */
  kvWriter: number;
  /** The blocking pool (`tokio-runtime-w`): file-system calls. */
  fileSystem: number;
  /** Every other thread: V8's helpers (GC, compilation) mostly. */
  other: number;
}

/** One measured run. */
interface Run {
  store: "Deno KV" | "PostgreSQL" | "bare";
  build: Build["label"] | "reference";
  result: WrkResult;
  /** Server CPU seconds per upload. */
  serverCpu: number;
  /** Database CPU seconds per upload (PostgreSQL). */
  dbCpu: number | null;
  threads: ThreadCpu;
  /** The 1-minute load average after the run. */
  load: number;
  command: string;
}

/** Where each run's database lives: a fresh data directory and, on PostgreSQL, a fresh database. */
interface Target {
  store: Run["store"];
  /** The PostgreSQL postmaster, whose tree's CPU counts as the database's. */
  dbPid: number | null;
  /** A store for a new run, its `DATABASE_URL` (PostgreSQL) and its data directory. */
  fresh(
    n: number,
    open: Openers,
  ): Promise<{ store: CheckoutStore; env: Record<string, string>; dataDir: string }>;
}

function kvTarget(): Target {
  return {
    store: "Deno KV",
    dbPid: null,
    async fresh(_n, open) {
      const dataDir = await Deno.makeTempDir({ prefix: "ferry-bench-up-kv-" });
      cleanups.push(() => Deno.remove(dataDir, { recursive: true }));
      return { store: await open.openKvStore(join(dataDir, "ferry.kv")), env: {}, dataDir };
    },
  };
}

async function postgresTarget(): Promise<{ target: Target; version: string }> {
  const cluster = await startPostgres();
  cleanups.push(() => cluster.stop());
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
  cleanups.push(() => admin.end());
  const [{ server_version: version }] = await admin`SHOW server_version`;
  const target: Target = {
    store: "PostgreSQL",
    dbPid: cluster.pid,
    async fresh(n, open) {
      await admin.unsafe(`CREATE DATABASE ferry_uploads_${n}`);
      const url = new URL(cluster.url);
      url.pathname = `/ferry_uploads_${n}`;
      const dataDir = await Deno.makeTempDir({ prefix: "ferry-bench-up-pg-" });
      cleanups.push(() => Deno.remove(dataDir, { recursive: true }));
      const store = await open.openPostgresStore(url.toString());
      return { store, env: { DATABASE_URL: url.toString() }, dataDir };
    },
  };
  return { target, version };
}

/** The written profile's heading: it and what follows are kept when the results are rewritten. */
const KEPT_HEADING = "## Where the time goes";

/** The hand-written part of the results file ({@link KEPT_HEADING} on), or `""`. */
async function keptSection(): Promise<string> {
  const old = await Deno.readTextFile(RESULTS).catch(() => "");
  const at = old.indexOf(KEPT_HEADING);
  return at < 0 ? "" : old.slice(at);
}

let runs = 0;

/** Starts `build` on a fresh store of `target`, checks one upload, warms up and measures. */
async function measure(target: Target, build: Build): Promise<Run> {
  const open = await openersOf(build.root);
  const { store, env, dataDir } = await target.fresh(++runs, open);
  const [admin] = await open.populateUsers(store, 1).finally(() => store.close());
  const token = clientToken(admin.token, Date.now(), SECRET, systemRandom);
  const profiled = PROFILE && build.label === "after";
  const args = profiled
    ? [FERRY_ARGS[0], "--cpu-prof", `--cpu-prof-dir=${resolve(PROFILE)}`, ...FERRY_ARGS.slice(1)]
    : FERRY_ARGS;
  const server = await startServer(
    args,
    {
      SERVICE_HOSTNAME: "127.0.0.1",
      SERVICE_DATA_DIR: dataDir,
      SERVICE_SECRET: SECRET,
      SERVICE_RATELIMIT_ENABLED: "false",
      ...env,
    },
    "/api/healthcheck",
    build.root,
  );
  try {
    const url = `${server.origin}/api/upload`;
    const probe = await fetch(url, {
      method: "POST",
      headers: {
        authorization: token,
        "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
      },
      body: BODY,
    });
    if (probe.status !== 200) {
      throw new Error(`upload answered ${probe.status}: ${await probe.text()}`);
    }
    await probe.body?.cancel();
    const run: Run = {
      store: target.store,
      build: build.label,
      ...await loaded(server, { Authorization: token }, target.dbPid),
    };
    report(run);
    return run;
  } finally {
    await server.stop();
  }
}

/** Warms `server` up with uploads, then measures a run of them: wrk's figures and the CPU they cost. */
async function loaded(
  server: BenchServer,
  headers: Record<string, string>,
  dbPid: number | null,
): Promise<Omit<Run, "store" | "build">> {
  const options = {
    url: `${server.origin}/api/upload`,
    ...LOAD,
    script: WRK_SCRIPTS.upload,
    env: { WRK_BODY: BODY, WRK_BOUNDARY: BOUNDARY },
    headers,
    redact: Object.keys(headers),
  };
  await wrk({ ...options, durationSeconds: LOAD.warmupSeconds });
  const cpu = () =>
    Promise.all([
      treeCpuSeconds(server.pid),
      dbPid === null ? 0 : treeCpuSeconds(dbPid),
      threadCpuSeconds(server.pid),
    ]);
  const [server0, db0, threads0] = await cpu();
  const result = await wrk(options);
  const [server1, db1, threads1] = await cpu();
  const used = (name: string) => (threads1.get(name) ?? 0) - (threads0.get(name) ?? 0);
  const all = [...threads1.keys()].reduce((sum, name) => sum + used(name), 0);
  const [main, kvWriter, fileSystem] = ["deno", "sw", "tokio-runtime-w"].map(used);
  const perUpload = (seconds: number) => seconds / result.requests;
  return {
    result,
    serverCpu: perUpload(server1 - server0),
    dbCpu: dbPid === null ? null : perUpload(db1 - db0),
    threads: {
      main: perUpload(main),
      kvWriter: perUpload(kvWriter),
      fileSystem: perUpload(fileSystem),
      other: perUpload(all - main - kvWriter - fileSystem),
    },
    load: Deno.loadavg()[0],
    command: server.command,
  };
}

/** The type of the file system `dir` is on (`stat -f`), for the results. */
async function fileSystemOf(dir: string): Promise<string> {
  const { stdout } = await new Deno.Command("stat", { args: ["-f", "-c", "%T", dir] }).output();
  return `${dir} on ${new TextDecoder().decode(stdout).trim() || "an unknown file system"}`;
}

/** Prints one run's line. */
function report(run: Run): void {
  const t = run.threads;
  console.log(
    `  ${run.store}, ${run.build}: ${run.result.requestsPerSecond.toFixed(0)} uploads/s, ` +
      `${ms(run.serverCpu)} ms server CPU each (main ${ms(t.main)}, KV writer ` +
      `${ms(t.kvWriter)}, file system ${ms(t.fileSystem)}, other ${ms(t.other)}), ` +
      `load ${run.load.toFixed(2)}`,
  );
}

/**
 * The bare durable upload (`bench/helpers/upload_server.ts`) on a fresh
 * directory of the same file system as Ferry's data directories.
 */
async function measureBare(): Promise<Run> {
  const dir = await Deno.makeTempDir({ prefix: "ferry-bench-up-bare-" });
  cleanups.push(() => Deno.remove(dir, { recursive: true }));
  const server = await startServer(UPLOAD_SERVER_ARGS, { BENCH_DIR: dir }, "/ready");
  try {
    const run: Run = { store: "bare", build: "reference", ...await loaded(server, {}, null) };
    report(run);
    return run;
  } finally {
    await server.stop();
  }
}

const ms = (seconds: number) => (seconds * 1000).toFixed(2);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function table(results: Run[]): string {
  const lines = [
    "| store | build | uploads/s | server CPU per upload | by thread: main · KV writer · " +
    "file system · other (ms) | database CPU per upload | p50 | p99 | uploads | non-2xx | " +
    "load (1 min) after |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const r of results) {
    const t = r.threads;
    lines.push(
      `| ${r.store} | ${r.build} | ${r.result.requestsPerSecond.toFixed(0)} | ` +
        `${ms(r.serverCpu)} ms | ${ms(t.main)} · ${ms(t.kvWriter)} · ${ms(t.fileSystem)} · ` +
        `${ms(t.other)} | ${r.dbCpu === null ? "" : `${ms(r.dbCpu)} ms`} | ` +
        `${r.result.p50Ms} ms | ${r.result.p99Ms} ms | ${r.result.requests} | ` +
        `${r.result.non2xx} | ${r.load.toFixed(2)} |`,
    );
  }
  return lines.join("\n");
}

/**
 * Median uploads/s and server CPU per upload of each store and build, the
 * pairs' ratios, and each against the bare durable upload.
 */
function summary(results: Run[]): string {
  const lines: string[] = [];
  const bare = median(results.filter((r) => r.store === "bare").map((r) => r.serverCpu));
  for (const store of ["Deno KV", "PostgreSQL"] as const) {
    const of = (build: Build["label"]) =>
      results.filter((r) => r.store === store && r.build === build);
    const describe = (rs: Run[]) =>
      `${median(rs.map((r) => r.result.requestsPerSecond)).toFixed(0)} uploads/s, ` +
      `${ms(median(rs.map((r) => r.serverCpu)))} ms server CPU per upload`;
    const after = of("after");
    const before = of("before");
    // Runs of one round ran side by side: their ratio is the steadiest figure.
    const ratios = before.map((b, i) => (after[i].serverCpu / b.serverCpu).toFixed(2));
    lines.push(
      `- ${store}: ${describe(after)}` + (before.length ? ` (before: ${describe(before)})` : "") +
        (ratios.length ? `; server CPU after/before, pair by pair: ${ratios.join(", ")}` : "") +
        `; ${(median(after.map((r) => r.serverCpu)) / bare).toFixed(2)}× the bare durable upload.`,
    );
  }
  lines.push(
    `- The bare durable upload (\`bench/helpers/upload_server.ts\`: \`request.formData()\`, ` +
      `then open, write, \`fdatasync\`, rename): ${ms(bare)} ms server CPU per upload.`,
  );
  return lines.join("\n");
}

/** Runs every measurement and writes `bench/results/uploads.md`; returns its path. */
export function run(): Promise<string> {
  return wrkBench(async () => {
    const builds: Build[] = [
      ...(BEFORE ? [{ label: "before" as const, root: resolve(BEFORE) }] : []),
      { label: "after", root: REPO_ROOT },
    ];
    const pg = await postgresTarget();
    const results: Run[] = [];
    for (const target of [kvTarget(), pg.target]) {
      console.log(target.store);
      for (let round = 0; round < ROUNDS; round++) {
        if (target.dbPid === null) results.push(await measureBare());
        for (const build of builds) results.push(await measure(target, build));
      }
    }
    const text = [
      "# Small uploads under HTTP load",
      "",
      "Written by `bench/http_uploads.ts` (`deno task bench uploads`). `POST /api/upload` of " +
      "one 1 KiB file with an admin token (rate limits off), wrk and the server on loopback, " +
      `wrk -t${LOAD.threads} -c${LOAD.connections} for ${LOAD.durationSeconds} s after a ` +
      `${LOAD.warmupSeconds} s warm-up, a fresh store per run. CPU per upload is the server ` +
      "process's user + system time over the measured run divided by the uploads answered; " +
      "on PostgreSQL the database's own CPU is shown beside it, and its split by thread " +
      "(`/proc/<pid>/task`) beside that. `bare` is a bare `Deno.serve` that stores each " +
      "upload durably and nothing else, on the same file system " +
      `(${await fileSystemOf(Deno.env.get("TMPDIR") ?? "/tmp")}: \`TMPDIR\` chooses it).` +
      (BEFORE ? " `before` is another checkout, run interleaved with this one." : ""),
      "",
      await wrkMachineSection(pg.version),
      "## Results",
      "",
      table(results),
      "",
      summary(results),
      "",
      "## Commands",
      "",
      "```sh",
      ...new Set(results.map((r) =>
        r.command.replace(/SERVICE_PORT=\d+/, "SERVICE_PORT=<port>")
          .replace(/SERVICE_DATA_DIR=\S+/, "SERVICE_DATA_DIR=<temp dir>")
          .replace(/:\d+\/ferry_uploads_\d+/, ":<port>/ferry_uploads_<n>")
      )),
      results[0].result.command.replace(/127\.0\.0\.1:\d+/, "127.0.0.1:<port>")
        .replace(/x{1024}/, "<1 KiB of x>"),
      "```",
      "",
      await keptSection(),
    ].join("\n");
    await Deno.writeTextFile(RESULTS, text);
    console.log(`\n${table(results)}\n\n${summary(results)}\n\nwritten to ${RESULTS}`);
    return RESULTS;
  });
}

if (import.meta.main) await run();
