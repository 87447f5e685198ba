/**
 * Real Ferry processes for end-to-end tests: `deno task …` (or any `deno`
 * command) run as a child, its output collected, and the server reached over
 * HTTP on a free port. Every child runs in its own process group, so a stuck
 * one is killed together with what `deno task` started.
 */
import { fileURLToPath } from "node:url";
import { freePort } from "./postgres_cluster.ts";

/** The repository root, where `deno task` finds deno.json (the README's working directory). */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** How long a server may take to answer its first healthcheck. */
const READY_TIMEOUT_MS = 60_000;

/** Where and with what environment a child runs. */
export interface SpawnOptions {
  /** Working directory; defaults to {@link REPO_ROOT}. */
  cwd?: string;
  /** Variables added to the test process's own environment. */
  env?: Record<string, string>;
}

/** A running `deno` child. */
export interface DenoProcess {
  readonly pid: number;
  /** Its stdout and stderr so far, interleaved as they arrived. */
  output(): string;
  /** `true` until the process has exited and its output is fully read. */
  running(): boolean;
  /** Resolves with the exit status once the process ended and its output is fully read. */
  readonly exited: Promise<Deno.CommandStatus>;
  /**
   * Sends `signal` to the process and waits for it to exit; after `graceMs`
   * its whole process group is killed. Safe to call when it already exited.
   */
  stop(signal?: Deno.Signal, graceMs?: number): Promise<Deno.CommandStatus>;
}

/** Starts `deno <args>` with piped output. */
export function spawnDeno(args: string[], options: SpawnOptions = {}): DenoProcess {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: options.cwd ?? REPO_ROOT,
    env: { NO_COLOR: "1", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  let text = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) text += chunk;
  };
  const exited = Promise.all([child.status, collect(child.stdout), collect(child.stderr)])
    .then(([status]) => status);
  let ended = false;
  exited.then(() => ended = true);
  return {
    pid: child.pid,
    output: () => text,
    running: () => !ended,
    exited,
    async stop(signal = "SIGTERM", graceMs = 10_000) {
      if (!ended) {
        try {
          Deno.kill(child.pid, signal);
        } catch {
          // exited in the meantime
        }
      }
      const timer = setTimeout(() => killGroup(child.pid), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
        killGroup(child.pid); // what `deno task` started, should it outlive the task
      }
    },
  };
}

/** SIGKILLs every process left in the group `pid` leads. */
function killGroup(pid: number): void {
  try {
    Deno.kill(-pid, "SIGKILL");
  } catch {
    // the group is empty
  }
}

/** Runs `deno <args>` to completion (killed after `timeoutMs`); returns its exit code and output. */
export async function runDeno(
  args: string[],
  options: SpawnOptions = {},
  timeoutMs = 60_000,
): Promise<{ code: number; output: string }> {
  const child = spawnDeno(args, options);
  const timer = setTimeout(() => child.stop("SIGKILL", 0), timeoutMs);
  try {
    const { code } = await child.exited;
    return { code, output: child.output() };
  } finally {
    clearTimeout(timer);
  }
}

/** A Ferry server process answering HTTP. */
export interface ServerProcess extends DenoProcess {
  /** Its origin, e.g. `http://127.0.0.1:41234`. */
  readonly origin: string;
  /** Sends a JSON request and returns the status and the parsed body. */
  // deno-lint-ignore no-explicit-any
  json(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/** How to start a server. */
export interface ServerOptions extends SpawnOptions {
  /** The `deno` arguments; defaults to the README's `task start`. */
  args?: string[];
}

/**
 * Starts a server on a free port of 127.0.0.1 (`SERVICE_PORT` and
 * `SERVICE_HOSTNAME` are added to `env`) and waits until `/api/healthcheck`
 * answers. Throws with the process's output when it exits or is not ready
 * within a minute; the process is stopped then.
 */
export async function startServer(options: ServerOptions = {}): Promise<ServerProcess> {
  const port = freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = spawnDeno(options.args ?? ["task", "start"], {
    cwd: options.cwd,
    env: { SERVICE_PORT: String(port), SERVICE_HOSTNAME: "127.0.0.1", ...options.env },
  });
  const server: ServerProcess = {
    ...child,
    origin,
    async json(method, path, body) {
      const response = await fetch(new URL(path, origin), {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (child.running() && Date.now() < deadline) {
    if (await healthy(origin)) return server;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const exited = !child.running();
  const status = await child.stop("SIGKILL", 0);
  const why = exited ? `exited with code ${status.code}` : "was not ready after 60 s";
  throw new Error(`server ${why}:\n${child.output()}`);
}

/** `true` when the server at `origin` answers its healthcheck with 200. */
export async function healthy(origin: string): Promise<boolean> {
  try {
    const response = await fetch(`${origin}/api/healthcheck`, {
      signal: AbortSignal.timeout(2_000),
    });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}
