/**
 * What the rate limiter costs a request: token-authenticated `GET /api/user`
 * as a USER (administrators bypass the limiter by default), with wrk on
 * loopback against the real server process (`main.ts serve`), on Deno KV and
 * on PostgreSQL, with limiting off (`ratelimitEnabled` false) and on with a
 * limit so high that it never triggers — every request still pays the
 * counter. Two key patterns:
 *
 * - one user: every request counts on the same key (one KV entry, one table
 *   row), the worst case for contention;
 * - {@link SPREAD} users: wrk rotates the `Authorization` header on every
 *   request over their tokens, so the counting spreads over as many keys.
 *
 * And two ways of counting (`db/rate_limit_owner.ts`):
 *
 * - alone: the server is the only process counting on its store, so it
 *   counts in memory and writes behind once a second;
 * - shared: a second process counts on the same store (a "companion" handle
 *   in this process, one request every {@link COMPANION_EVERY_MS}), so every
 *   request is counted in the store.
 *
 * Two server processes per store, each over a store of its own, measured at
 * the same time: one with limiting on, the other with it off (switched live
 * through `PATCH /api/server/settings`, swapped every round for
 * {@link ROUNDS} rounds), so that whatever else the shared machine does falls
 * on both alike. Beside requests per second, the CPU time each server (and
 * its PostgreSQL cluster) spent per request is read from /proc. Then, in this
 * process, the store's `rateLimits.hit` alone is timed (sequential and 32 at
 * once, on one key and on 32; counting alone, then in the store while a
 * companion counts beside it), with the KV read-modify-write retries
 * counted, to say where the time goes.
 * Writes `bench/results/ratelimit.md`. About 10 minutes.
 *
 * Run alone: `deno run --allow-all --unstable-kv bench/http_ratelimit.ts`, or
 * through `deno task bench ratelimit`.
 */
import { join } from "node:path";
import postgres from "postgres";
import { systemRandom } from "../core/clock.ts";
import { clientToken } from "../core/tokens.ts";
import { KvLeases } from "../db/kv/leases.ts";
import { KvRateLimits } from "../db/kv/rate_limits.ts";
import type { LeaseStore } from "../db/leases.ts";
import { PostgresLeases } from "../db/postgres/leases.ts";
import { PostgresRateLimits } from "../db/postgres/rate_limits.ts";
import { CLAIM, type CountingClaim, OwnedRateLimits } from "../db/rate_limit_owner.ts";
import type { RateLimitBackend, RateLimitStore } from "../db/rate_limits.ts";
import type { Store } from "../db/store.ts";
import type { UserRecord } from "../db/users.ts";
import { benchDatabase, cleanUp, cleanups, wrkBench } from "./helpers/cleanup.ts";
import { loadAverage, machineSection, versionOf } from "./helpers/machine.ts";
import { populateUsers } from "./helpers/users.ts";
import { type BenchServer, FERRY_ARGS, REPO_ROOT, startServer } from "./helpers/server.ts";
import { wrk, WRK_SCRIPTS, type WrkResult } from "./helpers/wrk.ts";
import { treeCpuSeconds } from "./helpers/cpu.ts";
import { kvStore, postgresStore } from "./helpers/stores.ts";

/** How many users the store holds (as in `bench/http_accounts.ts`), the SUPERADMIN included. */
export const USER_COUNT = 1000;
/** How many users' tokens the spread case rotates over (one per wrk connection). */
export const SPREAD = 32;
/** Rounds of the two servers side by side, the limiting one swapped each time (`FERRY_BENCH_ROUNDS`). */
export const ROUNDS = Number(Deno.env.get("FERRY_BENCH_ROUNDS") ?? 8);
/**
 * `ratelimitMax` when limiting is on: never reached (the registry allows up to
 * 2,147,483,647). The window is an hour (also within the registry's bound), so
 * that the counters of a whole run stay in one window and can be checked.
 */
export const LIMIT = { max: 100_000_000, windowMs: 3_600_000 };
/** The server secret, fixed so that the benchmark can make client tokens itself. */
const SECRET = "ferry-bench-secret-ferry-bench-secret-ferry-bench-secret-0123456";
/** wrk's load: threads, connections, seconds measured, seconds of warm-up before. */
const LOAD = { threads: 1, connections: 32, durationSeconds: 6, warmupSeconds: 1 };
/** How often the companion handle counts a request while the store is shared (ms). */
export const COMPANION_EVERY_MS = 500;
/** The results file. */
const RESULTS = join(REPO_ROOT, "bench/results/ratelimit.md");

type Limiter = "off" | "on";
type Counting = "alone" | "shared";
const COUNTINGS: Counting[] = ["alone", "shared"];
type Keys = "1 user" | `${typeof SPREAD} users`;
const ONE: Keys = "1 user";
const MANY: Keys = `${SPREAD} users`;

/** One measured line of the results table. */
interface Row {
  store: string;
  counting: Counting;
  keys: Keys;
  limiter: Limiter;
  round: number;
  result: WrkResult;
  cpu: CpuPerRequest;
}

/** CPU time per request of the measured run, in µs: the server process's and the database's. */
interface CpuPerRequest {
  server: number;
  /** PostgreSQL's postmaster and backends; 0 on Deno KV (it runs inside the server). */
  database: number;
}

/** One line of the direct `rateLimits.hit` timings. */
interface HitTiming {
  store: string;
  what: string;
  calls: number;
  /** Wall time over calls: the time per call when sequential, the inverse throughput else. */
  usPerCall: number;
  /** KV only: `atomic()` commits attempted per call (1 = no retry). */
  attemptsPerCall?: number;
}

/** The `Authorization` header value of `user`, as GET /api/user/token would give it. */
function tokenOf(user: UserRecord): string {
  return clientToken(user.token, Date.now(), SECRET, systemRandom);
}

/**
 * Environment of the Ferry server: {@link LIMIT}'s max and window;
 * `ratelimitEnabled` is left to the settings, switched live by {@link switchLimiter}.
 */
function ferryEnv(dataDir: string): Record<string, string> {
  return {
    SERVICE_HOSTNAME: "127.0.0.1",
    SERVICE_DATA_DIR: dataDir,
    SERVICE_SECRET: SECRET,
    SERVICE_RATELIMIT_MAX: String(LIMIT.max),
    SERVICE_RATELIMIT_WINDOW: String(LIMIT.windowMs),
  };
}

/** Turns limiting on or off in the running server, as an administrator would. */
async function switchLimiter(origin: string, adminToken: string, limiter: Limiter): Promise<void> {
  const response = await fetch(`${origin}/api/server/settings`, {
    method: "PATCH",
    headers: { authorization: adminToken, "content-type": "application/json" },
    body: JSON.stringify({ ratelimitEnabled: limiter === "on" }),
  });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`PATCH /api/server/settings: ${body}`);
}

/**
 * Checks that `GET /api/user` answers 200 for every token, with the
 * `X-RateLimit-*` headers exactly when limiting is on; returns the counter of
 * the first token's key (`limit − remaining`), or `null` when off.
 */
async function check(origin: string, tokens: string[], limiter: Limiter): Promise<number | null> {
  let counted: number | null = null;
  for (const [i, token] of tokens.entries()) {
    const response = await fetch(`${origin}/api/user`, { headers: { authorization: token } });
    const body = await response.text();
    const limit = response.headers.get("x-ratelimit-limit");
    const remaining = response.headers.get("x-ratelimit-remaining");
    if (response.status !== 200) throw new Error(`GET /api/user: ${response.status} ${body}`);
    if ((limiter === "on") !== (limit === String(LIMIT.max))) {
      throw new Error(`limiter ${limiter} but X-RateLimit-Limit: ${limit}`);
    }
    if (i === 0 && limit !== null) counted = LIMIT.max - Number(remaining);
  }
  return counted;
}

/** The processes whose CPU time a run counts: the server, and PostgreSQL's postmaster if any. */
interface Pids {
  server: number;
  database?: number;
}

/**
 * Warms the server up, then measures `GET /api/user` rotating over `tokens`,
 * with the CPU time the server and the database used during the measured run.
 */
async function measure(
  origin: string,
  tokens: string[],
  pids: Pids,
  warmedUp: () => Promise<void>,
): Promise<{ result: WrkResult; cpu: CpuPerRequest }> {
  const options = {
    url: `${origin}/api/user`,
    script: WRK_SCRIPTS.rotateAuth,
    env: { WRK_TOKENS: tokens.join("\n") },
  };
  await wrk({ ...options, ...LOAD, durationSeconds: LOAD.warmupSeconds });
  await warmedUp();
  const cpuNow = async () => ({
    server: await treeCpuSeconds(pids.server),
    database: pids.database ? await treeCpuSeconds(pids.database) : 0,
  });
  const before = await cpuNow();
  const result = await wrk({ ...options, ...LOAD });
  const after = await cpuNow();
  const perRequest = (seconds: number) => (seconds * 1e6) / result.requests;
  const cpu = {
    server: perRequest(after.server - before.server),
    database: perRequest(after.database - before.database),
  };
  const shown = { ...result, command: result.command.replace(/WRK_TOKENS=('[^']*'|\S+)/, "") };
  console.log(
    `  ${tokens.length} token(s): ${result.requestsPerSecond.toFixed(0)} req/s, ` +
      `p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ` +
      `CPU per request ${cpu.server.toFixed(0)} + ${cpu.database.toFixed(0)} µs`,
  );
  return { result: shown, cpu };
}

/** What one store's runs produced. */
interface StoreRun {
  rows: Row[];
  commands: string[];
  timings: HitTiming[];
  /** The single key's counter at the end, and the requests wrk completed with its token while on. */
  counter: { counted: number | null; measured: number };
}

/** One of the two servers measured side by side: its own store, its processes, its users. */
interface Side {
  server: BenchServer;
  pids: Pids;
  /** The SUPERADMIN first, then the USERs. */
  users: UserRecord[];
  /** A second process's counting on the server's store, in this process. */
  companion: Companion;
}

/** A handle's way into a store's counting: its counters and its leases. */
interface Counters {
  backend: RateLimitBackend;
  leases: LeaseStore;
}

/**
 * Another process counting on a server's store, so that the server counts in
 * the store (shared) rather than in memory (alone).
 */
class Companion {
  #limits: OwnedRateLimits | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly counters: Counters) {}

  /** Makes the counting shared or leaves the server alone; returns once it is so. */
  async set(counting: Counting): Promise<void> {
    if (counting === "shared" && this.#limits === undefined) {
      const limits = new OwnedRateLimits(this.counters.backend, this.counters.leases);
      const hit = () => {
        const windowStart = Math.floor(Date.now() / LIMIT.windowMs) * LIMIT.windowMs;
        return limits.hit("bench-companion", windowStart, LIMIT.windowMs, LIMIT.max);
      };
      await hit();
      this.#timer = setInterval(
        () => hit().catch((e) => console.error("companion:", e)),
        COMPANION_EVERY_MS,
      );
      this.#limits = limits;
    } else if (counting === "alone" && this.#limits !== undefined) {
      clearInterval(this.#timer);
      await this.#limits.close();
      this.#limits = undefined;
    }
  }

  /**
   * Waits (up to 5 s) until the store's record says the server counts as
   * `counting` says; throws if it never does. Needs traffic on the server: a
   * server left alone claims the record on its next renewal under load.
   */
  async expect(counting: Counting): Promise<void> {
    const deadline = Date.now() + 5000;
    while (true) {
      const { value } = await this.counters.leases.readClaim<CountingClaim>(CLAIM);
      const shared = value !== null && value.owner === null &&
        Object.keys(value.members).length === 2;
      const alone = value !== null && value.owner !== null && value.until > Date.now();
      if (counting === "shared" ? shared : alone) return;
      if (Date.now() > deadline) {
        throw new Error(`counting should be ${counting}: ${JSON.stringify(value)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * Starts a server with a data dir of its own, over the store that `open`
 * makes there (or elsewhere) and this fills with {@link USER_COUNT} users.
 */
async function startSide(
  open: (dataDir: string) => Promise<{
    store: Store;
    env: Record<string, string>;
    databasePid?: number;
    /** A second handle's counters on the same store, for the {@link Companion}. */
    counters: () => Promise<Counters>;
  }>,
): Promise<Side> {
  const dataDir = await Deno.makeTempDir({ prefix: "ferry-bench-rl-" });
  cleanups.push(() => Deno.remove(dataDir, { recursive: true }));
  const { store, env, databasePid, counters } = await open(dataDir);
  let users: UserRecord[];
  try {
    users = await populateUsers(store, USER_COUNT);
  } finally {
    await store.close();
  }
  const server = await startServer(
    FERRY_ARGS,
    { ...ferryEnv(dataDir), ...env },
    "/api/healthcheck",
  );
  cleanups.push(() => server.stop());
  const companion = new Companion(await counters());
  cleanups.push(() => companion.set("alone"));
  return { server, pids: { server: server.pid, database: databasePid }, users, companion };
}

/**
 * Measures two servers, each over a store of its own, at the same time: one
 * with limiting on and one with it off, switched live through the settings
 * and swapped every round. Whatever else the machine is doing falls on both
 * alike, which back-to-back runs cannot promise on a shared VM.
 */
async function rounds(store: string, sides: [Side, Side]): Promise<Omit<StoreRun, "timings">> {
  const rows: Row[] = [];
  const measured = [0, 0];
  const tokens = sides.map(({ users: [, ...users] }) => ({
    [ONE]: [tokenOf(users[0])],
    [MANY]: users.slice(0, SPREAD).map(tokenOf),
  }));
  const set = (side: Side, limiter: Limiter) =>
    switchLimiter(side.server.origin, tokenOf(side.users[0]), limiter);
  for (let round = 1; round <= ROUNDS; round++) {
    const on = round % 2;
    console.log(`${store}, round ${round}: server ${on + 1} on, server ${2 - on} off`);
    await Promise.all(sides.map((side, i) => set(side, i === on ? "on" : "off")));
    for (const [i, side] of sides.entries()) {
      await check(side.server.origin, tokens[i][MANY], i === on ? "on" : "off");
    }
    // Alone, then shared in odd rounds; the other way round in even ones.
    for (const counting of round % 2 ? COUNTINGS : [...COUNTINGS].reverse()) {
      await Promise.all(sides.map((side) => side.companion.set(counting)));
      for (const keys of [ONE, MANY]) {
        const results = await Promise.all(
          sides.map((side, i) =>
            measure(
              side.server.origin,
              tokens[i][keys],
              side.pids,
              () => i === on ? side.companion.expect(counting) : Promise.resolve(),
            )
          ),
        );
        results.forEach((result, i) => {
          const limiter: Limiter = i === on ? "on" : "off";
          rows.push({ store, counting, keys, limiter, round, ...result });
          if (limiter === "on" && keys === ONE) measured[i] += result.result.requests;
        });
      }
    }
  }
  let counted = 0;
  for (const [i, side] of sides.entries()) {
    await side.companion.set("alone");
    await set(side, "on");
    counted += await check(side.server.origin, tokens[i][ONE], "on") ?? 0;
  }
  return {
    rows,
    commands: sides.map((side) => side.server.command),
    counter: { counted, measured: measured[0] + measured[1] },
  };
}
/**
 * Times `hit` alone: sequentially, then `concurrency` loops at once on one key
 * and on as many keys. `attempts` reads the KV commit counter.
 */
async function timeHits(
  store: string,
  path: string,
  limits: RateLimitStore,
  attempts?: () => number,
): Promise<HitTiming[]> {
  const timings: HitTiming[] = [];
  const windowStart = Math.floor(Date.now() / LIMIT.windowMs) * LIMIT.windowMs;
  const run = async (what: string, keys: string[], loops: number, perLoop: number) => {
    let n = 0;
    const hit = () => limits.hit(keys[n++ % keys.length], windowStart, LIMIT.windowMs, LIMIT.max);
    for (let i = 0; i < 200; i++) await hit(); // warm-up
    const before = attempts?.() ?? 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: loops }, async () => {
        for (let i = 0; i < perLoop; i++) await hit();
      }),
    );
    const elapsed = performance.now() - started;
    const calls = loops * perLoop;
    timings.push({
      store,
      what: `${path}: ${what}`,
      calls,
      usPerCall: (elapsed * 1000) / calls,
      attemptsPerCall: attempts ? (attempts() - before) / calls : undefined,
    });
    console.log(`  ${path}: ${what}: ${((elapsed * 1000) / calls).toFixed(1)} µs/call`);
  };
  const keyOf = (i: number) => `bench-user-${i}|GET|/api/user`;
  await run("sequential, 1 key", [keyOf(0)], 1, 3000);
  await run(`${SPREAD} at once, 1 key`, [keyOf(0)], SPREAD, 200);
  await run(
    `${SPREAD} at once, ${SPREAD} keys`,
    Array.from({ length: SPREAD }, (_, i) => keyOf(i + 1)),
    SPREAD,
    200,
  );
  return timings;
}

/**
 * KV's `hit` on its own database file, its counters through a proxy that
 * counts `atomic()` (one per read-modify-write attempt), plus its two halves
 * sequentially: the `get` alone and the checked `set` alone.
 */
async function profileKv(dataDir: string): Promise<HitTiming[]> {
  console.log("Deno KV: rateLimits.hit alone");
  const kv = await Deno.openKv(join(dataDir, "profile.kv"));
  try {
    let atomics = 0;
    const counting = new Proxy(kv, {
      get(target, name) {
        if (name === "atomic") {
          return () => {
            atomics++;
            return target.atomic();
          };
        }
        const value = Reflect.get(target, name, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const limits = new OwnedRateLimits(new KvRateLimits(counting), new KvLeases(kv));
    const timings = await timeHits("Deno KV", "alone", limits);
    // The companion shares the KV handle, as the backend alone was timed before: no second
    // handle's commits meet this one's on SQLite's write lock.
    const companion = new Companion({ backend: new KvRateLimits(kv), leases: new KvLeases(kv) });
    try {
      await companion.set("shared");
      timings.push(...await timeHits("Deno KV", "store path", limits, () => atomics));
    } finally {
      await companion.set("alone");
      await limits.close();
    }
    const key = ["ratelimit", "halves"];
    await kv.set(key, { count: 0, ends: Date.now() + LIMIT.windowMs });
    const halves = async (what: string, op: () => Promise<unknown>) => {
      const calls = 3000;
      const started = performance.now();
      for (let i = 0; i < calls; i++) await op();
      const usPerCall = ((performance.now() - started) * 1000) / calls;
      timings.push({ store: "Deno KV", what, calls, usPerCall });
      console.log(`  ${what}: ${usPerCall.toFixed(1)} µs/call`);
    };
    await halves("`kv.get` alone, sequential", () => kv.get(key));
    let current = await kv.get(key);
    await halves("checked `atomic().set().commit()` alone, sequential", async () => {
      await kv.atomic().check(current).set(key, { count: 1, ends: 0 }, { expireIn: 60_000 })
        .commit();
      current = await kv.get(key);
    });
    // The commit-only figure above includes one `get` per call: subtract the get-alone figure.
    const last = timings[timings.length - 1];
    last.usPerCall -= timings[timings.length - 2].usPerCall;
    last.what += " (a `get` per call subtracted)";
    return timings;
  } finally {
    kv.close();
  }
}

/**
 * PostgreSQL's `hit` through the store's own pool, plus a `SELECT 1` round
 * trip for scale, in a database of its own on the cluster of `url` (the
 * server on `url`'s database would otherwise still hold the counting claim).
 */
async function profilePostgres(url: string): Promise<HitTiming[]> {
  console.log("PostgreSQL: rateLimits.hit alone");
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe("CREATE DATABASE ferry_profile");
  await admin.end();
  const profileUrl = new URL(url);
  profileUrl.pathname = "/ferry_profile";
  url = profileUrl.toString();
  const store = await postgresStore(url);
  try {
    const timings = await timeHits("PostgreSQL", "alone", store.rateLimits);
    const companion = new Companion(postgresCounters(url));
    try {
      await companion.set("shared");
      timings.push(...await timeHits("PostgreSQL", "store path", store.rateLimits));
    } finally {
      await companion.set("alone");
    }
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const calls = 3000;
      for (let i = 0; i < 200; i++) await sql`SELECT 1`;
      const started = performance.now();
      for (let i = 0; i < calls; i++) await sql`SELECT 1`;
      const usPerCall = ((performance.now() - started) * 1000) / calls;
      timings.push({
        store: "PostgreSQL",
        what: "`SELECT 1` round trip, sequential",
        calls,
        usPerCall,
      });
      console.log(`  SELECT 1: ${usPerCall.toFixed(1)} µs/call`);
    } finally {
      await sql.end();
    }
    await store.rateLimits.sweep(Date.now() + 2 * LIMIT.windowMs);
    return timings;
  } finally {
    await store.close();
  }
}

/** A second handle's {@link Counters} on the PostgreSQL database at `url`, with a small pool. */
function postgresCounters(url: string): Counters {
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  cleanups.push(() => sql.end());
  return { backend: new PostgresRateLimits(sql), leases: new PostgresLeases(sql) };
}

async function kvRun(): Promise<StoreRun> {
  console.log("Deno KV");
  const kvSide = () =>
    startSide(async (dataDir) => ({
      store: await kvStore(join(dataDir, "ferry.kv")),
      env: {},
      counters: async () => {
        const kv = await Deno.openKv(join(dataDir, "ferry.kv"));
        cleanups.push(() => Promise.resolve(kv.close()));
        return { backend: new KvRateLimits(kv), leases: new KvLeases(kv) };
      },
    }));
  const run = await rounds("Deno KV", [await kvSide(), await kvSide()]);
  await cleanUp();
  const dataDir = await Deno.makeTempDir({ prefix: "ferry-bench-rl-kv-" });
  cleanups.push(() => Deno.remove(dataDir, { recursive: true }));
  const timings = await profileKv(dataDir);
  await cleanUp();
  return { ...run, timings };
}

async function postgresRun(): Promise<StoreRun & { version: string }> {
  console.log("PostgreSQL");
  const databases: { url: string; version: string }[] = [];
  const pgSide = () =>
    startSide(async () => {
      const database = await benchDatabase();
      databases.push(database);
      return {
        store: await postgresStore(database.url),
        env: { DATABASE_URL: database.url },
        databasePid: database.pid,
        counters: () => Promise.resolve(postgresCounters(database.url)),
      };
    });
  const run = await rounds("PostgreSQL", [await pgSide(), await pgSide()]);
  const timings = await profilePostgres(databases[0].url);
  await cleanUp();
  return {
    ...run,
    timings,
    commands: run.commands.map((c) => c.replace(/:\d+\/ferry_bench/, ":<port>/ferry_bench")),
    version: databases[0].version,
  };
}

function ms(value: number): string {
  return value >= 100 ? `${value.toFixed(0)} ms` : `${value.toPrecision(3)} ms`;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

const cpuText = (cpu: CpuPerRequest) =>
  cpu.database ? `${cpu.server.toFixed(0)} + ${cpu.database.toFixed(0)}` : cpu.server.toFixed(0);

/** Every wrk run. */
function rowsTable(rows: Row[]): string {
  const lines = [
    "| store | counting | keys | limiter | round | requests/s | CPU µs per request | p50 | p99 | requests | non-2xx / socket errors |",
    "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const { store, counting, keys, limiter, round, result: r, cpu } of rows) {
    lines.push(
      `| ${store} | ${counting} | ${keys} | ${limiter} | ${round} | ` +
        `${r.requestsPerSecond.toFixed(1)} | ` +
        `${cpuText(cpu)} | ${ms(r.p50Ms)} | ${ms(r.p99Ms)} | ${r.requests} | ` +
        `${r.non2xx}${r.socketErrors ? ` / ${r.socketErrors}` : ""} |`,
    );
  }
  return lines.join("\n");
}

/** A median with the range of the values, in %. */
function pairedText(values: number[]): string {
  return `**${median(values).toFixed(1)} %** (${Math.min(...values).toFixed(1)} to ${
    Math.max(...values).toFixed(1)
  } %)`;
}

/**
 * The limiter's overhead per store and key pattern, two ways, each paired
 * within a round and its median taken over the rounds: in CPU time per
 * request (server plus database), and in requests/s.
 */
function overheadTable(rows: Row[]): string {
  const lines = [
    "| store | counting | keys | CPU µs per request off → on | CPU overhead (median, range) | req/s off → on | time per request off → on | throughput overhead (median, range) | p50 off → on | p99 off → on |",
    "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const stores = [...new Set(rows.map((r) => r.store))];
  for (const store of stores) {
    for (const [counting, keys] of COUNTINGS.flatMap((c) => [ONE, MANY].map((k) => [c, k]))) {
      const of = (limiter: Limiter) =>
        rows.filter((r) =>
          r.store === store && r.counting === counting && r.keys === keys &&
          r.limiter === limiter
        ).sort((x, y) => x.round - y.round);
      const [off, on] = [of("off"), of("on")];
      const total = (r: Row) => r.cpu.server + r.cpu.database;
      const cpuMean = (rs: Row[]) => ({
        server: mean(rs.map((r) => r.cpu.server)),
        database: mean(rs.map((r) => r.cpu.database)),
      });
      const rps = (rs: Row[]) => mean(rs.map((r) => r.result.requestsPerSecond));
      const p = (rs: Row[], key: "p50Ms" | "p99Ms") => ms(mean(rs.map((r) => r.result[key])));
      const cpuPaired = off.map((o, i) => (total(on[i]) / total(o) - 1) * 100);
      const rpsPaired = off.map((o, i) =>
        (o.result.requestsPerSecond / on[i].result.requestsPerSecond - 1) * 100
      );
      lines.push(
        `| ${store} | ${counting} | ${keys} | ${cpuText(cpuMean(off))} → ${
          cpuText(cpuMean(on))
        } | ` +
          `${pairedText(cpuPaired)} | ${rps(off).toFixed(0)} → ${rps(on).toFixed(0)} | ` +
          `${(1e6 / rps(off)).toFixed(0)} → ${(1e6 / rps(on)).toFixed(0)} µs | ` +
          `${pairedText(rpsPaired)} | ${p(off, "p50Ms")} → ${p(on, "p50Ms")} | ` +
          `${p(off, "p99Ms")} → ${p(on, "p99Ms")} |`,
      );
    }
  }
  return lines.join("\n");
}

/** The middle value (the mean of the two middle ones for an even count). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function timingsTable(timings: HitTiming[]): string {
  const lines = [
    "| store | what | calls | µs per call | commit attempts per call |",
    "| --- | --- | ---: | ---: | ---: |",
  ];
  for (const t of timings) {
    lines.push(
      `| ${t.store} | ${t.what} | ${t.calls} | ${t.usPerCall.toFixed(1)} | ` +
        `${t.attemptsPerCall === undefined ? "—" : t.attemptsPerCall.toFixed(2)} |`,
    );
  }
  return lines.join("\n");
}

/**
 * Runs both stores, limiter off and on, one key and {@link SPREAD}, and the
 * direct `hit` timings; writes `bench/results/ratelimit.md` and returns its
 * path. Stops every server and the cluster it started.
 */
export function run(): Promise<string> {
  return wrkBench(async () => {
    const started = Date.now();
    const loadAtStart = await loadAverage();
    const kv = await kvRun();
    const pg = await postgresRun();
    const rows = [...kv.rows, ...pg.rows];
    const load = [
      ...new Set(rows.map((r) => r.result.command.replace(/127\.0\.0\.1:\d+/, "127.0.0.1:<port>"))),
    ];
    const counters = [["Deno KV", kv], ["PostgreSQL", pg]] as const;
    const text = [
      "# Rate limiter overhead under HTTP load",
      "",
      `Written by \`bench/http_ratelimit.ts\` (\`deno task bench ratelimit\`) in ${
        ((Date.now() - started) / 1000).toFixed(0)
      } s. Token-authenticated \`GET /api/user\` as a USER (administrators bypass the ` +
      "limiter by default), limiting off (`ratelimitEnabled` false) against on with " +
      `\`SERVICE_RATELIMIT_MAX=${LIMIT.max}\` and \`SERVICE_RATELIMIT_WINDOW=${LIMIT.windowMs}\` ` +
      "(never reached: every request still counts, nothing is refused). `1 user`: every " +
      "request counts on the same key, one KV entry or one table row, the worst case; " +
      `\`${SPREAD} users\`: wrk rotates the \`Authorization\` header over ${SPREAD} users' ` +
      `tokens on every request (bench/wrk/rotate_auth.lua; the 1-user case runs the same script ` +
      "with one token). `alone`: the server is the only process counting on its store, so it " +
      "counts in memory and writes the counts behind once a second (`db/rate_limit_owner.ts`); " +
      "`shared`: a second handle on the same store, in the benchmark's process, counts one " +
      `request every ${COMPANION_EVERY_MS} ms, so the server counts every request in the ` +
      "store (checked through the store's record before each measured run). " +
      "Two server processes per store, each over a store of its own (a KV " +
      "file each; a PostgreSQL cluster each), measured at the same time by two wrk processes: " +
      "one with limiting on and one with it off, switched live with " +
      "`PATCH /api/server/settings {ratelimitEnabled}` (as the SUPERADMIN) and swapped every " +
      `round, for ${ROUNDS} rounds, so that whatever else the shared machine does falls on both ` +
      `alike; each figure is ${LOAD.durationSeconds} s after a ${LOAD.warmupSeconds} s warm-up ` +
      `run. ${USER_COUNT} users in each store. wrk, the servers and PostgreSQL share the ` +
      "machine's two CPUs on loopback; each server logs every request to stdout (sent to " +
      "/dev/null). CPU time per request is the server process's user + system time over the " +
      "requests it answered (proc(5)), plus its PostgreSQL cluster's (postmaster and backends).",
      "",
      await machineSection({
        wrk: await versionOf("wrk", ["-v"]),
        "load average (/proc/loadavg) at start → end": `${loadAtStart} → ${await loadAverage()}`,
        PostgreSQL: `${pg.version} (throwaway cluster of tests/helpers/postgres_cluster.ts: ` +
          "fsync=off, synchronous_commit=off; the server's pool holds 10 connections)",
      }),
      "## Overhead",
      "",
      "Means over the rounds. Time per request is 1 s / requests/s. Each overhead is what " +
      "limiting adds, in % of the figure without limiting: taken within each round (the " +
      "two servers measured at the same time), then the median over the rounds, with their " +
      "range in brackets; CPU overhead on the CPU time per request (server + PostgreSQL), " +
      "throughput overhead on the time per request.",
      "",
      overheadTable(rows),
      "",
      "Counters checked after the runs (`X-RateLimit-Limit` minus `X-RateLimit-Remaining` " +
      "for the single user's key, all rounds share one window): " +
      counters.map(([name, r]) =>
        `${name} ${r.counter.counted ?? "?"} counted for ${r.counter.measured} ` +
        "measured requests (plus warm-ups and that user's share of the spread runs)"
      ).join("; ") + ".",
      "",
      "## Every run",
      "",
      rowsTable(rows),
      "",
      "## `rateLimits.hit` alone",
      "",
      "Timed in the benchmark's process, through the same store classes the server uses " +
      "(`KvRateLimits` on a KV file of its own, the PostgreSQL store with its pool of 10): " +
      "`alone` through `OwnedRateLimits` counting alone (in memory after each window's first " +
      "request), `store path` through the same `OwnedRateLimits` while a companion handle " +
      "counts beside it (so it counts every request in the store), " +
      `after the HTTP runs. "${SPREAD} at once": ${SPREAD} async loops awaiting one \`hit\` ` +
      "after another, as the server's concurrent requests do; µs per call is then wall time " +
      "over calls, the inverse of throughput. For KV, every `atomic()` is one attempt of the " +
      "read-modify-write loop: above 1 per call, the checks failed and the loop retried.",
      "",
      timingsTable([...kv.timings, ...pg.timings]),
      "",
      "## Commands",
      "",
      "Servers (`SERVICE_PORT` is a free port each time; the data dirs are temp dirs):",
      "",
      "```sh",
      ...new Set(
        [...kv.commands, ...pg.commands].map((c) =>
          c.replace(/SERVICE_PORT=\d+/, "SERVICE_PORT=<port>")
            .replace(/SERVICE_DATA_DIR=\S+/, "SERVICE_DATA_DIR=<temp dir>")
        ),
      ),
      "```",
      "",
      `Load (the same command ran first for a warm-up with \`-d${LOAD.warmupSeconds}s\`; ` +
      "`WRK_TOKENS` holds one client token per line, made with core/tokens.ts `clientToken`: " +
      `one user's, or ${SPREAD} users'):`,
      "",
      "```sh",
      ...load.map((c) => `WRK_TOKENS=<tokens> ${c.trim()}`),
      "```",
      "",
    ].join("\n");
    await Deno.mkdir(join(REPO_ROOT, "bench/results"), { recursive: true });
    await Deno.writeTextFile(RESULTS, text);
    console.log(`\n${overheadTable(rows)}\n\n${timingsTable([...kv.timings, ...pg.timings])}`);
    console.log(`\nwritten to ${RESULTS}`);
    return RESULTS;
  });
}

if (import.meta.main) await run();
