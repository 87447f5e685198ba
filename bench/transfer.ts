/**
 * Import and export at size: a generated v4 document with 100,000 files and
 * 10,000 URLs (100 users) imported with `main.ts import v4` into an empty
 * instance, then exported with `main.ts export`, on Deno KV and on
 * PostgreSQL. Each command is its own process; wall time, CPU time, peak RSS
 * (VmHWM, polled) and the load average go to `bench/results/transfer.md`. Goal: under 60 s and
 * under 300 MB each. Run: `deno task bench transfer`.
 */
import postgres from "postgres";
import { join } from "node:path";
import type { Store } from "../db/store.ts";
import { startPostgres } from "../tests/helpers/postgres_cluster.ts";
import { addSuperadmin, writeGeneratedV4 } from "../tests/helpers/transfer.ts";
import { loadAverage, machineSection } from "./helpers/machine.ts";
import { REPO_ROOT } from "./helpers/server.ts";
import { kvStore, postgresStore } from "./helpers/stores.ts";

const SIZE = { users: 100, files: 100_000, urls: 10_000 };

interface Measured {
  seconds: number;
  /** User plus system CPU time: under the wall time when other work holds the CPUs. */
  cpuSeconds: number;
  peakMb: number;
  /** The load averages as the command started. */
  load: string;
}

/** A process's user plus system CPU seconds so far, from `/proc/<pid>/stat` (100 ticks a second). */
function cpuSecondsOf(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Runs `main.ts <args>` with `env`, stdout to `stdoutPath` (or discarded); times it and polls its peak RSS. */
async function measure(
  args: string[],
  env: Record<string, string>,
  stdoutPath?: string,
): Promise<Measured> {
  const load = await loadAverage();
  const start = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", "main.ts", ...args],
    cwd: REPO_ROOT,
    env,
    stdout: stdoutPath ? "piped" : "null",
    stderr: "null",
  }).spawn();
  let peak = 0;
  let cpuSeconds = 0;
  const poll = setInterval(() => {
    try {
      const status = Deno.readTextFileSync(`/proc/${child.pid}/status`);
      peak = Math.max(peak, Number(status.match(/VmHWM:\s+(\d+)/)?.[1] ?? 0));
      cpuSeconds = cpuSecondsOf(child.pid);
    } catch {
      // exited
    }
  }, 50);
  if (stdoutPath) {
    const file = await Deno.open(stdoutPath, { create: true, write: true, truncate: true });
    await child.stdout.pipeTo(file.writable);
  }
  const status = await child.status;
  clearInterval(poll);
  if (!status.success) throw new Error(`main.ts ${args.join(" ")} failed`);
  const seconds = (performance.now() - start) / 1000;
  return { seconds, cpuSeconds, peakMb: Math.round(peak / 1024), load };
}

/** Imports then exports on one store; returns both measurements. */
async function run(
  env: Record<string, string>,
  open: () => Promise<Store>,
  doc: string,
  dir: string,
) {
  const store = await open();
  await addSuperadmin(store);
  await store.close();
  const importing = await measure(["import", "v4", doc], env);
  console.log("import", importing);
  const out = join(dir, "export.json");
  const exporting = await measure(["export"], env, out);
  const exported = JSON.parse(await Deno.readTextFile(out));
  if (exported.data.files.length !== SIZE.files || exported.data.urls.length !== SIZE.urls) {
    throw new Error("the export does not hold every record");
  }
  return { importing, exporting };
}

if (import.meta.main) {
  const dir = await Deno.makeTempDir({ prefix: "ferry-bench-transfer-" });
  const cleanups: (() => Promise<unknown>)[] = [() => Deno.remove(dir, { recursive: true })];
  try {
    const doc = join(dir, "doc.json");
    await writeGeneratedV4(doc, SIZE);
    const docMb = ((await Deno.stat(doc)).size / 1e6).toFixed(1);
    console.log(`document: ${docMb} MB`);

    const kvDir = join(dir, "kv");
    const kv = await run(
      { SERVICE_DATA_DIR: kvDir },
      async () => {
        await Deno.mkdir(kvDir, { recursive: true });
        return await kvStore(join(kvDir, "ferry.kv"));
      },
      doc,
      dir,
    );
    console.log("kv", kv);

    const cluster = await startPostgres();
    cleanups.push(() => cluster.stop());
    const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
    await admin.unsafe("CREATE DATABASE ferry_bench");
    await admin.end();
    const url = new URL(cluster.url);
    url.pathname = "/ferry_bench";
    const pg = await run(
      { DATABASE_URL: url.toString(), SERVICE_DATA_DIR: join(dir, "pg") },
      () => postgresStore(url.toString()),
      doc,
      dir,
    );
    console.log("postgres", pg);

    const row = (store: string, what: string, m: Measured) =>
      `| ${store} | ${what} | ${m.seconds.toFixed(1)} s | ${m.cpuSeconds.toFixed(1)} s | ` +
      `${m.peakMb} MB | ${m.load} |`;
    const report = [
      "# Import and export at size",
      "",
      `\`deno task bench transfer\` (bench/transfer.ts): a generated v4 document of ${docMb} MB ` +
      `(${SIZE.users} users, ${SIZE.files} files, ${SIZE.urls} URLs), imported with ` +
      "`main.ts import v4` into an empty instance, then exported with `main.ts export`; " +
      "each command a process of its own. Goal: under 60 s and under 300 MB each.",
      "",
      "Before the import wrote files and URLs in batches (see `docs/transfer.md`), the same " +
      "import took 196 s on each store (279 MB on Deno KV, 302 MB on PostgreSQL). The machine " +
      "is shared: where the CPU time is far below the wall time, other work held the CPUs.",
      "",
      "| store | command | wall time | CPU time (user + system) | peak RSS | load average at start |",
      "| --- | --- | --- | --- | --- | --- |",
      row("Deno KV", "import v4", kv.importing),
      row("Deno KV", "export", kv.exporting),
      row("PostgreSQL", "import v4", pg.importing),
      row("PostgreSQL", "export", pg.exporting),
      "",
      await machineSection(),
    ].join("\n");
    await Deno.writeTextFile(join(REPO_ROOT, "bench/results/transfer.md"), report + "\n");
    console.log(report);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  }
}
