/**
 * A server process's memory, for benchmarks: its figures from /proc (RSS,
 * its anonymous and file-backed parts, the peak), and `Deno.memoryUsage()`
 * as the soak's probe (`tests/helpers/soak/memory_probe.ts`) writes it to
 * stderr once a second when the server is started through it
 * ({@link PROBED_FERRY_ARGS}).
 */
import { MEMORY_LINE } from "../../tests/helpers/soak/memory_probe.ts";
import { FERRY_ARGS } from "./server.ts";

const MIB = 1024 * 1024;

/** `deno task start`'s arguments with the memory probe in front of main.ts. */
export const PROBED_FERRY_ARGS = FERRY_ARGS.map((arg) =>
  arg === "main.ts" ? "tests/helpers/soak/memory_probe.ts" : arg
);

/** The /proc/<pid>/status fields read, in MiB. */
export type ProcField = "VmRSS" | "VmHWM" | "RssAnon" | "RssFile";

/** A memory figure of `pid` from /proc in MiB, 0 once it is gone. */
export function procMib(pid: number, field: ProcField): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return Number(status.match(new RegExp(`${field}:\\s+(\\d+)`))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** Samples the RSS of `pid` every 50 ms until `stop`; answers the highest. */
export function rssSampler(pid: number): { stop(): number } {
  let peak = procMib(pid, "VmRSS");
  const timer = setInterval(() => {
    peak = Math.max(peak, procMib(pid, "VmRSS"));
  }, 50);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, procMib(pid, "VmRSS"));
    },
  };
}

/** One `Deno.memoryUsage()` of the probe, in MiB. */
export interface HeapSample {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
}

/** The probe's samples in `stderr`, oldest first, in MiB. */
export function heapSamples(stderr: string): HeapSample[] {
  return stderr.split("\n").filter((line) => line.startsWith(MEMORY_LINE)).map((line) => {
    const usage = JSON.parse(line.slice(MEMORY_LINE.length)) as Deno.MemoryUsage;
    return {
      rss: usage.rss / MIB,
      heapTotal: usage.heapTotal / MIB,
      heapUsed: usage.heapUsed / MIB,
      external: usage.external / MIB,
    };
  });
}
