/**
 * Where a Deno KV import's time goes (issue #32): `n` files of one user (as
 * `bench/scale.ts` makes them) written into a fresh on-disk store, in runs
 * of 1,000, one way per `--mode`:
 *
 * - `store`: the store's `files.createMany` (what `bench/scale.ts` times);
 * - `journaled`: the same inside `store.transaction` (what an import does);
 * - `raw-*`: the keys `createMany` writes (record, name, owner copy, list
 *   index, search keys), straight to KV in atomic operations of 900
 *   mutations, without the store's code: `raw-file` file by file,
 *   `raw-sorted` each run's keys sorted first, `raw-base` only the record,
 *   name and owner copy, `raw-nosearch` those and the list index.
 *
 * Prints the wall time, the time spent in `commit()`, the commits and the
 * mutations, and (from KV schema 8) the time the search keys then take to
 * build (`db/kv/search_backlog.ts`). Run: `deno run -A --unstable-kv bench/kv_import.ts --n=10000 --mode=store`.
 */
import { join } from "node:path";
import { newId, systemClock, systemRandom } from "../core/clock.ts";
import type { FileRecord } from "../db/files.ts";
import { newEntries } from "../db/kv/file_index.ts";
import { searchKeys } from "../db/kv/file_search.ts";
import { keyBytes } from "../db/kv/many.ts";
import { compareKeys } from "../db/kv/helpers.ts";
import { benchFile } from "./scale.ts";
import { openKvStore } from "../db/kv/mod.ts";
import { servingStore } from "../db/serving.ts";
import { countKvWrites } from "./helpers/kv_writes.ts";
import { populateUsers } from "./helpers/users.ts";

const RUN = 1000;
const MUTATIONS = 900;

const args = Object.fromEntries(
  Deno.args.map((a) => a.replace(/^--/, "").split("=") as [string, string]),
);
const n = Number(args.n ?? 10_000);
const mode = args.mode ?? "store";

/** Time in `commit()` and the mutations committed, counted on KV's own atomic operation. */
const counted = { commits: 0, mutations: 0, commitMs: 0 };
countKvWrites(counted);

type Write = { key: Deno.KvKey; value: unknown };

/** The keys `createMany` writes for `f`, as `mode` keeps them. */
function writes(f: FileRecord): Write[] {
  const out: Write[] = [
    { key: ["file", f.id], value: f },
    { key: ["file_by_name", f.name], value: f.id },
    { key: ["file_by_user", f.userId!, f.id], value: f },
  ];
  if (mode === "raw-base") return out;
  out.push(...newEntries([f]));
  if (mode === "raw-nosearch") return out;
  for (const k of searchKeys(f)) out.push(k);
  return out;
}

async function main() {
  const dir = await Deno.makeTempDir({ prefix: "ferry-kv-import-" });
  const path = join(dir, "ferry.kv");
  const backend = await openKvStore(path);
  const store = servingStore(backend, systemClock);
  // As in an import's transaction: the search keys are built once the import ends.
  await backend.backlog?.hold();
  const [user] = await populateUsers(store, 1);
  const now = Date.now();
  const ids = { folderId: newId(systemRandom, now) };
  const kv = mode.startsWith("raw") ? await Deno.openKv(path) : null;
  Object.assign(counted, { commits: 0, mutations: 0, commitMs: 0 });
  const started = performance.now();
  let jsMs = 0;
  for (let i = 0; i < n; i += RUN) {
    const run = Array.from(
      { length: Math.min(RUN, n - i) },
      (_, j) => benchFile(user.id, i + j, n, now, ids),
    );
    if (mode === "store") await store.files.createMany(run);
    else if (mode === "journaled") {
      await store.transaction((t) => t.files.createMany(run));
    } else {
      const built = performance.now();
      const all = run.flatMap(writes);
      if (mode === "raw-sorted") all.sort((a, b) => compareKeys(a.key, b.key));
      jsMs += performance.now() - built;
      let op = kv!.atomic();
      let [count, bytes] = [0, 0];
      for (const w of all) {
        const size = keyBytes(w.key);
        if (count === MUTATIONS || bytes + size > 64 * 1024) {
          await op.commit();
          op = kv!.atomic();
          [count, bytes] = [0, 0];
        }
        op.set(w.key, w.value);
        count++;
        bytes += size;
      }
      await op.commit();
    }
    if ((i / RUN) % 10 === 9) {
      console.log(
        `  ${i + RUN}: ${((performance.now() - started) / (i + RUN)).toFixed(2)} ms/file`,
      );
    }
  }
  const ms = performance.now() - started;
  const importCounted = { ...counted };
  backend.backlog?.release();
  const building = performance.now();
  await backend.buildSearchKeys?.();
  const buildMs = performance.now() - building;
  kv?.close();
  await store.close();
  const size = (await Deno.stat(path)).size;
  let wal = 0;
  try {
    wal = (await Deno.stat(`${path}-wal`)).size;
  } catch { /* none */ }
  await Deno.remove(dir, { recursive: true });
  const [load] = Deno.loadavg();
  const c = importCounted;
  console.log(
    `${mode} n=${n}: ${(ms / 1000).toFixed(1)} s, ${(ms / n).toFixed(3)} ms/file; ` +
      `commit() ${(c.commitMs / 1000).toFixed(1)} s over ${c.commits} commits ` +
      `(${(c.commitMs / c.commits).toFixed(1)} ms each), ` +
      `${c.mutations} mutations (${(c.mutations / n).toFixed(1)} a file)` +
      (backend.backlog
        ? `; search keys built after: ${(buildMs / 1000).toFixed(1)} s, ` +
          `${counted.commits - c.commits} commits`
        : "") +
      (jsMs ? `, keys built in ${(jsMs / 1000).toFixed(1)} s` : "") +
      `; db ${(size / 2 ** 20).toFixed(0)} MiB, wal ${(wal / 2 ** 20).toFixed(0)} MiB; ` +
      `load ${load.toFixed(1)}`,
  );
}

if (import.meta.main) await main();
