/**
 * The server at rest: `main.ts serve` started as `deno task start` starts it
 * (through the soak's memory probe, for `Deno.memoryUsage()`), on Deno KV
 * with a local disk and on PostgreSQL with S3 (a throwaway cluster and an
 * s3rver), its memory read from /proc once the healthcheck answers and again
 * after {@link SETTLE_MS}. This checkout and a baseline commit
 * (`BENCH_MEMORY_BASELINE`, by default the one before the lazy imports) are
 * started alternately, `BENCH_MEMORY_ROUNDS` times each (3). Then the wait a
 * first image task has when the image pool's worker was not started at boot,
 * against one started beforehand. Writes `bench/results/memory.md`. Run:
 * `deno task bench memory`.
 */
import { join } from "node:path";
import { benchDatabases, cleanUp, cleanups } from "./helpers/cleanup.ts";
import { type Checkout, describeCommit, worktreeAt } from "./helpers/checkout.ts";
import { loadAverage, machineSection } from "./helpers/machine.ts";
import { heapSamples, PROBED_FERRY_ARGS, procMib } from "./helpers/memory.ts";
import { s3BucketEnv } from "./helpers/s3.ts";
import { REPO_ROOT, startServer } from "./helpers/server.ts";
import { startS3rver } from "../tests/helpers/s3rver.ts";
import { redSquare } from "../tests/helpers/images.ts";
import { imagePool, movable, thumbnailInWorkers } from "../core/files/image_pool.ts";

/** The commit before the server loaded its heavy modules on first use. */
const BASELINE = Deno.env.get("BENCH_MEMORY_BASELINE") ??
  "fca462ca38f3e2d6ab778528e8b8d8f108edb40c";
const ROUNDS = Number(Deno.env.get("BENCH_MEMORY_ROUNDS") ?? 3);
/** How long after the healthcheck's first answer the server is measured again (the probe's samples). */
const SETTLE_MS = 5_000;
const SECRET = "ferry-bench-secret-ferry-bench-secret-ferry-bench-secret-0123456";
const RESULTS = join(REPO_ROOT, "bench/results/memory.md");

type Setup = "kv+local" | "pg+s3";

interface Sample {
  setup: Setup;
  build: "baseline" | "this";
  /** VmRSS once the healthcheck answered. */
  answered: number;
  /** VmRSS, RssAnon, RssFile after {@link SETTLE_MS}. */
  rss: number;
  anon: number;
  file: number;
  /** The probe's last `Deno.memoryUsage()`. */
  heapUsed: number;
  heapTotal: number;
  external: number;
  load: string;
}

/** One server of `checkout` on `env`, measured at rest. */
async function measure(
  setup: Setup,
  build: Sample["build"],
  checkout: string,
  env: Record<string, string>,
): Promise<Sample> {
  const dir = await Deno.makeTempDir({ prefix: "ferry-bench-memory-" });
  const server = await startServer(
    PROBED_FERRY_ARGS,
    {
      SERVICE_SECRET: SECRET,
      SERVICE_DATA_DIR: dir,
      ...env,
    },
    "/api/healthcheck",
    checkout,
  );
  try {
    const answered = procMib(server.pid, "VmRSS");
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const heap = heapSamples(server.stderr()).at(-1);
    if (!heap) throw new Error(`no memory sample from the probe:\n${server.stderr()}`);
    return {
      setup,
      build,
      answered,
      rss: procMib(server.pid, "VmRSS"),
      anon: procMib(server.pid, "RssAnon"),
      file: procMib(server.pid, "RssFile"),
      heapUsed: heap.heapUsed,
      heapTotal: heap.heapTotal,
      external: heap.external,
      load: await loadAverage(),
    };
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * The first thumbnail's time when the pool's worker starts with it (`cold`)
 * and when it was started beforehand (`started`, as `serve` did at boot),
 * in milliseconds: each case from a closed pool, whose codec workers start
 * with the task either way. Alternated `rounds` times; medians.
 */
async function poolStartWait(rounds: number): Promise<{ cold: number; started: number }> {
  const png = redSquare(16);
  const once = async () => {
    const began = performance.now();
    await thumbnailInWorkers([movable(png.slice())], "png");
    return performance.now() - began;
  };
  const cold: number[] = [];
  const started: number[] = [];
  for (let i = 0; i < rounds; i++) {
    imagePool().close();
    cold.push(await once());
    imagePool().close();
    imagePool().start();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    started.push(await once());
  }
  imagePool().close();
  return { cold: median(cold), started: median(started) };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mib = (n: number) => n.toFixed(0);

async function run(): Promise<void> {
  const baseline: Checkout = await worktreeAt(BASELINE);
  const here = await describeCommit("HEAD");
  const { urls } = await benchDatabases(["ferry_memory_baseline", "ferry_memory_this"]);
  const s3 = await startS3rver();
  cleanups.push(() => s3.stop());
  const samples: Sample[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const setup of ["kv+local", "pg+s3"] as Setup[]) {
      const builds = round % 2 ? ["this", "baseline"] as const : ["baseline", "this"] as const;
      for (const build of builds) {
        const env = setup === "kv+local" ? {} : {
          DATABASE_URL: urls[build === "baseline" ? 0 : 1],
          ...await s3BucketEnv(s3, "ferry-bench-memory"),
        };
        const root = build === "baseline" ? baseline.root : REPO_ROOT;
        const sample = await measure(setup, build, root, env);
        console.log(
          `${setup} ${build}: answered ${mib(sample.answered)} MiB, at rest ${mib(sample.rss)} ` +
            `MiB (heap ${mib(sample.heapUsed)}/${mib(sample.heapTotal)}, external ${
              mib(sample.external)
            })`,
        );
        samples.push(sample);
      }
    }
  }
  const wait = await poolStartWait(5);
  console.log(`first thumbnail: ${wait.cold.toFixed(0)} ms cold, ${wait.started.toFixed(0)} ms`);

  const of = (setup: Setup, build: Sample["build"]) =>
    samples.filter((s) => s.setup === setup && s.build === build);
  const row = (setup: Setup, build: Sample["build"]) => {
    const xs = of(setup, build);
    const m = (pick: (s: Sample) => number) => mib(median(xs.map(pick)));
    return `| ${setup} | ${build} | ${m((s) => s.answered)} | ${m((s) => s.rss)} | ${
      m((s) => s.anon)
    } | ${m((s) => s.file)} | ${m((s) => s.heapUsed)} | ${m((s) => s.heapTotal)} | ${
      m((s) => s.external)
    } | ${xs.map((s) => s.load).join("; ")} |`;
  };
  const lines = [
    "# The server at rest",
    "",
    "`main.ts serve` started as `deno task start` starts it (through the soak's memory probe, " +
    "`tests/helpers/soak/memory_probe.ts`, which adds a once-a-second timer), on Deno KV with a " +
    "local disk and on PostgreSQL with S3 (a throwaway cluster, s3rver), no request served but " +
    "the healthcheck. Memory from /proc: VmRSS once the healthcheck answered, then VmRSS, RssAnon " +
    `and RssFile ${SETTLE_MS / 1000} s later, with the probe's last \`Deno.memoryUsage()\` ` +
    `(heap used, heap total, external). Medians of ${ROUNDS} servers each; the two builds ` +
    "alternate. `deno task bench memory` (`bench/memory.ts`).",
    "",
    `- baseline: ${baseline.title}`,
    `- this: ${here.title}`,
    "",
    "| setup | build | answered (MiB) | at rest (MiB) | anonymous (MiB) | file-backed (MiB) | heap used (MiB) | heap total (MiB) | external (MiB) | load (1, 5, 15 min) |",
    "| ----- | ----- | -------------: | ------------: | --------------: | ----------------: | --------------: | ---------------: | -------------: | ------------------- |",
    ...(["kv+local", "pg+s3"] as Setup[]).flatMap((setup) => [
      row(setup, "baseline"),
      row(setup, "this"),
    ]),
    "",
    "The image pool's worker, started at boot before (`cli/serve.ts`), now starts with the " +
    "first image task. What that costs the first task, a 16 × 16 PNG's thumbnail from a closed " +
    "pool (its codec worker starts with the task either way), median of 5 alternated: " +
    `**${wait.cold.toFixed(0)} ms** with the pool's worker starting with it, ` +
    `${wait.started.toFixed(0)} ms with it started a second before. So it starts with the ` +
    "first task: that task waits some tens of milliseconds once, where every server, making " +
    "thumbnails or not, held the worker's memory (some 12 MiB) from boot.",
    "",
    NOTES,
    "",
    await machineSection(),
  ];
  await Deno.writeTextFile(RESULTS, lines.join("\n") + "\n");
  console.log(`wrote ${RESULTS}`);
}

/** What the lazy imports took out of the server at rest, and where the rest goes. */
const NOTES = `## What the server at rest holds

Each module below is imported where it is used, with a dynamic \`import()\` of a literal
specifier (so \`deno bundle\` and \`deno compile\` still carry it), and a server at rest loads none
of them:

- \`@aws-sdk/client-s3\`: with the S3 datasource only
  (\`cli/services.ts\`); \`postgres\`: with \`DATABASE_URL\` only; \`@simplewebauthn/server\`: by
  the first passkey ceremony (\`core/passkeys.ts\`); Swagger UI's text: by the docs page.
- \`qrcode\`: by the first TOTP set-up (\`core/totp.ts\`).
- \`ua-parser-js\`, \`isbot\` and the GeoLite2 reader: by the first batch of visits
  (\`core/visits/recorder.ts\`); \`maxmind\` only once \`analyticsGeoLite2Path\` names a file
  (\`core/visits/geo.ts\`).
- \`hash-wasm\`: in the password workers only (\`core/password_worker.ts\` loads it with a
  job); the visitor hash is node:crypto's SHA-256 (\`core/visits/salt.ts\`).
- The image codecs (the @jsquash WebAssembly bytes, \`jpeg-js\`, \`pngjs\`, \`omggif\`): in the
  codec workers only (\`core/files/image_worker.ts\` loads them with a job); the server's
  thread reads only \`core/files/image_facts.ts\`.
- The image pool's worker: started by the first image task instead of at boot.
- lucide: the frame's icons are imported one module per icon (\`routes/web/icons.tsx\`); the
  package's index, with every icon, was some 16 MiB.

Still loaded at rest: hono, @hono/zod-openapi and zod (the app), oauth4webapi and otpauth (small),
marked (the markdown view, some 5 MiB) and the dashboard's code-split chunks, imported as text so
bundles carry them (\`routes/web/assets.ts\`, some 8 MiB with their hashes: loading them on
first ask needs an asynchronous \`findAsset\`).

## The S3 put's buffers

\`storage/s3.ts\` streams a \`put\` through the SDK's \`Upload\`, which holds up to its part
size times its queue in memory. \`bench/s3_parts.ts\`: 256 MiB put to s3rver in 64 KiB chunks
(each a new buffer, as a request body's), each setting in its own process, 3 alternated rounds,
load 5–10 on the shared machine (2026-11-27); the RSS added counts the chunks' garbage too:

| parts × queue | MiB/s (median) | RSS added (MiB, median) | RSS added (MiB, highest) |
| ------------- | -------------: | ----------------------: | -----------------------: |
| 8 MiB × 2     |           24.0 |                     128 |                      135 |
| 5 MiB × 2     |           27.8 |                     114 |                      119 |
| 5 MiB × 1     |           30.4 |                     106 |                      107 |

The put now uses 5 MiB parts (S3's smallest), two at a time: as fast here, 14 MiB less; the
queue of two stays so that a remote service's latency overlaps.`;

if (import.meta.main) {
  try {
    await run();
  } finally {
    await cleanUp();
  }
}
