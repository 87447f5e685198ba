/**
 * What a file's counted view costs on Deno KV (issue #32): `n` files of one
 * user (as `bench/scale.ts` makes them) in a fresh on-disk store, their
 * orders built; then `files.addView` on `v` of them, one after the other,
 * each timed, with the time in `IndexChange.prepare` (the upload marks'
 * and the fences' reads, `db/kv/file_fences.ts`) and in `commit()` apart,
 * the keys written (mutations) and the CPU time of the process a view.
 * Run: `deno run -A --unstable-kv bench/kv_views.ts --n=10000 --v=2000`.
 */
import { join } from "node:path";
import { newId, systemClock, systemRandom } from "../core/clock.ts";
import { IndexChange } from "../db/kv/file_index.ts";
import { openKvStore } from "../db/kv/mod.ts";
import { servingStore } from "../db/serving.ts";
import { benchFile } from "./scale.ts";
import { populateUsers } from "./helpers/users.ts";
import { countKvWrites, type KvWriteCounts } from "./helpers/kv_writes.ts";

const args = Object.fromEntries(
  Deno.args.map((a) => a.replace(/^--/, "").split("=") as [string, string]),
);
const n = Number(args.n ?? 10_000);
const v = Number(args.v ?? 2_000);

const spent = { prepare: 0 };
const prepare = IndexChange.prototype.prepare;
IndexChange.prototype.prepare = async function (this: IndexChange, kv: Deno.Kv) {
  const t = performance.now();
  try {
    return await prepare.call(this, kv);
  } finally {
    spent.prepare += performance.now() - t;
  }
};
const writes: KvWriteCounts = { commits: 0, mutations: 0, commitMs: 0 };
countKvWrites(writes);

/** The process's CPU time so far (ms), from /proc. */
async function cpuMs(): Promise<number> {
  const stat = (await Deno.readTextFile("/proc/self/stat")).split(") ")[1].split(" ");
  return (Number(stat[11]) + Number(stat[12])) * 10;
}

async function main() {
  const dir = await Deno.makeTempDir({ prefix: "ferry-kv-views-" });
  const backend = await openKvStore(join(dir, "ferry.kv"));
  const store = servingStore(backend, systemClock);
  try {
    const [user] = await populateUsers(store, 1);
    const now = Date.now();
    const ids = { folderId: newId(systemRandom, now) };
    const all: string[] = [];
    for (let i = 0; i < n; i += 1000) {
      const run = Array.from(
        { length: Math.min(1000, n - i) },
        (_, j) => benchFile(user.id, i + j, n, now, ids),
      );
      await store.files.createMany(run);
      all.push(...run.map((f) => f.id));
    }
    await backend.buildSearchKeys();
    Object.assign(spent, { prepare: 0 });
    Object.assign(writes, { commits: 0, mutations: 0, commitMs: 0 });
    const times: number[] = [];
    const cpu = await cpuMs();
    for (let i = 0; i < v; i++) {
      const t = performance.now();
      await store.files.addView(all[(i * 7919) % n]);
      times.push(performance.now() - t);
    }
    const cpuEach = (await cpuMs() - cpu) / v;
    times.sort((a, b) => a - b);
    const [load] = Deno.loadavg();
    console.log(
      `addView over ${n} files, ${v} views: median ${times[v >> 1].toFixed(2)} ms, ` +
        `p90 ${times[Math.floor(v * 0.9)].toFixed(2)} ms; prepare ${
          (spent.prepare / v).toFixed(2)
        } ms, ` +
        `commit ${(writes.commitMs / v).toFixed(2)} ms a view (mean); ${
          (writes.mutations / v).toFixed(1)
        } keys written a view; CPU ${cpuEach.toFixed(2)} ms a view; ` +
        `load ${load.toFixed(1)}`,
    );
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await main();
