/**
 * A scoped API key's check against the token's (issue #34: "a key's check
 * costs no more than the token's"): `GET /api/user` with the user's token and
 * with an `account:read` key of the same user, under wrk on loopback, against
 * the real server process on Deno KV and on PostgreSQL, each holding 1,000
 * users. The two run in pairs, alternately first, {@link ROUNDS} times after
 * a warm-up of each, so that drift of a shared machine falls on both; the
 * verdict compares their median throughputs (the key within 10 %). Writes
 * `bench/results/api_keys.md`. About 3 minutes.
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
import { machineSection, versionOf } from "./helpers/machine.ts";
import { type BenchServer, FERRY_ARGS, REPO_ROOT, startServer } from "./helpers/server.ts";
import { wrk, type WrkOptions, type WrkResult } from "./helpers/wrk.ts";
import { kvStore, postgresStore } from "./helpers/stores.ts";

/** wrk's load: threads, connections, seconds measured, seconds of warm-up before. */
const LOAD = { threads: 2, connections: 32, durationSeconds: 8, warmupSeconds: 2 };
/** Measured pairs per store. */
const ROUNDS = 4;
/** The most a key's median throughput may fall below the token's. */
const TOLERANCE = 0.1;
/** The results file. */
const RESULTS = join(REPO_ROOT, "bench/results/api_keys.md");

/** What one store's run measured. */
interface StoreRun {
  store: string;
  token: WrkResult[];
  key: WrkResult[];
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

/** One wrk run of `GET /api/user` with `authorization`. */
function run(origin: string, authorization: string, seconds: number): Promise<WrkResult> {
  const options: WrkOptions = {
    url: `${origin}/api/user`,
    headers: { Authorization: authorization },
    redact: ["Authorization"],
    ...LOAD,
    durationSeconds: seconds,
  };
  return wrk(options);
}

/** The paired runs on one server: token and key alternately first, after a warm-up of each. */
async function pairs(server: BenchServer, store: string, token: string, key: string) {
  const { origin } = server;
  const isUser = (body: unknown) => (body as { user?: unknown }).user !== undefined;
  await expectOk(`${origin}/api/user`, { headers: { authorization: token } }, isUser);
  await expectOk(`${origin}/api/user`, { headers: { authorization: key } }, isUser);
  await run(origin, token, LOAD.warmupSeconds);
  await run(origin, key, LOAD.warmupSeconds);
  const measured: StoreRun = { store, token: [], key: [], command: server.command };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ["token", "key"] as const : ["key", "token"] as const;
    for (const which of order) {
      const result = await run(origin, which === "token" ? token : key, LOAD.durationSeconds);
      measured[which].push(result);
      console.log(
        `  ${store} ${which}: ${result.requestsPerSecond.toFixed(0)} req/s, ` +
          `p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`,
      );
    }
  }
  return measured;
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

/** The median of `values`. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The verdict of one store: the medians, their ratio, and whether the key is within tolerance. */
function verdict(r: StoreRun) {
  const token = median(r.token.map((x) => x.requestsPerSecond));
  const key = median(r.key.map((x) => x.requestsPerSecond));
  return { token, key, ratio: key / token, within: key >= token * (1 - TOLERANCE) };
}

function table(runs: StoreRun[]): string {
  const lines = [
    "| store | credential | round | requests/s | p50 | p99 | non-2xx / socket errors |",
    "| --- | --- | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const r of runs) {
    for (let round = 0; round < ROUNDS; round++) {
      for (const which of ["token", "key"] as const) {
        const x = r[which][round];
        lines.push(
          `| ${r.store} | ${which} | ${round + 1} | ${x.requestsPerSecond.toFixed(1)} | ` +
            `${x.p50Ms} ms | ${x.p99Ms} ms | ${x.non2xx}${
              x.socketErrors ? ` / ${x.socketErrors}` : ""
            } |`,
        );
      }
    }
  }
  return lines.join("\n");
}

function summary(runs: StoreRun[]): string {
  const lines = [
    "| store | token (median req/s) | key (median req/s) | key / token | within 10 % |",
    "| --- | ---: | ---: | ---: | --- |",
  ];
  for (const r of runs) {
    const v = verdict(r);
    lines.push(
      `| ${r.store} | ${v.token.toFixed(1)} | ${v.key.toFixed(1)} | ` +
        `${(v.ratio * 100).toFixed(1)} % | ${v.within ? "yes" : "**no**"} |`,
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
      `key, ${ROUNDS} pairs per store after a ${LOAD.warmupSeconds} s warm-up of each, the ` +
      `first of each pair alternating; ${LOAD.threads} threads, ${LOAD.connections} ` +
      `connections, ${LOAD.durationSeconds} s each. ${USER_COUNT} users in each store. wrk ` +
      "and the server share the machine's CPUs on loopback.",
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
