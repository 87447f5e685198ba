/**
 * Files through the HTTP API of the real server process (`main.ts serve`,
 * local datasource): a 2 GiB upload and its downloads with curl on Deno KV,
 * side by side with a bare `Deno.serve` of the same file, with the server's
 * CPU time and peak RSS (`VmHWM`) per step, and wrk on small uploads; then,
 * on Deno KV and on PostgreSQL, wrk on `GET /raw/<name>` of a 6-byte file,
 * the healthcheck, `GET /api/users` (1,000 users) and `GET /api/user/files`
 * (a user with 10,000 files), beside a bare `Deno.serve` hello-world and a
 * bare `Deno.serve` reading and sending the same small file, measured in the
 * same run. Writes `bench/results/files.md`. About four minutes.
 *
 * Run alone: `deno run --allow-all --unstable-kv bench/http_files.ts`, or
 * through `deno task bench files`; `BENCH_FILES_BIG_ONLY=1` runs only the big
 * file and prints its table instead of writing the results;
 * `BENCH_FILES_SMALL_ONLY=1` leaves the big file and the uploads out, and
 * `BENCH_FILES_PATHS=<regexp>` keeps only the small requests whose path
 * matches (`raw|health`); both for trying changes, not for the results.
 */
import { join } from "node:path";
import postgres from "postgres";
import { systemRandom } from "../core/clock.ts";
import { clientToken } from "../core/tokens.ts";
import type { Store } from "../db/store.ts";
import { benchDatabase, cleanups, wrkBench } from "./helpers/cleanup.ts";
import { treeCpuSeconds } from "./helpers/cpu.ts";
import { wrkMachineSection } from "./helpers/machine.ts";
import {
  type BenchServer,
  FERRY_ARGS,
  HELLO_ARGS,
  REPO_ROOT,
  startServer,
} from "./helpers/server.ts";
import { populateUsers } from "./helpers/users.ts";
import { fileRecord } from "../tests/helpers/stores.ts";
import { wrk, WRK_SCRIPTS, type WrkOptions, type WrkResult } from "./helpers/wrk.ts";
import { kvStore, postgresStore } from "./helpers/stores.ts";

const SECRET = "ferry-bench-secret-ferry-bench-secret-ferry-bench-secret-0123456";
/** The big file: 2 GiB (`BENCH_BIG_BYTES` overrides, for a quick try). */
const BIG = Number(Deno.env.get("BENCH_BIG_BYTES") ?? 2 * 1024 ** 3);
/** The chunk the file is written in. */
const CHUNK = 1024 * 1024;
/** Downloads of the big file from each server: the machine is shared, so runs vary. */
const DOWNLOADS = 3;
/** `BENCH_FILES_BIG_ONLY=1`: only the big file, printed, not written (for trying changes). */
const BIG_ONLY = Deno.env.get("BENCH_FILES_BIG_ONLY") === "1";
/** `BENCH_FILES_SMALL_ONLY=1`: no big file and no uploads (for trying changes to small requests). */
const SMALL_ONLY = Deno.env.get("BENCH_FILES_SMALL_ONLY") === "1";
/** `BENCH_FILES_PATHS=<regexp>`: only the small requests whose path matches (e.g. `raw|health`). */
const ONLY = new RegExp(Deno.env.get("BENCH_FILES_PATHS") ?? "");
/** The bare reference server for downloads. */
const FILE_SERVER_ARGS = [
  "run",
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "bench/helpers/file_server.ts",
];
/** wrk's load: threads, connections, seconds measured, seconds of warm-up before. */
export const LOAD = { threads: 2, connections: 10, durationSeconds: 5, warmupSeconds: 2 };
const RESULTS = join(REPO_ROOT, "bench/results/files.md");
const BOUNDARY = "----ferrybench7d1c";

/** `VmRSS` and `VmHWM` (peak) of `pid`, in MiB. */
async function memory(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)![1]);
  return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}

/** Writes `size` patterned bytes to `path`, 1 MiB at a time. */
async function writeBigFile(path: string, size: number): Promise<void> {
  const chunk = new Uint8Array(CHUNK).map((_, i) => (i * 31) % 251);
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  for (let written = 0; written < size; written += CHUNK) {
    await file.write(chunk.subarray(0, Math.min(CHUNK, size - written)));
  }
}

/** Runs curl with `args`; returns what `-w` printed. */
async function curl(args: string[]): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command("curl", { args: ["-sS", ...args] })
    .output();
  if (code !== 0) throw new Error(`curl ${args.join(" ")}: ${new TextDecoder().decode(stderr)}`);
  return new TextDecoder().decode(stdout);
}

/** Downloads `url` to /dev/null with curl (extra `args` first); returns the seconds taken. */
async function download(url: string, bytes: number, args: string[] = []): Promise<number> {
  const [seconds, received] = (await curl([
    ...args,
    ...["-o", "/dev/null", "-w", "%{time_total} %{size_download}", url],
  ])).split(" ").map(Number);
  if (received !== bytes) throw new Error(`downloaded ${received} bytes of ${bytes} from ${url}`);
  return seconds;
}

/** What one step of the big-file part cost the server process. */
interface Step {
  label: string;
  bytes: number;
  seconds: number;
  /** Server CPU time (user + system) during the step. */
  cpu: number;
  /** Server RSS after the step, MiB. */
  rss: number;
  /** Server peak RSS during the step (`VmHWM`, reset before it), MiB. */
  peak: number;
  /** The 1-minute load average after the step. */
  load: number;
}

/**
 * Seconds of quiet before each step, so that what the previous step left
 * running (the kernel's writeback, a server's timers) is over. Run back to
 * back, alternating with the bare server's, Ferry's downloads measured
 * 0.40–0.42 GB/s against 0.59–0.84; with these pauses, both 0.60–0.79.
 */
const SETTLE_SECONDS = 5;

/** Runs `act` (which resolves with its seconds) as a step of the server `pid`, after a settle. */
async function step(
  pid: number,
  label: string,
  bytes: number,
  act: () => Promise<number>,
): Promise<Step> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000));
  // "5" resets the peak (VmHWM) to the current RSS: the peak is then this step's.
  await Deno.writeTextFile(`/proc/${pid}/clear_refs`, "5");
  const cpuBefore = await treeCpuSeconds(pid);
  const seconds = await act();
  const cpu = await treeCpuSeconds(pid) - cpuBefore;
  const { rss, peak } = await memory(pid);
  const result = { label, bytes, seconds, cpu, rss, peak, load: Deno.loadavg()[0] };
  console.log(
    `  ${label}: ${gbps(result).toFixed(2)} GB/s, ${cpu.toFixed(2)} s CPU, peak ${
      peak.toFixed(0)
    } MiB`,
  );
  return result;
}

const gbps = (s: Step) => s.bytes / 1e9 / s.seconds;

/** A table row of `s`. */
function stepRow(s: Step): string {
  return `| ${s.label} | ${s.seconds.toFixed(2)} s | ${gbps(s).toFixed(2)} GB/s | ${
    (s.cpu / (s.bytes / 1024 ** 3)).toFixed(2)
  } s | ${s.rss.toFixed(0)} MiB | ${s.peak.toFixed(0)} MiB (${
    (s.peak * 1.048576).toFixed(0)
  } MB) | ${s.load.toFixed(2)} |`;
}

/** `best / median` throughput of `steps`. */
function spread(steps: Step[]): string {
  const sorted = steps.map(gbps).sort((a, b) => a - b);
  return `best ${sorted.at(-1)!.toFixed(2)} GB/s, median ${
    sorted[Math.floor(sorted.length / 2)].toFixed(2)
  } GB/s`;
}

/**
 * Uploads the big file with curl, downloads it from Ferry {@link DOWNLOADS}
 * times (and twice as a range: to its end, and stopping short of it), then as many
 * times from a bare `Deno.serve` streaming the same stored file; returns the
 * results section.
 */
async function bigFile(server: BenchServer, token: string, pid: number, dir: string) {
  const path = join(dir, "big.bin");
  await writeBigFile(path, BIG);
  const idle = await memory(pid);
  const gib = BIG / 1024 ** 3;
  const reply = join(dir, "reply.json");
  const upload = await step(
    pid,
    `upload ${gib} GiB (curl -F, POST /api/upload)`,
    BIG,
    async () =>
      Number(
        await curl([
          ...["-o", reply, "-w", "%{time_total}", "-H", `authorization: ${token}`],
          ...["-F", `file=@${path}`, `${server.origin}/api/upload`],
        ]),
      ),
  );
  const { files } = JSON.parse(await Deno.readTextFile(reply));
  await Deno.remove(path);
  const raw = `${server.origin}/raw/${files[0].name}`;
  const ours: Step[] = [];
  for (let i = 1; i <= DOWNLOADS; i++) {
    ours.push(
      await step(pid, `download ${i} (curl, GET /raw/<name>)`, BIG, () => download(raw, BIG)),
    );
  }
  const toTheEnd = await step(
    pid,
    "range `bytes=1-` (to the end)",
    BIG - 1,
    () => download(raw, BIG - 1, ["-H", "range: bytes=1-"]),
  );
  const ranged = await step(
    pid,
    `range \`bytes=0-${BIG - 2}\` (all but the last byte)`,
    BIG - 1,
    () => download(raw, BIG - 1, ["-H", `range: bytes=0-${BIG - 2}`]),
  );
  const bare = await startServer(FILE_SERVER_ARGS, {
    BENCH_FILE: join(dir, "uploads", files[0].name),
  }, "/ready");
  const reference: Step[] = [];
  let bareIdle;
  try {
    const barePid = bare.pid;
    bareIdle = await memory(barePid);
    for (let i = 1; i <= DOWNLOADS; i++) {
      reference.push(
        await step(barePid, `bare Deno.serve download ${i}`, BIG, () => download(bare.origin, BIG)),
      );
    }
  } finally {
    await bare.stop();
  }
  return [
    "| step | time | throughput | server CPU per GiB | server RSS after | server peak RSS " +
    "during the step | load (1 min) after |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    `| Ferry idle, before | | | | ${idle.rss.toFixed(0)} MiB | | |`,
    stepRow(upload),
    ...ours.map(stepRow),
    stepRow(toTheEnd),
    stepRow(ranged),
    `| bare Deno.serve idle (\`bench/helpers/file_server.ts\`) | | | | ${
      bareIdle!.rss.toFixed(0)
    } MiB | | |`,
    ...reference.map(stepRow),
    "",
    `Downloads of the whole file: Ferry ${spread(ours)}; bare \`Deno.serve\` of the same ` +
    `file, same run: ${spread(reference)}.`,
  ].join("\n");
}

async function measure(options: WrkOptions): Promise<WrkResult> {
  await wrk({ ...options, ...LOAD, durationSeconds: LOAD.warmupSeconds });
  const result = await wrk({ ...options, ...LOAD });
  console.log(`  ${options.url}: ${result.requestsPerSecond.toFixed(0)} req/s`);
  return result;
}

/** The server's environment over `dataDir` (and PostgreSQL at `databaseUrl`). */
function ferryEnv(dataDir: string, databaseUrl?: string): Record<string, string> {
  return {
    SERVICE_HOSTNAME: "127.0.0.1",
    SERVICE_DATA_DIR: dataDir,
    SERVICE_SECRET: SECRET,
    SERVICE_RATELIMIT_ENABLED: "false",
    SERVICE_FILES_MAX_FILE_SIZE: "10gb",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
}

/** One line of a table: what was asked, of which server, and what wrk measured. */
interface Row {
  scenario: string;
  result: WrkResult;
}

/** A table row: requests/s, its share of `reference` when given, latencies, errors. */
function tableRow({ scenario, result: r }: Row, reference?: number): string {
  const share = reference ? `${((100 * r.requestsPerSecond) / reference).toFixed(0)} %` : "";
  return `| ${scenario} | ${
    r.requestsPerSecond.toFixed(1)
  } | ${share} | ${r.p50Ms} ms | ${r.p99Ms} ms | ${r.requests} | ${r.non2xx}${
    r.socketErrors ? ` / ${r.socketErrors}` : ""
  } |`;
}

/** The 2 GiB file and the small uploads on Deno KV; returns the section. */
async function bigAndUploads(): Promise<{ big: string; uploads?: Row; commands: string[] }> {
  const dataDir = await Deno.makeTempDir({ prefix: "ferry-bench-files-" });
  cleanups.push(() => Deno.remove(dataDir, { recursive: true }));
  const store = await kvStore(join(dataDir, "ferry.kv"));
  const [user] = await populateUsers(store, 1).finally(() => store.close());
  const token = clientToken(user.token, Date.now(), SECRET, systemRandom);
  const server = await startServer(FERRY_ARGS, ferryEnv(dataDir), "/api/healthcheck");
  cleanups.push(() => server.stop());
  console.log("2 GiB upload and download");
  const big = await bigFile(server, token, server.pid, dataDir);
  if (BIG_ONLY) return { big, commands: [] };
  console.log("small uploads");
  const body = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; ` +
    `filename="small.txt"\r\nContent-Type: text/plain\r\n\r\n${"x".repeat(1024)}\r\n` +
    `--${BOUNDARY}--\r\n`;
  const uploads = await measure({
    url: `${server.origin}/api/upload`,
    script: WRK_SCRIPTS.upload,
    env: { WRK_BODY: body, WRK_BOUNDARY: BOUNDARY },
    headers: { Authorization: token },
    redact: ["Authorization"],
  });
  await server.stop();
  return {
    big,
    uploads: { scenario: "POST /api/upload, one 1 KiB file (token auth)", result: uploads },
    commands: [
      server.command,
      uploads.command.replace(/x{1024}/, "<1 KiB of x>"),
    ],
  };
}

/** The small file `/raw` serves, and the bare file server reads. */
export const SMALL_NAME = "small.txt";
const SMALL_BYTES = new TextEncoder().encode("hello\n");
/** Users in the store (for `GET /api/users`) and files of one of them (`GET /api/user/files`). */
export const USERS = 1000;
const USER_FILES = 10_000;

/**
 * Fills `store` with {@link USERS} users, {@link USER_FILES} file records of
 * the second one, and the SUPERADMIN's small file (its bytes under
 * `<dataDir>/uploads`); returns the SUPERADMIN's and the second user's tokens.
 */
export async function populateSmall(store: Store, dataDir: string) {
  const [admin, owner] = await populateUsers(store, USERS);
  await populateFiles(store, dataDir, admin.id, owner.id);
  const now = Date.now();
  const token = (stored: string) => clientToken(stored, now, SECRET, systemRandom);
  return { admin: token(admin.token), owner: token(owner.token) };
}

/**
 * The files of {@link populateSmall}: `admin`'s small file (its bytes under
 * `<dataDir>/uploads`) and {@link USER_FILES} records of `owner`. Takes only
 * the file area, which older checkouts' stores have too.
 */
export async function populateFiles(
  store: Pick<Store, "files">,
  dataDir: string,
  admin: string,
  owner: string,
): Promise<void> {
  const now = Date.now();
  await store.files.create(
    fileRecord(admin, {
      name: SMALL_NAME,
      originalName: SMALL_NAME,
      size: SMALL_BYTES.length,
      createdAt: new Date(now),
      updatedAt: new Date(now),
    }),
    { maxBytes: null, maxFiles: null },
  );
  await Deno.mkdir(join(dataDir, "uploads"), { recursive: true });
  await Deno.writeFile(join(dataDir, "uploads", SMALL_NAME), SMALL_BYTES);
  const records = Array.from(
    { length: USER_FILES },
    (_, i) => {
      const at = new Date(now - i * 1000);
      const name = `f${i}.txt`;
      return fileRecord(owner, {
        name,
        originalName: name,
        size: 1024,
        createdAt: at,
        updatedAt: at,
      });
    },
  );
  for (let i = 0; i < records.length; i += 1000) {
    await store.files.createMany(records.slice(i, i + 1000));
  }
}

/** The small requests of one store: `/raw`, the healthcheck, the user list, a user's files. */
async function smallRows(label: string, dataDir: string, databaseUrl?: string) {
  const server = await startServer(
    FERRY_ARGS,
    ferryEnv(dataDir, databaseUrl),
    "/api/healthcheck",
  );
  cleanups.push(() => server.stop());
  const { admin, owner } = JSON.parse(await Deno.readTextFile(join(dataDir, "tokens.json")));
  const asked = [
    { scenario: `GET /raw/${SMALL_NAME} (6 bytes)`, path: `/raw/${SMALL_NAME}` },
    { scenario: "GET /api/healthcheck", path: "/api/healthcheck" },
    { scenario: `GET /api/users (${USERS} users)`, path: "/api/users", token: admin },
    {
      scenario: `GET /api/user/files?page=1 (${USER_FILES} files)`,
      path: "/api/user/files?page=1",
      token: owner,
    },
  ];
  const rows: Row[] = [];
  const commands = [server.command];
  for (const { scenario, path, token } of asked.filter((a) => ONLY.test(a.path))) {
    const headers: Record<string, string> = token ? { Authorization: token } : {};
    const check = await fetch(`${server.origin}${path}`, { headers });
    await check.body?.cancel();
    if (check.status !== 200) throw new Error(`${label}: ${path} answered ${check.status}`);
    const result = await measure({
      url: `${server.origin}${path}`,
      headers,
      redact: ["Authorization"],
    });
    rows.push({ scenario: `${scenario} — ${label}`, result });
    commands.push(result.command);
  }
  await server.stop();
  return { rows, commands };
}

/** A data directory filled by {@link populateSmall} over the store `open` gives. */
async function smallData(open: (dataDir: string) => Promise<Store>): Promise<string> {
  const dataDir = await Deno.makeTempDir({ prefix: "ferry-bench-small-" });
  cleanups.push(() => Deno.remove(dataDir, { recursive: true }));
  const store = await open(dataDir);
  const tokens = await populateSmall(store, dataDir).finally(() => store.close());
  await Deno.writeTextFile(join(dataDir, "tokens.json"), JSON.stringify(tokens));
  return dataDir;
}

/** A bare reference server measured at `path`. */
async function reference(scenario: string, args: string[], env: Record<string, string>) {
  const server = await startServer(args, { SERVICE_HOSTNAME: "127.0.0.1", ...env }, "/ready");
  cleanups.push(() => server.stop());
  const result = await measure({ url: `${server.origin}/` });
  await server.stop();
  return { row: { scenario, result }, command: server.command };
}

/**
 * The small requests on both stores, beside a bare `Deno.serve` hello-world
 * and a bare `Deno.serve` reading and sending the same small file: returns
 * the section.
 */
async function small(): Promise<{ table: string; pgVersion: string; commands: string[] }> {
  console.log("small requests");
  const kvDir = await smallData((dir) => kvStore(join(dir, "ferry.kv")));
  const { url, version } = await benchDatabase();
  const pgDir = await smallData(() => postgresStore(url));
  // The planner's statistics, as autovacuum leaves them on a table in use.
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  await sql`VACUUM ANALYZE`.finally(() => sql.end());
  const hello = await reference("bare Deno.serve hello-world", HELLO_ARGS, {});
  const fileServer = await reference(
    "bare Deno.serve reading and sending the 6-byte file",
    FILE_SERVER_ARGS,
    { BENCH_FILE: join(kvDir, "uploads", SMALL_NAME), BENCH_FILE_MODE: "read" },
  );
  const kv = await smallRows("Deno KV", kvDir);
  const pg = await smallRows("PostgreSQL", pgDir, url);
  const helloRps = hello.row.result.requestsPerSecond;
  const fileRps = fileServer.row.result.requestsPerSecond;
  const of = (row: Row) =>
    row.scenario.startsWith("GET /raw")
      ? fileRps
      : row.scenario.startsWith("GET /api/healthcheck")
      ? helloRps
      : undefined;
  const table = [
    "| scenario | requests/s | of its reference | p50 | p99 | requests | non-2xx / socket errors |",
    "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    tableRow(hello.row),
    tableRow(fileServer.row),
    ...[...kv.rows, ...pg.rows].map((row) => tableRow(row, of(row))),
  ].join("\n");
  console.log(table);
  return {
    table,
    pgVersion: version,
    commands: [hello.command, fileServer.command, ...kv.commands, ...pg.commands],
  };
}

/** A command line for the results file, without its ports and temp dirs. */
function shown(command: string): string {
  return command.replace(/SERVICE_PORT=\d+/, "SERVICE_PORT=<port>")
    .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>")
    .replace(/SERVICE_DATA_DIR=\S+/, "SERVICE_DATA_DIR=<temp dir>")
    .replace(/BENCH_FILE=\S+/, "BENCH_FILE=<temp dir>/uploads/small.txt")
    .replace(/DATABASE_URL=\S+/, "DATABASE_URL=<throwaway cluster>");
}

/** Runs everything and writes the results file; returns its path. */
export function run(): Promise<string> {
  return wrkBench(async () => {
    const first = SMALL_ONLY ? undefined : await bigAndUploads();
    if (BIG_ONLY) {
      console.log(first!.big);
      return RESULTS;
    }
    const second = await small();
    const text = [
      "# Files through the HTTP API",
      "",
      "Written by `bench/http_files.ts` (`deno task bench files`). The real server " +
      "(`main.ts serve`, local datasource on the temp dir's disk) and its clients " +
      "share the machine on loopback. The big file is uploaded by curl from disk and " +
      "downloaded to /dev/null; the local datasource fsyncs each upload before it is " +
      "recorded. RSS is the server process's, from /proc/<pid>/status.",
      "",
      await wrkMachineSection(second.pgVersion),
      ...(first
        ? [
          "## 2 GiB upload and download (Deno KV)",
          "",
          `Each step starts after ${SETTLE_SECONDS} s of quiet and resets the server's peak RSS ` +
          "first (`5` into /proc/<pid>/clear_refs), so its peak is the step's own. CPU is the " +
          "server's user + system time (proc(5)), which other work on the machine does not " +
          "inflate the way it does wall time.",
          "",
          first.big,
          "",
          "A whole file and a range to its end are the datasource's `FsFile.readable`, which " +
          "Deno streams from the file itself (64 KiB reads, no buffer in JavaScript): the RSS " +
          "does not move (the bare `Deno.serve` uses the same path; see performance.md). A " +
          "range that stops short of the end is read in JavaScript, 64 KiB per chunk (what " +
          "`Deno.serve` sends at a time), and each chunk's buffer waits for V8's garbage " +
          "collector: that is the range row's peak. The upload reads the " +
          "request body into one reused buffer (BYOB) and writes through another, so its RSS " +
          "stays flat too.",
          "",
          `## Small uploads (Deno KV; wrk, ${LOAD.threads} threads, ${LOAD.connections} ` +
          `connections, ${LOAD.durationSeconds} s after a ${LOAD.warmupSeconds} s warm-up)`,
          "",
          "| scenario | requests/s | | p50 | p99 | requests | non-2xx / socket errors |",
          "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
          tableRow(first.uploads!),
          "",
        ]
        : []),
      `## Small requests (wrk, ${LOAD.threads} threads, ${LOAD.connections} connections, ` +
      `${LOAD.durationSeconds} s after a ${LOAD.warmupSeconds} s warm-up)`,
      "",
      `Each store holds ${USERS} users, ${USER_FILES} files of one of them and the ` +
      "SUPERADMIN's 6-byte text file. `/raw` is measured against the bare server reading " +
      "and sending the same file from disk (`bench/helpers/file_server.ts`, " +
      "`BENCH_FILE_MODE=read`), the healthcheck against the bare hello-world; goal for both: " +
      "at least 50 %. Goal for the two lists: at least 1,000 requests/s on each store. " +
      "Before and after: `bench/results/small_files.md`.",
      "",
      second.table,
      "",
      "## Commands",
      "",
      "```sh",
      ...[...(first?.commands ?? []), ...second.commands].map(shown),
      "```",
      "",
    ].join("\n");
    await Deno.writeTextFile(RESULTS, text);
    console.log(`written to ${RESULTS}`);
    return RESULTS;
  });
}

if (import.meta.main) await run();
