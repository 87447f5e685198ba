/**
 * Server processes for HTTP benchmarks: Ferry started the way `deno task start`
 * starts it, and the bare `Deno.serve` reference, each on a free port of
 * 127.0.0.1 with a clean environment. Their stdout (Ferry's request log) goes
 * to /dev/null, so that collecting it costs the benchmark nothing; stderr is
 * kept for the error message when a server does not come up.
 */
import { fileURLToPath } from "node:url";
import { freePort } from "../../tests/helpers/postgres_cluster.ts";

/** The repository root: the working directory of every server. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The `deno` arguments of `deno task start` (deno.json), which the benchmarks run. */
export const FERRY_ARGS = [
  "run",
  "--v8-flags=--max-semi-space-size=4",
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-sys",
  "--allow-run=ffmpeg",
  "--unstable-kv",
  "main.ts",
  "serve",
];

/**
 * The environment `deno task start` sets (deno.json) and the Dockerfile too:
 * glibc's allocator maps buffers of 128 KiB and more on their own, so that
 * freeing one gives its memory back (docs/scaling.md, "Memory").
 */
export const FERRY_ENV = { MALLOC_MMAP_THRESHOLD_: "131072" };

/** The `deno` arguments of the hello-world reference server. */
export const HELLO_ARGS = ["run", "--allow-net", "--allow-env", "bench/helpers/hello_server.ts"];

/** How long a server may take to answer its first request. */
const READY_TIMEOUT_MS = 60_000;

/** Variables passed through from the benchmark's own environment (the Deno cache). */
const PASSED_THROUGH = ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME", "TMPDIR"];

/** A running server. */
export interface BenchServer {
  /** e.g. `http://127.0.0.1:41234`. */
  readonly origin: string;
  /** The command line, for the results file: `VAR=value … deno run …`. */
  readonly command: string;
  /** The server's process id (the `deno` process itself). */
  readonly pid: number;
  /** SIGTERM, then SIGKILL after 10 s; safe to call twice. */
  stop(): Promise<void>;
  /** What it wrote to stderr so far (its first 100 000 characters). */
  stderr(): string;
}

/**
 * Starts `deno <args>` in `cwd` (the repository root unless another checkout
 * is measured) with only `env` (plus PATH/HOME/DENO_DIR and {@link FERRY_ENV}) and a free port in
 * `SERVICE_PORT`, and waits until `readyPath` answers 2xx. Throws with the
 * server's stderr when it exits or is not ready within a minute.
 */
export async function startServer(
  args: string[],
  env: Record<string, string>,
  readyPath: string,
  cwd: string = REPO_ROOT,
): Promise<BenchServer> {
  const port = freePort();
  const origin = `http://127.0.0.1:${port}`;
  const fullEnv = { ...FERRY_ENV, NO_COLOR: "1", SERVICE_PORT: String(port), ...env };
  const passed: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = Deno.env.get(name);
    if (value !== undefined) passed[name] = value;
  }
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    clearEnv: true,
    env: { ...passed, ...fullEnv },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const collected = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      if (stderr.length < 100_000) stderr += chunk;
    }
  })();
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  let stopping: Promise<void> | undefined;
  const server: BenchServer = {
    origin,
    command: [...Object.entries(fullEnv).map(([k, v]) => `${k}=${v}`), "deno", ...args].join(" "),
    pid: child.pid,
    stop() {
      stopping ??= (async () => {
        if (!exited) signal(child.pid, "SIGTERM");
        const timer = setTimeout(() => signal(child.pid, "SIGKILL"), 10_000);
        await status;
        clearTimeout(timer);
        await collected;
      })();
      return stopping;
    },
    stderr: () => stderr,
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!exited && Date.now() < deadline) {
    if (await answers(new URL(readyPath, origin))) return server;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const why = exited ? `exited with code ${(await status).code}` : "was not ready after 60 s";
  await server.stop();
  throw new Error(`deno ${args.join(" ")} ${why}:\n${stderr}`);
}

function signal(pid: number, name: Deno.Signal): void {
  try {
    Deno.kill(pid, name);
  } catch {
    // already gone
  }
}

async function answers(url: URL): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}
