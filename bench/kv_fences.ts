/**
 * Deep pages of a name-sorted files list on Deno KV at a million entries
 * (issue #32, `db/kv/file_fences.ts`), without the million records: `n`
 * index entries of one owner's name order (random names, a tenth of them
 * shared by 100 files each: ties) written straight to KV in key order, the
 * scope's count set, the fences filled as schema 15 fills them; then
 * `pageIds` (the ids of a page: what `KvFiles.list` reads before the
 * records) at several offsets, both ways, each asked once (first) and
 * three more times (median), with the fences and entries it read.
 * Run: `deno run -A --unstable-kv bench/kv_fences.ts --n=1000000`; with
 * `--keep=<dir>`, the store is kept in `<dir>` and read again by the next
 * run given it (paired runs of two checkouts over one store).
 */
import { join } from "node:path";
import { fillFences } from "../db/kv/file_fences.ts";
import { pageIds } from "../db/kv/file_index.ts";
import { compareKeys } from "../db/kv/helpers.ts";

const args = Object.fromEntries(
  Deno.args.map((a) => a.replace(/^--/, "").split("=") as [string, string]),
);
const n = Number(args.n ?? 100_000);
const OWNER = "owner";

/** The list reads, counted on KV's own handle. */
const read = { lists: 0, keys: 0 };

async function main() {
  const dir = args.keep ?? await Deno.makeTempDir({ prefix: "ferry-kv-fences-" });
  await Deno.mkdir(dir, { recursive: true });
  const kept = args.keep !== undefined &&
    await Deno.stat(join(dir, "ferry.kv")).then(() => true, () => false);
  const kv = await Deno.openKv(join(dir, "ferry.kv"));
  try {
    if (!kept) await fill(kv);
    await pages(kv);
  } finally {
    kv.close();
    if (args.keep === undefined) await Deno.remove(dir, { recursive: true });
  }
}

/** Writes the `n` entries and fills their fences. */
async function fill(kv: Deno.Kv) {
  let started = performance.now();
  const keys: Deno.KvKey[] = [];
  for (let i = 0; i < n; i++) {
    const name = i % 10 === 0
      ? `shared-${i % 1000}.png`
      : `${crypto.randomUUID().slice(0, 12)}.png`;
    keys.push(["file_index", OWNER, "all", "name", 0, name, `f${String(i).padStart(9, "0")}`]);
  }
  keys.sort(compareKeys);
  for (let i = 0; i < keys.length; i += 800) {
    const op = kv.atomic();
    for (const key of keys.slice(i, i + 800)) op.set(key, [0, "image/png"]);
    await op.commit();
  }
  await kv.set(["file_index_n", OWNER, "all"], new Deno.KvU64(BigInt(n)));
  console.log(`${n} entries written: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  started = performance.now();
  await fillFences(kv);
  const fences = await Array.fromAsync(kv.list({ prefix: ["file_fence", OWNER] }));
  console.log(
    `fences filled (${fences.length}): ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

/** Reads pages at several offsets, both ways, each once and three more times. */
async function pages(kv: Deno.Kv) {
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
  for (const order of ["asc", "desc"] as const) {
    for (const offset of [1000, Math.floor(n / 3), Math.floor(n / 2), n - 100]) {
      const q = { userId: OWNER, sortBy: "name" as const, order, offset, limit: 15 };
      const times: number[] = [];
      let reads = { lists: 0, keys: 0 };
      for (let round = 0; round < 4; round++) {
        Object.assign(read, { lists: 0, keys: 0 });
        const t = performance.now();
        const { ids } = await pageIds(kv, q);
        times.push(performance.now() - t);
        if (ids.length !== 15) throw new Error(`a page of ${ids.length}`);
        reads = { ...read };
      }
      const then = times.slice(1).sort((a, b) => a - b)[1];
      console.log(
        `${order} offset ${offset}: first ${times[0].toFixed(1)} ms, then ${
          then.toFixed(1)
        } ms (${reads.lists} lists, ${reads.keys} keys read)`,
      );
    }
  }
}

if (import.meta.main) await main();
