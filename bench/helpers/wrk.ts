/**
 * Runs `wrk` (Debian package `wrk`) and reads its report: requests per second,
 * latency percentiles (`--latency`), and every answer that was not 2xx/3xx or
 * never came, so that a benchmark measuring errors is noticed.
 */
import { fileURLToPath } from "node:url";

/** Where wrk runs, so that script paths are relative to the repository root. */
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The Lua scripts shipped with the benchmarks, relative to the repository root. */
export const WRK_SCRIPTS = {
  /** POSTs `WRK_BODY` as JSON. */
  postJson: "bench/wrk/post_json.lua",
  /** Sends each request with the next `Authorization` of `WRK_TOKENS` (one per line). */
  rotateAuth: "bench/wrk/rotate_auth.lua",
  /** POSTs the multipart body `WRK_BODY` (boundary `WRK_BOUNDARY`). */
  upload: "bench/wrk/upload.lua",
  /** Each request from a visitor of its own (`X-Forwarded-For`, one of five user agents). */
  manyVisitors: "bench/wrk/many_visitors.lua",
};

/** One wrk run. */
export interface WrkOptions {
  url: string;
  threads?: number;
  connections?: number;
  durationSeconds?: number;
  /** Request headers, e.g. `Authorization`. */
  headers?: Record<string, string>;
  /** A Lua script path (see {@link WRK_SCRIPTS}). */
  script?: string;
  /** Variables for the script (e.g. `WRK_BODY`). */
  env?: Record<string, string>;
  /** Header values shown as `<name>` in {@link WrkResult.command} (secrets). */
  redact?: string[];
}

/** What wrk measured. */
export interface WrkResult {
  /** The command line, secrets redacted. */
  command: string;
  requestsPerSecond: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers with a status outside 2xx/3xx. */
  non2xx: number;
  /** wrk's `Socket errors:` line (connect, read, write, timeout), or `null`. */
  socketErrors: string | null;
  /** wrk's full output. */
  output: string;
}

/** `true` when `wrk` is on PATH. */
export async function hasWrk(): Promise<boolean> {
  try {
    await new Deno.Command("wrk", { args: ["-v"], stdout: "null", stderr: "null" }).output();
    return true;
  } catch {
    return false;
  }
}

/** Runs wrk once (killed 60 s after its duration) and parses its report. */
export async function wrk(options: WrkOptions): Promise<WrkResult> {
  const duration = options.durationSeconds ?? 10;
  const args = [
    `-t${options.threads ?? 2}`,
    `-c${options.connections ?? 32}`,
    `-d${duration}s`,
    "--timeout",
    "30s",
    "--latency",
  ];
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    args.push("-H", `${name}: ${value}`);
  }
  if (options.script) args.push("-s", options.script);
  args.push(options.url);
  const result = await new Deno.Command("wrk", {
    args,
    cwd: REPO_ROOT,
    env: options.env,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout((duration + 60) * 1000),
  }).output();
  const output = new TextDecoder().decode(result.stdout) + new TextDecoder().decode(result.stderr);
  if (!result.success) throw new Error(`wrk failed (exit ${result.code}):\n${output}`);
  const number = (pattern: RegExp) => {
    const match = output.match(pattern);
    if (!match) throw new Error(`wrk report without ${pattern}:\n${output}`);
    return match;
  };
  const latency = (percent: number) => {
    const [, value, unit] = number(
      new RegExp(`^\\s+${percent}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m"),
    );
    const ms = Number(value) * { us: 0.001, ms: 1, s: 1000, m: 60_000 }[unit as "us"];
    return Math.round(ms * 1000) / 1000; // to the microsecond: no float noise like 0.6880000000000001
  };
  return {
    command: commandLine(args, options),
    requestsPerSecond: Number(number(/^Requests\/sec:\s+([\d.]+)/m)[1]),
    requests: Number(number(/^\s+(\d+) requests in/m)[1]),
    p50Ms: latency(50),
    p99Ms: latency(99),
    non2xx: Number(output.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0),
    socketErrors: output.match(/Socket errors: (.*)/)?.[1] ?? null,
    output,
  };
}

function commandLine(args: string[], options: WrkOptions): string {
  const env = Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${quote(v)}`);
  const shown = args.map((arg) => {
    for (const name of options.redact ?? []) {
      if (arg.startsWith(`${name}: `)) return quote(`${name}: <${name.toLowerCase()}>`);
    }
    return quote(arg);
  });
  return [...env, "wrk", ...shown].join(" ");
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}
