/**
 * Where a small upload's work goes on Deno KV (issue #31), this checkout
 * against another commit (`KV_UPLOAD_COST_BASELINE`, default `0f813ff`):
 * each side's own store code, in a process of its own per measure, stores
 * {@link FILES} files of one owner through `files.create` ({@link
 * CONCURRENT} at once, so that they group-commit as a server's do) with the
 * background builds held, then runs each build that follows uploads to its
 * end, one phase at a time: the search keys' (`search_backlog.ts`), the
 * other orders' list entries (`order_backlog.ts`), the fences' splits
 * (`file_fences.ts`); a side without a phase's module skips it.
 *
 * For each phase: the atomic commits, checks and mutations (by the key's
 * first part) per file, and the keys read (`get`, `getMany`, listed
 * entries), counted in one run; the CPU per file of each thread of the
 * process (`deno` the JavaScript thread, `sw` KV's SQLite writer), measured
 * in another run, uncounted. No HTTP: the store's share of an upload only
 * (`bench/paired.ts` measures whole requests). Writes
 * `bench/results/kv_upload_cost.md` (hand notes after its table kept).
 *
 * Run: `deno run --allow-all --unstable-kv bench/kv_upload_cost.ts`
 * (`deno task bench kv_upload_cost`); `KV_UPLOAD_COST_FILES` sets the files.
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type Checkout, describeCommit, worktreeAt } from "./helpers/checkout.ts";
import { cleanUp } from "./helpers/cleanup.ts";
import { REPO_ROOT } from "./helpers/server.ts";

/** Files stored per measure. */
const FILES = Number(Deno.env.get("KV_UPLOAD_COST_FILES") ?? 3000);
/** Uploads in flight at once (`KV_UPLOAD_COST_CONCURRENT`). */
const CONCURRENT = Number(Deno.env.get("KV_UPLOAD_COST_CONCURRENT") ?? 8);
/** The commit measured against. */
const BASELINE = Deno.env.get("KV_UPLOAD_COST_BASELINE") ?? "0f813ff";
const RESULTS = join(REPO_ROOT, "bench/results/kv_upload_cost.md");
/** Where the hand notes start in {@link RESULTS} (kept when it is written again). */
const NOTES = "## Notes";

/** The phases, in the order they run. */
const PHASES = ["upload", "search", "orders", "split"] as const;
type Phase = typeof PHASES[number];

/** What one phase did, per file: counts or CPU µs by thread. */
type Figures = Record<string, number>;

/** One side's figures by phase. */
type SideFigures = Record<Phase, Figures>;

/** The counts of one phase as they grow. */
class Tally {
  commits = 0;
  checks = 0;
  reads = 0;
  readonly mutations = new Map<string, number>();
  mutate(key: Deno.KvKey) {
    const part = `writes ${String(key[0])}`;
    this.mutations.set(part, (this.mutations.get(part) ?? 0) + 1);
  }
  figures(): Figures {
    const out: Figures = { commits: this.commits, checks: this.checks, "keys read": this.reads };
    let all = 0;
    for (const [part, n] of this.mutations) {
      out[part] = n;
      all += n;
    }
    out.mutations = all;
    for (const k of Object.keys(out)) out[k] /= FILES;
    return out;
  }
}

/** Counts every commit, check, mutation and read of KV in this process into `tally()`. */
function countKv(tally: () => Tally) {
  const op = Deno.AtomicOperation.prototype;
  const wrap = <K extends "set" | "sum" | "delete" | "min" | "max">(name: K) => {
    const original = op[name] as (this: Deno.AtomicOperation, ...a: unknown[]) => unknown;
    (op as unknown as Record<string, unknown>)[name] = function (
      this: Deno.AtomicOperation,
      key: Deno.KvKey,
      ...rest: unknown[]
    ) {
      tally().mutate(key);
      return original.call(this, key, ...rest);
    };
  };
  wrap("set");
  wrap("sum");
  wrap("delete");
  const check = op.check;
  op.check = function (...checks) {
    tally().checks += checks.length;
    return check.apply(this, checks);
  };
  const commit = op.commit;
  op.commit = function () {
    tally().commits++;
    return commit.call(this);
  };
  const kv = Deno.Kv.prototype;
  const get = kv.get;
  kv.get = function (this: Deno.Kv, ...a: Parameters<Deno.Kv["get"]>) {
    tally().reads++;
    return get.apply(this, a);
  } as Deno.Kv["get"];
  const getMany = kv.getMany;
  kv.getMany = function (this: Deno.Kv, keys: Deno.KvKey[], ...a: unknown[]) {
    tally().reads += keys.length;
    return (getMany as (...x: unknown[]) => unknown).call(this, keys, ...a);
  } as Deno.Kv["getMany"];
  const list = kv.list;
  kv.list = function (this: Deno.Kv, ...a: Parameters<Deno.Kv["list"]>) {
    const iterator = list.apply(this, a);
    const next = iterator.next.bind(iterator);
    iterator.next = async () => {
      const r = await next();
      if (!r.done) tally().reads++;
      return r;
    };
    return iterator;
  } as Deno.Kv["list"];
}

/** CPU seconds of each thread of this process, by name (digits and dashes cut). */
function threadCpu(): Map<string, number> {
  const byName = new Map<string, number>();
  for (const task of Deno.readDirSync("/proc/self/task")) {
    let stat: string;
    try {
      stat = Deno.readTextFileSync(`/proc/self/task/${task.name}/stat`);
    } catch {
      continue; // the thread ended meanwhile
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/[-\d]+$/, "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const seconds = (Number(fields[11]) + Number(fields[12])) / 100;
    byName.set(name, (byName.get(name) ?? 0) + seconds);
  }
  return byName;
}

/** CPU µs per file by thread between two {@link threadCpu} readings, and their total. */
function cpuBetween(a: Map<string, number>, b: Map<string, number>): Figures {
  const out: Figures = {};
  let total = 0;
  for (const [name, s] of b) {
    const us = (s - (a.get(name) ?? 0)) * 1e6 / FILES;
    total += us;
    if (us >= 1) out[`CPU µs ${name}`] = us;
  }
  out["CPU µs, all threads"] = total;
  return out;
}

/** A 1 KiB upload's record, the `i`th of the run (a random name, as a server gives). */
function record(i: number, base: number) {
  const at = new Date(base + i * 3);
  return {
    id: `${at.getTime().toString(36)}${String(i).padStart(6, "0")}`,
    name: `${crypto.randomUUID().slice(0, 8)}.txt`,
    originalName: "bench.txt",
    size: 1024,
    type: "text/plain",
    views: 0,
    maxViews: null,
    favorite: false,
    password: null,
    anonymous: false,
    userId: "bench-owner",
    folderId: null,
    deletesAt: null,
    pending: false,
    private: false,
    createdAt: at,
    updatedAt: at,
  };
}

/** A module of the checkout at `root`, or `null` when it has none at `path`. */
async function moduleOf(root: string, path: string): Promise<Record<string, unknown> | null> {
  try {
    await Deno.stat(join(root, path));
  } catch {
    return null;
  }
  return await import(pathToFileURL(join(resolve(root), path)).href);
}

/** A build phase: runs until it takes nothing. */
type Build = (kv: Deno.Kv) => Promise<number>;

/** One side, one measure (`count` or `time`), in this process: its figures by phase. */
async function measureHere(root: string, mode: "count" | "time"): Promise<SideFigures> {
  const tallies = new Map(PHASES.map((p) => [p, new Tally()]));
  let current: Tally | null = null;
  const idle = new Tally();
  if (mode === "count") countKv(() => current ?? idle);
  const mod = (await moduleOf(root, "db/kv/mod.ts"))!;
  const search = await moduleOf(root, "db/kv/search_backlog.ts");
  const orders = await moduleOf(root, "db/kv/order_backlog.ts");
  const fences = await moduleOf(root, "db/kv/file_fences.ts");
  const builds: Record<Exclude<Phase, "upload">, Build | null> = {
    search: search && ((kv) => (search.buildBacklog as Build)(kv)),
    orders: orders &&
      ((kv) =>
        (orders.buildOrders as (kv: Deno.Kv, o: object) => Promise<number>)(kv, {
          split: false,
        })),
    split: fences && ((kv) => (fences.splitFences as Build)(kv)),
  };
  const dir = await Deno.makeTempDir({ prefix: "ferry-kv-upload-cost-" });
  const path = join(dir, "ferry.kv");
  type Opened = {
    files: { create(f: unknown, limits: unknown): Promise<void> };
    backlog?: { hold(): Promise<void> };
    close(): Promise<void>;
  };
  const store = await (mod.openKvStore as (p: string) => Promise<Opened>)(path);
  const kv = await Deno.openKv(path);
  const limits = { maxFiles: null, maxBytes: null };
  const base = Date.now();
  const figures = {} as SideFigures;
  try {
    await store.backlog?.hold();
    let cpu = threadCpu();
    const done = (phase: Phase) => {
      const now = threadCpu();
      figures[phase] = mode === "time" ? cpuBetween(cpu, now) : tallies.get(phase)!.figures();
      cpu = now;
    };
    current = tallies.get("upload")!;
    for (let i = 0; i < FILES; i += CONCURRENT) {
      const n = Math.min(CONCURRENT, FILES - i);
      await Promise.all(
        Array.from({ length: n }, (_, j) => store.files.create(record(i + j, base), limits)),
      );
    }
    done("upload");
    for (const phase of ["search", "orders", "split"] as const) {
      current = tallies.get(phase)!;
      const build = builds[phase];
      while (build && await build(kv) > 0) {
        // until it takes nothing
      }
      done(phase);
    }
    current = null;
  } finally {
    kv.close();
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
  return figures;
}

/** One side, one measure, in a process of its own. */
async function measure(root: string, mode: "count" | "time"): Promise<SideFigures> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--unstable-kv", import.meta.filename!, "--side", root, mode],
    cwd: root,
    stdout: "piped",
    stderr: "inherit",
    env: { RUST_BACKTRACE: "0" },
  }).output();
  if (!out.success) throw new Error(`measuring ${root} (${mode}) failed`);
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
  return JSON.parse(lines.at(-1)!);
}

/** A figure as the table shows it. */
const shown = (n: number | undefined) =>
  n === undefined ? "–" : n >= 100 ? n.toFixed(0) : n.toFixed(2);

/** The table of both sides' figures: a row per phase and figure. */
function table(sides: { title: string; figures: SideFigures }[]): string[] {
  const lines = [
    `| phase | figure (per file) | ${sides.map((s) => s.title).join(" | ")} |`,
    `| --- | --- | ${sides.map(() => "---:").join(" | ")} |`,
  ];
  for (const phase of [...PHASES, "all"] as const) {
    const of = (s: { figures: SideFigures }) =>
      phase === "all"
        ? PHASES.reduce((sum, p) => {
          for (const [k, v] of Object.entries(s.figures[p] ?? {})) sum[k] = (sum[k] ?? 0) + v;
          return sum;
        }, {} as Figures)
        : s.figures[phase] ?? {};
    const names = [...new Set(sides.flatMap((s) => Object.keys(of(s))))].sort();
    for (const name of names) {
      lines.push(`| ${phase} | ${name} | ${sides.map((s) => shown(of(s)[name])).join(" | ")} |`);
    }
  }
  return lines;
}

/** Measures both sides and writes {@link RESULTS}. */
async function main() {
  const baseline: Checkout = await worktreeAt(BASELINE);
  const here = { root: REPO_ROOT, ...await describeCommit("HEAD") };
  try {
    const sides = [];
    const load = await Deno.readTextFile("/proc/loadavg");
    for (const side of [baseline, here]) {
      const counts = await measure(side.root, "count");
      const times = await measure(side.root, "time");
      const figures = {} as SideFigures;
      for (const p of PHASES) figures[p] = { ...counts[p], ...times[p] };
      sides.push({ title: side.title.split(" ")[0], figures });
    }
    let notes = "";
    try {
      const old = await Deno.readTextFile(RESULTS);
      const at = old.indexOf(NOTES);
      if (at >= 0) notes = old.slice(at);
    } catch {
      // first run
    }
    const text = [
      "# A small upload's work on Deno KV, by phase",
      "",
      `Written by \`bench/kv_upload_cost.ts\` on ${new Date().toISOString()}: ${FILES} files ` +
      `of one owner stored through \`files.create\`, ${CONCURRENT} at once, the background ` +
      "builds held, then each build run to its end; counts from one run, CPU from another " +
      `(per file, each thread: \`deno\` JavaScript, \`sw\` KV's SQLite writer). Load (1, 5, 15 ` +
      `min) at the start: ${load.split(" ").slice(0, 3).join(", ")}. The machine is shared: ` +
      "CPU figures vary by a fifth run to run.",
      "",
      ...table(sides),
      "",
      notes || `${NOTES}\n`,
    ].join("\n");
    await Deno.writeTextFile(RESULTS, text.endsWith("\n") ? text : `${text}\n`);
    console.log(`wrote ${RESULTS}`);
  } finally {
    await cleanUp();
  }
}

if (Deno.args[0] === "--side") {
  console.log(JSON.stringify(await measureHere(Deno.args[1], Deno.args[2] as "count" | "time")));
  Deno.exit(0);
} else if (import.meta.main) {
  await main();
}
