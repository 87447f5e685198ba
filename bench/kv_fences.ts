/**
 * Deep pages of the files list on Deno KV at a million entries (issue #32,
 * `db/kv/file_fences.ts`), without the million records: one owner's index
 * entries of the orders `--sorts` (by default name; `bench/scale.ts`'s
 * files: `benchFile`'s names, sizes and times) written straight to KV in key
 * order, the scope's count set, the fences filled as schema 15 fills them
 * (and their groups as schema 22 does, when the code measured has them);
 * then `pageIds` (the ids of a page: what `KvFiles.list` reads before the
 * records) at offsets 1,000, 300,000 and the last page, both ways, each
 * asked once (first) and {@link REPEATS} more times (median; and the
 * process's CPU a page over them, every thread), with the keys it read.
 *
 * Run: `deno run -A --unstable-kv bench/kv_fences.ts --n=1000000
 * [--sorts=name,size,updatedAt] [--keep=<dir>] [--code=<checkout>]`; with
 * `--keep`, the store is kept in `<dir>` and read again by the next run
 * given it; `--code` measures another checkout's store code over it (paired
 * runs of two checkouts over one store: a store without groups is read by
 * code without them as it is, and gets them from the first run of code
 * that has them).
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { cpuUsage } from "node:process";
import type { FileQuery, FileSortKey } from "../db/files.ts";
import { compareKeys } from "../db/kv/helpers.ts";
import { benchFile } from "./scale.ts";

const args = Object.fromEntries(
  Deno.args.map((a) => a.replace(/^--/, "").split("=") as [string, string]),
);
const n = Number(args.n ?? 100_000);
const sorts = (args.sorts ?? "name").split(",") as FileSortKey[];
const code = resolve(args.code ?? join(import.meta.dirname!, ".."));
const OWNER = "owner";
/** After the first ask of a page, how many more give its median. */
const REPEATS = 5;

/** The list reads, counted on KV's own handle. */
const read = { lists: 0, keys: 0 };

/** A module of the checkout measured. */
const mod = (path: string) => import(pathToFileURL(join(code, path)).href);

async function main() {
  const dir = args.keep ?? await Deno.makeTempDir({ prefix: "ferry-kv-fences-" });
  await Deno.mkdir(dir, { recursive: true });
  const kept = args.keep !== undefined &&
    await Deno.stat(join(dir, "ferry.kv")).then(() => true, () => false);
  const kv = await Deno.openKv(join(dir, "ferry.kv"));
  try {
    if (!kept) await fill(kv);
    await groups(kv);
    await pages(kv);
  } finally {
    kv.close();
    if (args.keep === undefined) await Deno.remove(dir, { recursive: true });
  }
}

/** An index key's `[nulls, value]` of `sortKey` for the bench's file `i`. */
function valueOf(i: number, sortKey: FileSortKey, start: number): string | number {
  const f = benchFile(OWNER, i, n, start, { folderId: "folder" });
  const v = f[sortKey as keyof typeof f];
  return v instanceof Date ? v.getTime() : v as string | number;
}

/** Writes the `n` entries of each order and fills their fences. */
async function fill(kv: Deno.Kv) {
  let started = performance.now();
  const start = Date.now();
  for (const sortKey of sorts) {
    const keys: Deno.KvKey[] = [];
    for (let i = 0; i < n; i++) {
      const id = `f${String(i).padStart(9, "0")}`;
      keys.push(["file_index", OWNER, "all", sortKey, 0, valueOf(i, sortKey, start), id]);
    }
    keys.sort(compareKeys);
    for (let i = 0; i < keys.length; i += 800) {
      const op = kv.atomic();
      for (const key of keys.slice(i, i + 800)) op.set(key, [0, "image/png"]);
      await op.commit();
    }
  }
  await kv.set(["file_index_n", OWNER, "all"], new Deno.KvU64(BigInt(n)));
  console.log(`${n} entries × ${sorts.length} written: ${seconds(started)}`);
  started = performance.now();
  const { fillFences } = await mod("db/kv/file_fences.ts");
  await fillFences(kv);
  const fences = await Array.fromAsync(kv.list({ prefix: ["file_fence", OWNER] }));
  console.log(`fences filled (${fences.length}): ${seconds(started)}`);
}

/** The fences' groups (schema 22), when the code measured has them and the store not yet. */
async function groups(kv: Deno.Kv) {
  const groups = await mod("db/kv/file_fence_groups.ts").catch(() => null);
  if (!groups) return;
  const started = performance.now();
  await groups.fillFenceGroups(kv);
  console.log(`groups filled: ${seconds(started)}`);
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** Reads pages at several offsets, both ways, each once and {@link REPEATS} more times. */
async function pages(kv: Deno.Kv) {
  const { pageIds } = await mod("db/kv/file_index.ts");
  const list = kv.list.bind(kv);
  kv.list = ((selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
    read.lists++;
    const it = list(selector, options);
    return (async function* () {
      for await (const e of it) {
        read.keys++;
        yield e;
      }
    })();
  }) as unknown as typeof kv.list;
  console.log(
    `| page | first (ms) | then, median of ${REPEATS} (ms) | CPU a page, then (ms) | lists | keys read |`,
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
  for (const sortBy of sorts) {
    for (const order of ["asc", "desc"] as const) {
      for (const offset of [1000, 300_000, n - 15].filter((o) => o < n)) {
        const q: FileQuery = { userId: OWNER, sortBy, order, offset, limit: 15 };
        const times: number[] = [];
        let reads = { lists: 0, keys: 0 };
        let cpu = cpuUsage();
        for (let round = 0; round <= REPEATS; round++) {
          if (round === 1) cpu = cpuUsage();
          Object.assign(read, { lists: 0, keys: 0 });
          const t = performance.now();
          const { ids } = await pageIds(kv, q);
          times.push(performance.now() - t);
          if (ids.length !== 15) throw new Error(`a page of ${ids.length}`);
          reads = { ...read };
        }
        const then = times.slice(1).sort((a, b) => a - b)[Math.floor(REPEATS / 2)];
        // The process's CPU (every thread: KV's reads too) over the repeats, a page.
        const used = cpuUsage(cpu);
        const cpuMs = (used.user + used.system) / 1000 / REPEATS;
        console.log(
          `| ${sortBy} ${order}, offset ${offset} | ${times[0].toFixed(1)} | ${then.toFixed(1)} | ${
            cpuMs.toFixed(1)
          } | ${reads.lists} | ${reads.keys} |`,
        );
      }
    }
  }
}

if (import.meta.main) await main();
