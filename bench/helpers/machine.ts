/**
 * The machine a benchmark ran on, for the head of every results file: figures
 * mean little without the CPU count, the memory and the runtime version.
 */

/** A command's stdout and stderr (wrk prints its version and fails), or `(unavailable: …)`. */
async function shell(cmd: string, args: string[]): Promise<string> {
  try {
    const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    return text.replace(/^\n+/, "").trimEnd();
  } catch (error) {
    return `(unavailable: ${(error as Error).message})`;
  }
}

async function cpuModel(): Promise<string> {
  try {
    const info = await Deno.readTextFile("/proc/cpuinfo");
    return info.match(/^model name\s*:\s*(.+)$/m)?.[1] ?? "unknown";
  } catch {
    return "unknown";
  }
}

/**
 * {@link machineSection} of an HTTP benchmark on both stores: with wrk's
 * version and the throwaway PostgreSQL cluster's (`pgVersion`).
 */
export async function wrkMachineSection(pgVersion: string): Promise<string> {
  return await machineSection({
    wrk: await versionOf("wrk", ["-v"]),
    PostgreSQL: `${pgVersion} (throwaway cluster: fsync=off, synchronous_commit=off)`,
  });
}

/**
 * A Markdown section: date, CPU, `nproc`, the load average (the machine may be
 * shared), `free -h`, Deno and, when given, more tool versions.
 */
export async function machineSection(extra: Record<string, string> = {}): Promise<string> {
  const lines = [
    "## Machine",
    "",
    `- date: ${new Date().toISOString()}`,
    `- CPU: ${await cpuModel()}, \`nproc\`: ${await shell("nproc", [])}`,
    `- deno: ${Deno.version.deno} (V8 ${Deno.version.v8}, TypeScript ${Deno.version.typescript})`,
    `- OS: ${Deno.build.os} ${Deno.osRelease()} ${Deno.build.arch}`,
    `- load average (1, 5, 15 min) as this was written: ${
      Deno.loadavg().map((l) => l.toFixed(2)).join(", ")
    }`,
    ...Object.entries(extra).map(([name, value]) => `- ${name}: ${value}`),
    "",
    "`free -h`:",
    "",
    "```",
    await shell("free", ["-h"]),
    "```",
    "",
  ];
  return lines.join("\n");
}

/** The 1, 5 and 15 minute load averages: other work on the machine shows in the figures. */
export async function loadAverage(): Promise<string> {
  try {
    return (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
  } catch {
    return "unknown";
  }
}

/** The first line of `cmd args` (e.g. a version banner), for {@link machineSection}'s extras. */
export async function versionOf(cmd: string, args: string[]): Promise<string> {
  return (await shell(cmd, args)).split("\n")[0];
}
