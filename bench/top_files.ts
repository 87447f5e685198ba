/**
 * `GET /api/stats/files`'s read at scale (issue #32): `n` files of one user
 * (as `bench/scale.ts` makes them: views 0 to 12) in a fresh store, then,
 * alternated, `files.mostViewed(take)` (the store's index) and the pass over
 * every file that `topFiles` made before it (`files.iterate()`, the top kept
 * in memory), each timed (wall and this process's CPU; PostgreSQL's own
 * work is in the wall time only). On PostgreSQL, the plans of both reads
 * (`EXPLAIN ANALYZE`), then every view set to 0 and the unviewed read timed
 * and planned too.
 * Run: `deno run -A --unstable-kv bench/top_files.ts --store=kv|postgres --n=100000 [--take=10]`.
 */
import { join } from "node:path";
import postgres from "postgres";
import { newId, systemClock, systemRandom } from "../core/clock.ts";
import type { FileRecord } from "../db/files.ts";
import { openKvStore } from "../db/kv/mod.ts";
import { mostViewedQuery, unviewedQuery } from "../db/postgres/files.ts";
import { servingStore } from "../db/serving.ts";
import type { Store } from "../db/store.ts";
import { benchFile } from "./scale.ts";
import { benchDatabase, cleanUp, cleanups } from "./helpers/cleanup.ts";
import { postgresStore } from "./helpers/stores.ts";
import { populateUsers } from "./helpers/users.ts";

const args = Object.fromEntries(
  Deno.args.map((a) => a.replace(/^--/, "").split("=") as [string, string]),
);
const kind = args.store ?? "kv";
const n = Number(args.n ?? 100_000);
const take = Number(args.take ?? 10);
const ROUNDS = 5;

/** The process's CPU time so far (ms), from /proc. */
async function cpuMs(): Promise<number> {
  const stat = (await Deno.readTextFile("/proc/self/stat")).split(") ")[1].split(" ");
  return (Number(stat[11]) + Number(stat[12])) * 10;
}

/** The pass `topFiles` made before the index: every record read, the top kept. */
async function pass(store: Store): Promise<FileRecord[]> {
  const top: FileRecord[] = [];
  const before = (a: FileRecord, b: FileRecord) =>
    b.views - a.views || a.name.localeCompare(b.name);
  for await (const f of store.files.iterate()) {
    if (f.pending) continue;
    if (top.length === take && before(f, top[take - 1]) >= 0) continue;
    top.push(f);
    top.sort(before);
    if (top.length > take) top.pop();
  }
  return top;
}

/** Median wall and CPU ms of `read`, alternated with the others by the caller. */
async function timed(read: () => Promise<unknown>, into: { wall: number[]; cpu: number[] }) {
  const cpu = await cpuMs();
  const started = performance.now();
  await read();
  into.wall.push(performance.now() - started);
  into.cpu.push(await cpuMs() - cpu);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1].toFixed(1);
const load = () => Deno.loadavg()[0].toFixed(1);

async function main() {
  const dir = await Deno.makeTempDir({ prefix: "ferry-top-files-" });
  cleanups.push(() => Deno.remove(dir, { recursive: true }));
  const url = kind === "postgres" ? (await benchDatabase()).url : null;
  const store = url
    ? await postgresStore(url)
    : servingStore(await openKvStore(join(dir, "ferry.kv")), systemClock);
  cleanups.push(() => store.close());
  const [user] = await populateUsers(store, 1);
  const now = Date.now();
  const ids = { folderId: newId(systemRandom, now) };
  const filling = performance.now();
  for (let i = 0; i < n; i += 1000) {
    const run = Array.from(
      { length: Math.min(1000, n - i) },
      (_, j) => benchFile(user.id, i + j, n, now, ids),
    );
    await store.files.createMany(run);
  }
  console.log(
    `${kind}: ${n} files written in ${((performance.now() - filling) / 1000).toFixed(0)} s`,
  );
  const old = { wall: [] as number[], cpu: [] as number[] };
  const indexed = { wall: [] as number[], cpu: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    await timed(() => store.files.mostViewed(take), indexed);
    if (r < 3) await timed(() => pass(store), old);
  }
  const same = JSON.stringify((await store.files.mostViewed(take)).map((f) => f.id)) ===
    JSON.stringify((await pass(store)).map((f) => f.id));
  console.log(
    `take ${take}: index ${median(indexed.wall)} ms (CPU ${median(indexed.cpu)} ms), ` +
      `pass ${median(old.wall)} ms (CPU ${
        median(old.cpu)
      } ms); same answer: ${same}; load ${load()}`,
  );
  if (!url) return;
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  cleanups.push(() => sql.end());
  const explain = async (query: ReturnType<typeof mostViewedQuery>) =>
    (await sql`EXPLAIN (ANALYZE, BUFFERS) ${query}`).map((r) => r["QUERY PLAN"]).join("\n");
  console.log(await explain(mostViewedQuery(sql, take)));
  await sql`UPDATE files SET views = 0`;
  await sql`VACUUM ANALYZE files`;
  const none = { wall: [] as number[], cpu: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) await timed(() => store.files.mostViewed(take), none);
  console.log(
    `no file viewed: ${median(none.wall)} ms (CPU ${median(none.cpu)} ms); load ${load()}`,
  );
  console.log(await explain(unviewedQuery(sql, take)));
}

if (import.meta.main) {
  try {
    await main();
  } finally {
    await cleanUp();
  }
}
