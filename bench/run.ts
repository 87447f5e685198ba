/**
 * `deno task bench`: the micro-benchmarks (`deno bench` over every
 * `bench/*_bench.ts`, results in `bench/results/micro.md`), then each HTTP
 * load benchmark of {@link HTTP_BENCHES} as its own process, which writes its
 * own results file. Names given as arguments select what runs, e.g.
 * `deno task bench micro` or `deno task bench accounts`; arguments starting
 * with `--` are passed to the HTTP benchmarks that run (`deno task bench scale
 * --sizes=1000000`).
 *
 * To add an HTTP benchmark (uploads, redirects, the rate limiter…): write
 * `bench/http_<name>.ts` that runs when it is the main module, starts and
 * stops everything it needs, and writes `bench/results/<name>.md` (the helpers
 * in `bench/helpers/` start servers, run wrk and describe the machine); then
 * add it to {@link HTTP_BENCHES}. A micro-benchmark only needs a
 * `bench/<name>_bench.ts` file.
 */
import { join } from "node:path";
import { machineSection } from "./helpers/machine.ts";
import { REPO_ROOT } from "./helpers/server.ts";

/** An HTTP load benchmark, run as `deno run --allow-all --unstable-kv <script>`. */
export interface HttpBench {
  /** The name that selects it on the command line. */
  name: string;
  /** Its module, relative to the repository root. */
  script: string;
  /** Killed after this long. */
  timeoutMinutes: number;
}

/** The HTTP load benchmarks, in the order they run. */
export const HTTP_BENCHES: HttpBench[] = [
  { name: "accounts", script: "bench/http_accounts.ts", timeoutMinutes: 6 },
  { name: "api_keys", script: "bench/http_api_keys.ts", timeoutMinutes: 8 },
  { name: "files", script: "bench/http_files.ts", timeoutMinutes: 5 },
  { name: "uploads", script: "bench/http_uploads.ts", timeoutMinutes: 6 },
  { name: "tus", script: "bench/tus.ts", timeoutMinutes: 45 },
  { name: "redirects", script: "bench/http_redirects.ts", timeoutMinutes: 4 },
  { name: "visits", script: "bench/visits.ts", timeoutMinutes: 30 },
  { name: "ratelimit", script: "bench/http_ratelimit.ts", timeoutMinutes: 8 },
  { name: "transfer", script: "bench/transfer.ts", timeoutMinutes: 20 },
  { name: "dashboard", script: "bench/dashboard.ts", timeoutMinutes: 4 },
  { name: "dashboard_size", script: "bench/dashboard_size.ts", timeoutMinutes: 1 },
  { name: "images", script: "bench/images.ts", timeoutMinutes: 20 },
  { name: "soak", script: "bench/soak.ts", timeoutMinutes: 12 },
  { name: "memory", script: "bench/memory.ts", timeoutMinutes: 15 },
  { name: "paired", script: "bench/paired.ts", timeoutMinutes: 30 },
  { name: "kv_upload_cost", script: "bench/kv_upload_cost.ts", timeoutMinutes: 10 },
  { name: "scale", script: "bench/scale.ts", timeoutMinutes: 120 },
  { name: "kv_urls", script: "bench/kv_urls.ts", timeoutMinutes: 15 },
];

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/** Runs `deno <args>` from the repository root, its output shown live; returns it and the exit code. */
async function deno(
  args: string[],
  timeoutMinutes: number,
): Promise<{ code: number; text: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: REPO_ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(timeoutMinutes * 60_000),
  }).spawn();
  let text = "";
  const pipe = async (stream: ReadableStream<Uint8Array>, to: typeof Deno.stdout) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      await to.write(chunk);
      text += decoder.decode(chunk, { stream: true });
    }
  };
  const [status] = await Promise.all([
    child.status,
    pipe(child.stdout, Deno.stdout),
    pipe(child.stderr, Deno.stderr),
  ]);
  return { code: status.code, text: text.replace(ANSI, "") };
}

/**
 * `deno bench` over bench/ (`--no-lock`: the argon2 alternatives it imports
 * at run time stay out of deno.lock); writes `bench/results/micro.md`.
 */
async function micro(): Promise<number> {
  const args = ["bench", "--allow-all", "--unstable-kv", "--no-lock", "bench/"];
  const { code, text } = await deno(args, 10);
  const report = [
    "# Micro-benchmarks",
    "",
    "Written by `bench/run.ts` (`deno task bench`).",
    "",
    await machineSection(),
    "## Command",
    "",
    "```sh",
    `deno ${args.join(" ")}`,
    "```",
    "",
    "## Output",
    "",
    "```",
    text.split("\n").filter((line) => !/^\s*(Download|Ignored build scripts)/.test(line))
      .join("\n").trim(),
    "```",
    "",
  ].join("\n");
  await Deno.mkdir(join(REPO_ROOT, "bench/results"), { recursive: true });
  await Deno.writeTextFile(join(REPO_ROOT, "bench/results/micro.md"), report);
  return code;
}

if (import.meta.main) {
  // `--name=value` options go to the benchmarks run (e.g. `deno task bench scale --sizes=1000000`).
  const passed = Deno.args.filter((arg) => arg.startsWith("--"));
  const selected = new Set(Deno.args.filter((arg) => !arg.startsWith("--")));
  const wanted = (name: string) => selected.size === 0 || selected.has(name);
  const known = ["micro", ...HTTP_BENCHES.map((b) => b.name)];
  const unknown = [...selected].filter((name) => !known.includes(name));
  if (unknown.length) {
    console.error(`unknown benchmark ${unknown.join(", ")}; known: ${known.join(", ")}`);
    Deno.exit(2);
  }
  const failed: string[] = [];
  if (wanted("micro") && (await micro()) !== 0) failed.push("micro");
  for (const bench of HTTP_BENCHES.filter((b) => wanted(b.name))) {
    console.log(`\n== ${bench.name} (${bench.script})`);
    const args = ["run", "--allow-all", "--unstable-kv", bench.script, ...passed];
    if ((await deno(args, bench.timeoutMinutes)).code !== 0) failed.push(bench.name);
  }
  if (failed.length) {
    console.error(`\nfailed: ${failed.join(", ")}`);
    Deno.exit(1);
  }
  console.log("\nresults in bench/results/");
}
