/**
 * One Ferry process of the soak, run as `deno task start` runs it, on a port
 * it keeps across restarts (the balancer knows it by that port). It can be
 * killed at once (SIGKILL) and started again; its peak RSS is read from
 * `/proc` before each kill and at the end. It starts through
 * `memory_probe.ts`, which reports `Deno.memoryUsage()` once a second: the
 * samples are kept by the phase of the run they fall in ({@link Instance.phase}).
 */
import { FERRY_ARGS, FERRY_ENV, REPO_ROOT } from "../../../bench/helpers/server.ts";
import { freePort } from "../postgres_cluster.ts";
import { healthy } from "../process.ts";
import { MEMORY_LINE } from "./memory_probe.ts";

/** Variables passed through from our own environment (the Deno cache, the path). */
const PASSED_THROUGH = ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME", "TMPDIR"];
/** How long a start may take: a minute and more on a 2-CPU machine shared with other work. */
const READY_TIMEOUT_MS = 120_000;
/** V8 flags for every instance (`SOAK_V8_FLAGS`, e.g. `--max-old-space-size=256`), or none. */
export const V8_FLAGS = Deno.env.get("SOAK_V8_FLAGS") ?? "";
/**
 * Ferry's `deno` arguments, started through the memory probe instead of
 * `main.ts`, with {@link V8_FLAGS} when set (an operator's option, measured).
 */
const ARGS = [
  FERRY_ARGS[0],
  ...(V8_FLAGS ? [`--v8-flags=${V8_FLAGS}`] : []),
  ...(Deno.env.get("SOAK_MALLINFO") ? ["--allow-ffi"] : []),
  ...FERRY_ARGS.slice(1).map((arg) =>
    arg === "main.ts" ? "tests/helpers/soak/memory_probe.ts" : arg
  ),
];
/** Our variables passed through when set: where a heap snapshot goes on SIGUSR2, the allocator's counts. */
const PROBE_VARIABLES = ["SOAK_HEAP_DIR", "SOAK_MALLINFO"];

/** The most of each figure of `Deno.memoryUsage()` an instance reported in one phase, in bytes. */
export interface PhaseMemory {
  phase: string;
  /** Samples taken (one a second). */
  samples: number;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
}

/** A Ferry instance that can be killed and started again. */
export class Instance {
  readonly origin: string;
  readonly #port: number;
  readonly #env: Record<string, string>;
  #child: Deno.ChildProcess | null = null;
  #stderr = "";
  #peakKib = 0;
  /** Its WARN and ERROR lines, counted by level and message (fields left out). */
  readonly logged = new Map<string, number>();
  /** The phase of the run a memory sample falls in, asked as each arrives. */
  phase: () => string = () => "start-up";
  readonly #memory = new Map<string, PhaseMemory>();

  /** An instance named `name` with `env` (its port is chosen here). */
  constructor(readonly name: string, env: Record<string, string>) {
    this.#port = freePort();
    this.origin = `http://127.0.0.1:${this.#port}`;
    const passed: Record<string, string> = {};
    for (const key of [...PASSED_THROUGH, ...PROBE_VARIABLES]) {
      const value = Deno.env.get(key);
      if (value !== undefined) passed[key] = value;
    }
    // The C allocator's tunables (glibc's `MALLOC_*`), for memory experiments.
    for (const [key, value] of Object.entries(Deno.env.toObject())) {
      if (key.startsWith("MALLOC_")) passed[key] = value;
    }
    this.#env = {
      ...FERRY_ENV,
      ...passed,
      NO_COLOR: "1",
      ...env,
      SERVICE_PORT: String(this.#port),
    };
  }

  /** The highest resident set size seen, in MiB. */
  get peakRssMib(): number {
    this.#samplePeak();
    return Math.round(this.#peakKib / 1024);
  }

  /** The most memory it used in each phase, in the order the phases came. */
  get memory(): PhaseMemory[] {
    return [...this.#memory.values()];
  }

  /** Asks the process for a heap snapshot (written when `SOAK_HEAP_DIR` is set). */
  snapshotHeap(): void {
    if (this.#child) signal(this.#child, "SIGUSR2");
  }

  /** The last 4 KiB of what it wrote to stderr. */
  get stderr(): string {
    return this.#stderr;
  }

  /** Starts the process and waits until its healthcheck answers 200. */
  async start(): Promise<void> {
    const child = new Deno.Command(Deno.execPath(), {
      args: ARGS,
      cwd: REPO_ROOT,
      clearEnv: true,
      env: this.#env,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    this.#child = child;
    (async () => {
      const keep = Deno.env.get("SOAK_LOG_DIR");
      const file = keep
        ? await Deno.open(`${keep}/${this.name.replace(/ /g, "_")}.log`, {
          append: true,
          create: true,
        })
        : null;
      let partial = "";
      for await (const text of child.stderr.pipeThrough(new TextDecoderStream())) {
        const shown = text.split("\n").filter((line) => !line.startsWith(MEMORY_LINE)).join("\n");
        this.#stderr = (this.#stderr + shown).slice(-4096);
        await file?.write(new TextEncoder().encode(shown));
        const lines = (partial + text).split("\n");
        partial = lines.pop()!;
        for (const line of lines) {
          if (line.startsWith(MEMORY_LINE)) {
            this.#sampled(JSON.parse(line.slice(MEMORY_LINE.length)));
            continue;
          }
          const match = line.match(/^\S+ (WARN|ERROR) (.*?)(?: \w+=|$)/);
          if (match) {
            this.logged.set(
              `${match[1]} ${match[2]}`,
              (this.logged.get(`${match[1]} ${match[2]}`) ?? 0) + 1,
            );
          }
        }
      }
      file?.close();
    })();
    let exited = false;
    child.status.then(() => exited = true);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!exited && Date.now() < deadline) {
      if (await healthy(this.origin)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await this.kill();
    throw new Error(`${this.name} did not start:\n${this.#stderr}`);
  }

  /** SIGKILLs the process (a crash) and waits for it to be gone. */
  async kill(): Promise<void> {
    const child = this.#release();
    if (!child) return;
    signal(child, "SIGKILL");
    await child.status;
  }

  /** SIGTERM, then SIGKILL after 10 s. */
  async stop(): Promise<void> {
    const child = this.#release();
    if (!child || !signal(child, "SIGTERM")) return;
    const timer = setTimeout(() => signal(child, "SIGKILL"), 10_000);
    await child.status;
    clearTimeout(timer);
  }

  /** The running process, no longer this instance's (its peak memory noted), or `null`. */
  #release(): Deno.ChildProcess | null {
    const child = this.#child;
    if (child) this.#samplePeak();
    this.#child = null;
    return child;
  }

  /** Keeps a memory sample's figures where they pass the phase's most. */
  #sampled(usage: Deno.MemoryUsage): void {
    const phase = this.phase();
    const kept = this.#memory.get(phase) ??
      { phase, samples: 0, rss: 0, heapTotal: 0, heapUsed: 0, external: 0 };
    kept.samples++;
    for (const key of ["rss", "heapTotal", "heapUsed", "external"] as const) {
      kept[key] = Math.max(kept[key], usage[key]);
    }
    this.#memory.set(phase, kept);
  }

  #samplePeak(): void {
    if (!this.#child) return;
    try {
      const status = Deno.readTextFileSync(`/proc/${this.#child.pid}/status`);
      const kib = Number(status.match(/^VmHWM:\s+(\d+) kB/m)?.[1] ?? 0);
      this.#peakKib = Math.max(this.#peakKib, kib);
    } catch {
      // no /proc here, or the process is gone
    }
  }
}

/** Sends `sig` to `child`; `false` when it was already gone. */
function signal(child: Deno.ChildProcess, sig: Deno.Signal): boolean {
  try {
    child.kill(sig);
    return true;
  } catch {
    return false;
  }
}
