/**
 * Where a Deno KV bulk delete's time goes (issue #32): `n` files of one user
 * (as `bench/scale.ts` makes them) written with `files.createMany` into a
 * fresh on-disk store, their search keys and other orders built; then the
 * first `d` removed through `files.deleteMany`, 200 a call (a batch of
 * `core/files/bulk_delete.ts`), a turn of the event loop between calls. Prints
 * the wall time, the time in KV's `commit()`, the commits, the mutations, the
 * list reads and keys read, and how late a 10 ms timer ran meanwhile (its
 * median and max: what a request waiting for the event loop waits); then
 * the time of the background build after it (the sweep of the removed
 * files' search keys, `db/kv/search_sweep.ts`).
 * Run: `deno run -A --unstable-kv bench/kv_delete.ts --n=10000 --d=10000`.
 */
import { join } from "node:path";
import { newId, systemClock, systemRandom } from "../core/clock.ts";
import { DELETE_BATCH, yieldTurn } from "../core/files/bulk_delete.ts";
import { benchFile } from "./scale.ts";
import { openKvStore } from "../db/kv/mod.ts";
import { servingStore } from "../db/serving.ts";
import { countKvWrites } from "./helpers/kv_writes.ts";
import { populateUsers } from "./helpers/users.ts";

const RUN = 1000;

const args = Object.fromEntries(
  Deno.args.map((a) => a.replace(/^--/, "").split("=") as [string, string]),
);
const n = Number(args.n ?? 10_000);
const d = Number(args.d ?? n);

/** Time in `commit()`, commits, mutations and reads, counted on KV's own classes. */
const counted = { commits: 0, mutations: 0, commitMs: 0, lists: 0, keys: 0, gets: 0 };
/** Mutations by kind (`set`, `delete`, `sum`) and key prefix. */
const tally = new Map<string, number>();
countKvWrites(counted, (name, key) => {
  const kind = `${name} ${
    key[0] === "file_index" ? `file_index ${String(key[3])}` : String(key[0])
  }`;
  tally.set(kind, (tally.get(kind) ?? 0) + 1);
});

/** Counts the list reads and keys read of every handle, and its gets. */
function countReads() {
  const kv = Deno.Kv.prototype;
  const list = kv.list;
  kv.list = (function (this: Deno.Kv, selector: Deno.KvListSelector, options?: Deno.KvListOptions) {
    counted.lists++;
    const it = list.call(this, selector, options);
    return (async function* () {
      for await (const e of it) {
        counted.keys++;
        yield e;
      }
    })();
  }) as unknown as typeof kv.list;
  const getMany = kv.getMany;
  kv.getMany = (function (
    this: Deno.Kv,
    keys: Deno.KvKey[],
    o?: { consistency?: Deno.KvConsistencyLevel },
  ) {
    counted.gets += keys.length;
    return getMany.call(this, keys, o);
  }) as typeof kv.getMany;
}

async function main() {
  const dir = await Deno.makeTempDir({ prefix: "ferry-kv-delete-" });
  const path = join(dir, "ferry.kv");
  const backend = await openKvStore(path);
  const store = servingStore(backend, systemClock);
  try {
    const [user] = await populateUsers(store, 1);
    const now = Date.now();
    const ids = { folderId: newId(systemRandom, now) };
    const all: string[] = [];
    let started = performance.now();
    for (let i = 0; i < n; i += RUN) {
      const run = Array.from(
        { length: Math.min(RUN, n - i) },
        (_, j) => benchFile(user.id, i + j, n, now, ids),
      );
      await store.files.createMany(run);
      all.push(...run.map((f) => f.id));
    }
    await backend.buildSearchKeys();
    console.log(
      `${n} files written and built: ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    countReads();
    Object.assign(counted, { commits: 0, mutations: 0, commitMs: 0, lists: 0, keys: 0, gets: 0 });
    tally.clear();
    const late: number[] = [];
    let expected = performance.now() + 10;
    const timer = setInterval(() => {
      const t = performance.now();
      late.push(t - expected);
      expected = t + 10;
    }, 10);
    started = performance.now();
    let removed = 0;
    for (let i = 0; i < d; i += DELETE_BATCH) {
      if (i > 0) await yieldTurn();
      removed += (await store.files.deleteMany(all.slice(i, Math.min(d, i + DELETE_BATCH)))).length;
    }
    const ms = performance.now() - started;
    const sweeping = performance.now();
    const before = { ...counted };
    await backend.buildSearchKeys(); // the removed files' search keys (`db/kv/search_sweep.ts`)
    const sweepMs = performance.now() - sweeping;
    clearInterval(timer);
    late.sort((a, b) => a - b);
    const c = before;
    console.log(
      `then the background build (the sweep of their search keys): ${
        (sweepMs / 1000).toFixed(1)
      } s, ${counted.commits - c.commits} commits, ${counted.mutations - c.mutations} mutations`,
    );
    const kinds = [...tally].sort((a, b) => b[1] - a[1]);
    console.log(kinds.map(([k, v]) => `${k}: ${(v / removed).toFixed(2)}`).join(", "));
    const stalls = [50, 100, 200].map((t) => `>${t} ms: ${late.filter((l) => l > t).length}`);
    console.log(`timer late ${stalls.join(", ")} of ${late.length}`);
    const [load] = Deno.loadavg();
    console.log(
      `deleted ${removed} of ${n}: ${(ms / 1000).toFixed(1)} s, ${
        (ms / removed).toFixed(2)
      } ms/file; ` +
        `commit() ${(c.commitMs / 1000).toFixed(1)} s over ${c.commits} commits ` +
        `(${(c.commitMs / c.commits).toFixed(1)} ms each, ${
          (removed / c.commits).toFixed(1)
        } files), ` +
        `${(c.mutations / removed).toFixed(1)} mutations a file; ` +
        `${(c.lists / removed).toFixed(1)} lists, ${(c.keys / removed).toFixed(1)} keys listed, ` +
        `${(c.gets / removed).toFixed(1)} keys got a file; timer late median ${
          late[Math.floor(late.length / 2)]?.toFixed(1)
        } ms, max ${late.at(-1)?.toFixed(1)} ms; load ${load.toFixed(1)}`,
    );
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await main();
