/**
 * A scoped API key's check against the token's (issue #34: "a key's check
 * costs no more than the token's"): `GET /api/user` with the user's token and
 * with an `account:read` key of the same user, under wrk on loopback, against
 * the real server process on Deno KV and on PostgreSQL, each holding 1,000
 * users. The two run in pairs on the same server (`helpers/paired.ts`: token
 * and key alternately first), {@link ROUNDS} rounds after a warm-up of each,
 * so that drift of a shared machine falls on both; the verdict is the median
 * of the rounds' key / token throughputs (the key within 10 %), with the
 * server's CPU per request beside it and the load average at each round.
 * Writes `bench/results/api_keys.md`. About 3 minutes.
 *
 * Run alone: `deno run --allow-all --unstable-kv bench/http_api_keys.ts`, or
 * through `deno task bench api_keys`.
 */
import { join } from "node:path";
import { systemClock, systemRandom } from "../core/clock.ts";
import { mintApiKey } from "../core/api_keys.ts";
import type { Store } from "../db/store.ts";
import { type Actors, expectOk, ferryEnv, populate, tokenOf, USER_COUNT } from "./http_accounts.ts";
import { benchDatabase, cleanUp, cleanups, wrkBench } from "./helpers/cleanup.ts";
import { treeCpuSeconds } from "./helpers/cpu.ts";
import { machineSection, versionOf } from "./helpers/machine.ts";
import { alternate, type PairedRound, pairedVerdict } from "./helpers/paired.ts";
import { type BenchServer, FERRY_ARGS, REPO_ROOT, startServer } from "./helpers/server.ts";
import { wrk, type WrkOptions, type WrkResult } from "./helpers/wrk.ts";
import { kvStore, postgresStore } from "./helpers/stores.ts";

/** wrk's load: threads, connections, seconds measured, seconds of warm-up before. */
const LOAD = { threads: 2, connections: 32, durationSeconds: 8, warmupSeconds: 2 };
/** Measured pairs per store. */
const ROUNDS = 6;
/** The most a key's median throughput may fall below the token's. */
const TOLERANCE = 0.1;
/** The results file. */
const RESULTS = join(REPO_ROOT, "bench/results/api_keys.md");

/** One wrk run and the server's CPU per request over it (µs). */
interface Run extends WrkResult {
  cpuUs: number;
}

/** What one store's run measured: each round's token (`a`) and key (`b`) run. */
interface StoreRun {
  store: string;
  rounds: PairedRound<Run>[];
  command: string;
}

/** Fills an empty store with {@link populate}'s users and an `account:read` key of the USER. */
async function populateWithKey(store: Store): Promise<{ actors: Actors; key: string }> {
  const actors = await populate(store);
  const { key, record } = mintApiKey({ clock: systemClock, random: systemRandom }, actors.user.id, {
    name: "bench",
    scopes: ["account:read"],
  });
  await store.apiKeys.create(record);
  return { actors, key };
}

/** One wrk run of `GET /api/user` with `authorization`, with the server's CPU per request. */
async function run(server: BenchServer, authorization: string, seconds: number): Promise<Run> {
  const options: WrkOptions = {
    url: `${server.origin}/api/user`,
    headers: { Authorization: authorization },
    redact: ["Authorization"],
    ...LOAD,
    durationSeconds: seconds,
  };
  const before = await treeCpuSeconds(server.pid);
  const result = await wrk(options);
  return { ...result, cpuUs: (await treeCpuSeconds(server.pid) - before) / result.requests * 1e6 };
}

/** The paired runs on one server: token and key alternately first, after a warm-up of each. */
async function pairs(
  server: BenchServer,
  store: string,
  token: string,
  key: string,
): Promise<StoreRun> {
  const { origin } = server;
  const isUser = (body: unknown) => (body as { user?: unknown }).user !== undefined;
  await expectOk(`${origin}/api/user`, { headers: { authorization: token } }, isUser);
  await expectOk(`${origin}/api/user`, { headers: { authorization: key } }, isUser);
  await run(server, token, LOAD.warmupSeconds);
  await run(server, key, LOAD.warmupSeconds);
  const rounds = await alternate(ROUNDS, async (side) => {
    const result = await run(server, side === "a" ? token : key, LOAD.durationSeconds);
    console.log(
      `  ${store} ${side === "a" ? "token" : "key"}: ${result.requestsPerSecond.toFixed(0)} ` +
        `req/s, ${result.cpuUs.toFixed(0)} µs CPU each, p50 ${result.p50Ms} ms, ` +
        `p99 ${result.p99Ms} ms`,
    );
    return result;
  });
  return { store, rounds, command: server.command };
}

async function kvRun(): Promise<StoreRun> {
  console.log("Deno KV");
  const dataDir = await Deno.makeTempDir({ prefix: "ferry-bench-keys-kv-" });
  cleanups.push(() => Deno.remove(dataDir, { recursive: true }));
  const store = await kvStore(join(dataDir, "ferry.kv"));
  let populated;
  try {
    populated = await populateWithKey(store);
  } finally {
    await store.close();
  }
  const server = await startServer(FERRY_ARGS, ferryEnv(dataDir), "/api/healthcheck");
  cleanups.push(() => server.stop());
  const result = await pairs(server, "Deno KV", tokenOf(populated.actors.user), populated.key);
  await cleanUp();
  return result;
}

async function postgresRun(): Promise<StoreRun & { version: string }> {
  console.log("PostgreSQL");
  const { url, version } = await benchDatabase();
  const store = await postgresStore(url);
  let populated;
  try {
    populated = await populateWithKey(store);
  } finally {
    await store.close();
  }
  const dataDir = await Deno.makeTempDir({ prefix: "ferry-bench-keys-pg-" });
  cleanups.push(() => Deno.remove(dataDir, { recursive: true }));
  const env = { ...ferryEnv(dataDir), DATABASE_URL: url.toString() };
  const server = await startServer(FERRY_ARGS, env, "/api/healthcheck");
  cleanups.push(() => server.stop());
  const result = await pairs(server, "PostgreSQL", tokenOf(populated.actors.user), populated.key);
  await cleanUp();
  return {
    ...result,
    command: result.command.replace(/:\d+\/ferry_bench/, ":<port>/ferry_bench"),
    version,
  };
}

/** The verdict of one store: the medians, the median of the rounds' ratios, within tolerance. */
function verdict(r: StoreRun) {
  const v = pairedVerdict(r.rounds, (x) => x.requestsPerSecond);
  const cpu = pairedVerdict(r.rounds, (x) => x.cpuUs);
  return { token: v.a, key: v.b, ratio: v.ratio, cpu, within: v.ratio >= 1 - TOLERANCE };
}

function table(runs: StoreRun[]): string {
  const lines = [
    "| store | round | first | load (1, 5, 15 min) | token req/s | key req/s | key / token | CPU per request, token / key | p50 token / key | p99 token / key | non-2xx (token / key) |",
    "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const r of runs) {
    r.rounds.forEach(({ a, b, first, load }, i) => {
      lines.push(
        `| ${r.store} | ${i + 1} | ${first === "a" ? "token" : "key"} | ${load} | ` +
          `${a.requestsPerSecond.toFixed(0)} | ${b.requestsPerSecond.toFixed(0)} | ` +
          `${(100 * b.requestsPerSecond / a.requestsPerSecond).toFixed(1)} % | ` +
          `${a.cpuUs.toFixed(0)} / ${b.cpuUs.toFixed(0)} µs | ${a.p50Ms} / ${b.p50Ms} ms | ` +
          `${a.p99Ms} / ${b.p99Ms} ms | ${a.non2xx} / ${b.non2xx} |`,
      );
    });
  }
  return lines.join("\n");
}

function summary(runs: StoreRun[]): string {
  const lines = [
    "| store | token (median req/s) | key (median req/s) | key / token (median of rounds) | CPU per request, token / key (medians) | within 10 % |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const r of runs) {
    const v = verdict(r);
    lines.push(
      `| ${r.store} | ${v.token.toFixed(1)} | ${v.key.toFixed(1)} | ` +
        `${(v.ratio * 100).toFixed(1)} % | ${v.cpu.a.toFixed(0)} / ${v.cpu.b.toFixed(0)} µs | ` +
        `${v.within ? "yes" : "**no**"} |`,
    );
  }
  return lines.join("\n");
}

/**
 * Runs the pairs on both stores and writes `bench/results/api_keys.md`;
 * returns the file's path. Stops every server and the cluster it started.
 */
export function runBench(): Promise<string> {
  return wrkBench(async () => {
    const started = Date.now();
    const kv = await kvRun();
    const pg = await postgresRun();
    const runs = [kv, pg];
    const text = [
      "# A scoped API key's check against the token's",
      "",
      `Written by \`bench/http_api_keys.ts\` (\`deno task bench api_keys\`) in ${
        ((Date.now() - started) / 1000).toFixed(0)
      } s. \`GET /api/user\` as the same USER, with its token and with an \`account:read\` ` +
      `key, on one server per store, ${ROUNDS} rounds after a ${LOAD.warmupSeconds} s warm-up ` +
      `of each, the first of each round alternating (\`bench/helpers/paired.ts\`, as ` +
      `\`bench/paired.ts\`); ${LOAD.threads} threads, ${LOAD.connections} connections, ` +
      `${LOAD.durationSeconds} s each. ${USER_COUNT} users in each store. wrk and the server ` +
      "share the machine's CPUs on loopback; the machine is shared with other sessions' work, " +
      "so the load average at each round is given. The verdict is the median of the rounds' " +
      "key / token ratios; the server's CPU time per request (`/proc`, user + system) is " +
      "steadier than requests per second on a loaded machine.",
      "",
      await machineSection({
        wrk: await versionOf("wrk", ["-v"]),
        PostgreSQL: `${pg.version} (throwaway cluster of tests/helpers/postgres_cluster.ts: ` +
          "fsync=off, synchronous_commit=off)",
      }),
      "## Verdict",
      "",
      summary(runs),
      "",
      "## Every run",
      "",
      table(runs),
      "",
      "## Commands",
      "",
      "```sh",
      ...runs.map((r) => r.command.replace(/SERVICE_PORT=\d+/, "SERVICE_PORT=<port>")),
      "```",
      "",
    ].join("\n");
    await Deno.mkdir(join(REPO_ROOT, "bench/results"), { recursive: true });
    await Deno.writeTextFile(RESULTS, text);
    console.log(`\n${summary(runs)}\n\nwritten to ${RESULTS}`);
    return RESULTS;
  });
}

if (import.meta.main) await runBench();
