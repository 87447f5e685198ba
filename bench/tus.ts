/**
 * A large upload through tus against the same upload through Zipline's
 * chunked route: 1 GiB (`BENCH_TUS_MIB` overrides) sent in 25 MiB requests
 * (the server's chunk size) to a real server process (`main.ts serve`, Deno
 * KV), on local disk and on S3 (an s3rver of its own, `BENCH_TUS_STORAGE=local`
 * or `s3` for one), one upload at a time, alternating the routes for
 * `BENCH_TUS_ROUNDS` rounds (2 by default), each on a fresh server. The
 * server's memory is read from /proc: its RSS once it answers, once it is set
 * up (the admin's password hashed on a password worker), once that worker
 * ended (at rest), sampled every 50 ms during the upload (the upload's
 * peak), and its VmHWM at the end (the peak since it started). The budget
 * (issue #35): tus at no less than 80 % of the chunked route's throughput,
 * and under 150 MB of server memory. Writes `bench/results/tus.md`. Run:
 * `deno task bench tus`.
 */
import { join } from "node:path";
import { loadAverage, machineSection } from "./helpers/machine.ts";
import { type BenchServer, REPO_ROOT, startServer } from "./helpers/server.ts";
import { type S3rver, startS3rver } from "../tests/helpers/s3rver.ts";
import { s3BucketEnv } from "./helpers/s3.ts";
import {
  type HeapSample,
  heapSamples,
  PROBED_FERRY_ARGS,
  procMib,
  rssSampler,
} from "./helpers/memory.ts";

const MIB = 1024 * 1024;
const TOTAL_MIB = Number(Deno.env.get("BENCH_TUS_MIB") ?? 1024);
const ROUNDS = Number(Deno.env.get("BENCH_TUS_ROUNDS") ?? 2);
const STORAGES = (Deno.env.get("BENCH_TUS_STORAGE")?.split(",") ?? ["local", "s3"]) as Storage[];
const CHUNK = 25 * MIB;
const SECRET = "ferry-bench-secret-ferry-bench-secret-ferry-bench-secret-0123456";
const RESULTS = join(REPO_ROOT, "bench/results/tus.md");
/** The budget: 150 MB, in MiB. */
const BUDGET_MIB = 150e6 / MIB;
/** How long an idle password worker lives (`core/passwords.ts`), and a margin. */
const WORKER_IDLE_MS = 5_000 + 2_000;

type Route = "tus" | "chunked";
type Storage = "local" | "s3";

interface Run {
  storage: Storage;
  route: Route;
  seconds: number;
  mibPerSecond: number;
  /** RSS once the server answers. */
  startedMib: number;
  /** RSS once the admin is set up and has a token. */
  setUpMib: number;
  /** RSS once the password worker ended: the server at rest, before the upload. */
  restMib: number;
  /** The highest RSS sampled during the upload. */
  uploadPeakMib: number;
  /** VmHWM after the upload: the peak since the server started. */
  hwmMib: number;
  /** `Deno.memoryUsage()` at rest: the V8 heap used, and external (ArrayBuffers). */
  restHeap: HeapSample;
  /** The highest heap used and external among the probe's samples during the upload. */
  peakHeapUsed: number;
  peakExternal: number;
  load: string;
}

/** A 25 MiB chunk of a pattern; every chunk the same (the server never looks). */
const CHUNK_BYTES = new Uint8Array(CHUNK).map((_, i) => (i * 7) % 251);

/** Sets the admin up and returns its API token. */
async function adminToken(origin: string): Promise<string> {
  const setup = await fetch(`${origin}/api/setup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: "a bench password" }),
  });
  if (!setup.ok) throw new Error(`setup: ${setup.status} ${await setup.text()}`);
  await setup.body?.cancel();
  const cookie = setup.headers.getSetCookie()[0].split(";")[0];
  const token = await fetch(`${origin}/api/user/token`, { headers: { cookie } });
  return (await token.json()).token;
}

/** The byte length of chunk `i` of an upload of `total` bytes. */
const lengthOf = (i: number, total: number) => Math.min(CHUNK, total - i * CHUNK);

async function viaChunked(origin: string, token: string, total: number): Promise<void> {
  const count = Math.ceil(total / CHUNK);
  let identifier: string | null = null;
  for (let i = 0; i < count; i++) {
    const length = lengthOf(i, total);
    const form = new FormData();
    form.append("file", new Blob([CHUNK_BYTES.subarray(0, length)]), "big.bin");
    const res: Response = await fetch(`${origin}/api/upload/partial`, {
      method: "POST",
      headers: {
        authorization: token,
        "content-range": `bytes ${i * CHUNK}-${i * CHUNK + length - 1}/${total}`,
        "x-service-p-filename": "big.bin",
        "x-service-p-content-type": "application/octet-stream",
        ...(identifier ? { "x-service-p-identifier": identifier } : {}),
      },
      body: form,
    });
    const body = await res.json();
    if (!res.ok) throw new Error(`chunk ${i}: ${res.status} ${JSON.stringify(body)}`);
    identifier = body.partialIdentifier;
  }
}

async function viaTus(origin: string, token: string, total: number): Promise<void> {
  const h = { authorization: token, "tus-resumable": "1.0.0" };
  const created = await fetch(`${origin}/api/upload/tus`, {
    method: "POST",
    headers: {
      ...h,
      "upload-length": String(total),
      "upload-metadata": `filename ${btoa("big.bin")}`,
    },
  });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${await created.text()}`);
  const path = created.headers.get("location")!;
  const count = Math.ceil(total / CHUNK);
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${origin}${path}`, {
      method: "PATCH",
      headers: {
        ...h,
        "content-type": "application/offset+octet-stream",
        "upload-offset": String(i * CHUNK),
      },
      body: CHUNK_BYTES.subarray(0, lengthOf(i, total)),
    });
    if (res.status !== 204) throw new Error(`PATCH ${i}: ${res.status} ${await res.text()}`);
    await res.body?.cancel();
    if (i === count - 1 && !res.headers.get("upload-url")) throw new Error("no Upload-Url");
  }
}

/** The server's environment for `storage`: a fresh bucket on `s3` for S3. */
async function storageEnv(storage: Storage, s3: S3rver | null): Promise<Record<string, string>> {
  return storage === "local" ? {} : await s3BucketEnv(s3!, "ferry-bench-tus");
}

/** One upload of `route` on a fresh server. */
async function measure(storage: Storage, route: Route, s3: S3rver | null): Promise<Run> {
  const dir = await Deno.makeTempDir({ prefix: "ferry-bench-tus-" });
  let server: BenchServer | null = null;
  try {
    // Through the soak's probe: `Deno.memoryUsage()` once a second on its stderr.
    server = await startServer(PROBED_FERRY_ARGS, {
      SERVICE_SECRET: SECRET,
      SERVICE_DATA_DIR: dir,
      SERVICE_CHUNKS_MAX: "4gb",
      SERVICE_CHUNKS_SIZE: "25mb",
      SERVICE_FILES_MAX_FILE_SIZE: "4gb",
      SERVICE_RATELIMIT_ENABLED: "false",
      ...await storageEnv(storage, s3),
    }, "/api/healthcheck");
    const startedMib = procMib(server.pid, "VmRSS");
    const token = await adminToken(server.origin);
    const setUpMib = procMib(server.pid, "VmRSS");
    await new Promise((resolve) => setTimeout(resolve, WORKER_IDLE_MS));
    const restMib = procMib(server.pid, "VmRSS");
    const before = heapSamples(server.stderr());
    const total = TOTAL_MIB * MIB;
    const sampler = rssSampler(server.pid);
    const began = performance.now();
    try {
      await (route === "tus" ? viaTus : viaChunked)(server.origin, token, total);
    } finally {
      sampler.stop();
    }
    const seconds = (performance.now() - began) / 1000;
    const during = heapSamples(server.stderr()).slice(before.length);
    return {
      storage,
      route,
      seconds,
      mibPerSecond: TOTAL_MIB / seconds,
      startedMib,
      setUpMib,
      restMib,
      uploadPeakMib: sampler.stop(),
      hwmMib: procMib(server.pid, "VmHWM"),
      restHeap: before.at(-1)!,
      peakHeapUsed: Math.max(...during.map((h) => h.heapUsed)),
      peakExternal: Math.max(...during.map((h) => h.external)),
      load: await loadAverage(),
    };
  } finally {
    await server?.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Where the memory goes: measured beside this benchmark (2026-11-27), kept with its results. */
const NOTES = `## Where the memory goes

Measured on this build with /proc (RssAnon, RssFile) and \`Deno.memoryUsage()\` in a copy of
\`serve\`, an upload sent by curl:

- A bare \`Deno.serve\` takes 39 MiB (12 anonymous, 27 file-backed: the deno binary's pages).
  Ferry, once it listens, takes 127–143 MiB: the module graph it loads (importing
  \`cli/services.ts\` adds 24 MiB of anonymous memory, \`routes/mod.ts\` 33 MiB more; the V8 heap
  is then 46 MiB, 37 used), 45–48 MiB file-backed, and the image pool's worker, started with the
  server (\`cli/serve.ts\`), 7–9 MiB. This is the server at rest before any request: the
  upload's budget cannot be met while it is above 143 MiB (150 MB) by itself.
- Setting the admin up hashes a password (argon2id, 19 MiB) on a password worker: 35–40 MiB more
  while that worker lives (the VmHWM column), about 10 MiB of which stay after it ended (the
  "at rest" column). A collection some time later gives 20–25 MiB of the heap back (anonymous
  memory 94 → 70 MiB after an upload).
- What a tus upload adds is now its request's buffer: the PATCH body is read (BYOB) into one
  buffer per request (64 KiB, growing to 256 KiB) and written at its offset into the file the
  upload becomes. Before, each 64 KiB read of the body was a new buffer (a default read of the
  request's byte stream, through \`streamedBody\`): a GiB of them, garbage that V8 collects
  only once its external memory grew by about 64 MiB (66 MiB added, the first run of this
  benchmark). \`streamedBody\` now forwards BYOB reads, so the chunked route's multipart reader
  (\`routes/multipart.ts\`) reads the body into its own buffer too.
- On S3 a PATCH's bytes still pass as the body's chunks into the SDK's UploadPart request, each
  chunk a new buffer until the request has sent it.
- On a disk, completing a tus upload is a rename: its bytes are written once. The chunked route
  writes each chunk as a part file and joins them into the file at the end (the bytes written
  twice); on S3 both complete a multipart upload and nothing is copied.`;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const mib = (n: number) => n.toFixed(0);
const met = (ok: boolean) => ok ? "met" : "NOT met";

/** The summary lines of one storage's runs. */
function summary(storage: Storage, runs: Run[]): string[] {
  const of = (route: Route) => runs.filter((r) => r.storage === storage && r.route === route);
  if (of("tus").length === 0) return [];
  const tus = median(of("tus").map((r) => r.mibPerSecond));
  const chunked = median(of("chunked").map((r) => r.mibPerSecond));
  const ratio = tus / chunked;
  const most = (route: Route, pick: (r: Run) => number) => Math.max(...of(route).map(pick));
  const uploadPeak = most("tus", (r) => r.uploadPeakMib);
  const hwm = most("tus", (r) => r.hwmMib);
  return [
    `- **${storage}**: median throughput tus ${tus.toFixed(1)} MiB/s, chunked ${
      chunked.toFixed(1)
    } MiB/s: tus at **${(ratio * 100).toFixed(0)} %** of the chunked route (budget: at ` +
    `least 80 %, ${met(ratio >= 0.8)}); tus's highest RSS during the upload **${
      mib(uploadPeak)
    } MiB** (${(uploadPeak * MIB / 1e6).toFixed(0)} MB; budget: under 150 MB, ${
      met(uploadPeak < BUDGET_MIB)
    }), its VmHWM since the server started ${mib(hwm)} MiB (${met(hwm < BUDGET_MIB)}); ` +
    `what the upload adds to the server at rest: tus ${
      mib(most("tus", (r) => r.uploadPeakMib - r.restMib))
    } MiB, chunked ${mib(most("chunked", (r) => r.uploadPeakMib - r.restMib))} MiB`,
  ];
}

async function run(): Promise<void> {
  const s3 = STORAGES.includes("s3") ? await startS3rver() : null;
  const runs: Run[] = [];
  try {
    for (const storage of STORAGES) {
      for (let round = 0; round < ROUNDS; round++) {
        for (const route of (round % 2 ? ["tus", "chunked"] : ["chunked", "tus"]) as Route[]) {
          const r = await measure(storage, route, s3);
          console.log(
            `${storage} ${route}: ${r.mibPerSecond.toFixed(1)} MiB/s, rest ${
              mib(r.restMib)
            } MiB, upload peak ${mib(r.uploadPeakMib)} MiB, VmHWM ${mib(r.hwmMib)} MiB`,
          );
          runs.push(r);
        }
      }
    }
  } finally {
    await s3?.stop();
  }
  const lines = [
    "# tus against the chunked route",
    "",
    `A ${TOTAL_MIB} MiB upload in ${CHUNK / MIB} MiB requests, one at a time, to \`main.ts ` +
    "serve` (Deno KV) on loopback, on local disk and on S3 (s3rver, its own process); a fresh " +
    "server per upload. `deno task bench tus` (`bench/tus.ts`). The server's resident memory " +
    "(RSS, from /proc) once it answers (started), once the admin is set up (its password " +
    "hashed on a password worker), once that worker ended (at rest, before the upload), the " +
    "highest sampled every 50 ms during the upload, and VmHWM, the peak since the server " +
    "started (the setup's password hash included).",
    "",
    "**The machine was shared**: other helpers ran tests, builds and benchmarks on its two " +
    "cores at the same time (see the load averages), so the throughputs move from run to run; " +
    "the routes are alternated and the ratio is of medians. Memory moves far less with the load.",
    "",
    "| storage | round | route | seconds | MiB/s | started (MiB) | set up (MiB) | at rest (MiB) | upload peak (MiB) | VmHWM (MiB) | heap used / external at rest (MiB) | heap used / external, upload's highest (MiB) | load (1, 5, 15 min) |",
    "| ------- | ----- | ----- | ------: | ----: | ------------: | -----------: | ------------: | ----------------: | ----------: | ---------------------------------: | -------------------------------------------: | ------------------- |",
    ...runs.map((r, i) =>
      `| ${r.storage} | ${Math.floor((i % (2 * ROUNDS)) / 2) + 1} | ${r.route} | ${
        r.seconds.toFixed(1)
      } | ${r.mibPerSecond.toFixed(1)} | ${mib(r.startedMib)} | ${mib(r.setUpMib)} | ${
        mib(r.restMib)
      } | ${mib(r.uploadPeakMib)} | ${mib(r.hwmMib)} | ${mib(r.restHeap.heapUsed)} / ${
        mib(r.restHeap.external)
      } | ${mib(r.peakHeapUsed)} / ${mib(r.peakExternal)} | ${r.load} |`
    ),
    "",
    ...STORAGES.flatMap((storage) => summary(storage, runs)),
    "",
    NOTES,
    "",
    await machineSection(),
  ];
  await Deno.writeTextFile(RESULTS, lines.join("\n"));
  console.log(`wrote ${RESULTS}`);
}

if (import.meta.main) await run();
