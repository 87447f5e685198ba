/**
 * HTTP load on the account routes, with wrk on loopback, against the real
 * server process (`main.ts serve`, as `deno task start` runs it) on Deno KV and
 * on PostgreSQL, each holding 1,000 users:
 *
 * - `POST /api/auth/login` with the right password (bound by argon2id),
 * - `GET /api/user` with an API token (decrypt the token, one store read),
 *   and with a token that does not decrypt (the same work minus the store read),
 * - `GET /api/users` as the SUPERADMIN (all 1,000 users, serialised),
 *
 * and a bare `Deno.serve` hello-world as the reference. Writes
 * `bench/results/accounts.md`. About 2½ minutes.
 *
 * Run alone: `deno run --allow-all --unstable-kv bench/http_accounts.ts`, or
 * through `deno task bench`.
 */
import { populateUsers } from "./helpers/users.ts";
import { join } from "node:path";
import { systemRandom } from "../core/clock.ts";
import { hashPassword } from "../core/passwords.ts";
import { clientToken } from "../core/tokens.ts";
import type { Store } from "../db/store.ts";
import type { UserRecord } from "../db/users.ts";
import { benchDatabase, cleanUp, cleanups, wrkBench } from "./helpers/cleanup.ts";
import { machineSection, versionOf } from "./helpers/machine.ts";
import {
  type BenchServer,
  FERRY_ARGS,
  HELLO_ARGS,
  REPO_ROOT,
  startServer,
} from "./helpers/server.ts";
import { wrk, WRK_SCRIPTS, type WrkOptions, type WrkResult } from "./helpers/wrk.ts";
import { kvStore, postgresStore } from "./helpers/stores.ts";

/** How many users the store holds while measured (the SUPERADMIN included). */
export const USER_COUNT = 1000;
/** Every user's password (one hash shared by all, to populate in seconds). */
const PASSWORD = "bench password, not a secret";
/** The server secret, fixed so that the benchmarks can make client tokens themselves. */
export const SECRET = "ferry-bench-secret-ferry-bench-secret-ferry-bench-secret-0123456";
/** wrk's load: threads, connections, seconds measured, seconds of warm-up before. */
export const LOAD = { threads: 2, connections: 32, durationSeconds: 10, warmupSeconds: 2 };
/** The results file. */
const RESULTS = join(REPO_ROOT, "bench/results/accounts.md");

/** One measured line of the results table. */
interface Row {
  scenario: string;
  store: string;
  result: WrkResult;
  /** The status every answer has when it is not 200 (then non-2xx counts are expected). */
  expected?: number;
}

/** The users the scenarios act as. */
export interface Actors {
  admin: UserRecord;
  user: UserRecord;
}

/** Fills an empty store: one SUPERADMIN `admin` and `user0001`…`user0999`, all with {@link PASSWORD}. */
export async function populate(store: Store): Promise<Actors> {
  const [admin, user] = await populateUsers(
    store,
    USER_COUNT,
    await hashPassword(PASSWORD, systemRandom),
  );
  return { admin, user };
}

/** The `Authorization` header value of `user`, as GET /api/user/token would give it. */
export function tokenOf(user: UserRecord): string {
  return clientToken(user.token, Date.now(), SECRET, systemRandom);
}

/** Checks that a request answers `status` (and what `check` asks) before loading it with wrk. */
export async function expectOk(
  url: string,
  init: RequestInit,
  check: (body: unknown) => boolean = () => true,
  status = 200,
): Promise<void> {
  const response = await fetch(url, init);
  const body = await response.json();
  if (response.status !== status || !check(body)) {
    throw new Error(`${init.method ?? "GET"} ${url}: ${response.status} ${JSON.stringify(body)}`);
  }
}

/** Warms the server up, then measures. */
async function measure(options: WrkOptions): Promise<WrkResult> {
  await wrk({ ...options, ...LOAD, durationSeconds: LOAD.warmupSeconds });
  const result = await wrk({ ...options, ...LOAD });
  console.log(
    `  ${options.url}: ${result.requestsPerSecond.toFixed(0)} req/s, ` +
      `p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`,
  );
  return result;
}

/** The three account scenarios against a Ferry server holding {@link populate}'s users. */
async function accountScenarios(server: BenchServer, store: string, actors: Actors) {
  const { origin } = server;
  const rows: Row[] = [];
  const login = JSON.stringify({ username: actors.user.username, password: PASSWORD });
  const json = { "content-type": "application/json" };
  await expectOk(`${origin}/api/auth/login`, { method: "POST", headers: json, body: login });
  rows.push({
    scenario: "POST /api/auth/login (right password)",
    store,
    result: await measure({
      url: `${origin}/api/auth/login`,
      script: WRK_SCRIPTS.postJson,
      env: { WRK_BODY: login },
    }),
  });

  const userToken = tokenOf(actors.user);
  await expectOk(`${origin}/api/user`, { headers: { authorization: userToken } });
  rows.push({
    scenario: "GET /api/user (token)",
    store,
    result: await measure({
      url: `${origin}/api/user`,
      headers: { Authorization: userToken },
      redact: ["Authorization"],
    }),
  });

  // Same work up to the store read (AES-GCM runs, its tag check fails): no read, no user to show.
  const forged = clientToken(actors.user.token, Date.now(), SECRET.replace("f", "F"), systemRandom);
  await expectOk(`${origin}/api/user`, { headers: { authorization: forged } }, () => true, 401);
  rows.push({
    scenario: "GET /api/user (undecryptable token: 401, no store read)",
    store,
    expected: 401,
    result: await measure({
      url: `${origin}/api/user`,
      headers: { Authorization: forged },
      redact: ["Authorization"],
    }),
  });

  const adminToken = tokenOf(actors.admin);
  await expectOk(
    `${origin}/api/users`,
    { headers: { authorization: adminToken } },
    (body) => Array.isArray(body) && body.length === USER_COUNT,
  );
  rows.push({
    scenario: `GET /api/users (SUPERADMIN, ${USER_COUNT} users)`,
    store,
    result: await measure({
      url: `${origin}/api/users`,
      headers: { Authorization: adminToken },
      redact: ["Authorization"],
    }),
  });
  return rows;
}

/** Environment of every Ferry server in this benchmark. */
export function ferryEnv(dataDir: string): Record<string, string> {
  return {
    SERVICE_HOSTNAME: "127.0.0.1",
    SERVICE_DATA_DIR: dataDir,
    SERVICE_SECRET: SECRET,
    SERVICE_RATELIMIT_ENABLED: "false",
  };
}

async function helloRun(): Promise<{ rows: Row[]; command: string }> {
  console.log("hello-world reference");
  const server = await startServer(HELLO_ARGS, { SERVICE_HOSTNAME: "127.0.0.1" }, "/");
  cleanups.push(() => server.stop());
  const result = await measure({ url: `${server.origin}/` });
  await cleanUp();
  return {
    rows: [{ scenario: "bare Deno.serve hello-world", store: "—", result }],
    command: server.command,
  };
}

async function kvRun(): Promise<{ rows: Row[]; command: string }> {
  console.log("Deno KV");
  const dataDir = await Deno.makeTempDir({ prefix: "ferry-bench-kv-" });
  cleanups.push(() => Deno.remove(dataDir, { recursive: true }));
  const store = await kvStore(join(dataDir, "ferry.kv"));
  let actors: Actors;
  try {
    actors = await populate(store);
  } finally {
    await store.close();
  }
  const server = await startServer(FERRY_ARGS, ferryEnv(dataDir), "/api/healthcheck");
  cleanups.push(() => server.stop());
  const rows = await accountScenarios(server, "Deno KV", actors);
  await cleanUp();
  return { rows, command: server.command };
}

async function postgresRun(): Promise<{ rows: Row[]; command: string; version: string }> {
  console.log("PostgreSQL");
  const { url, version } = await benchDatabase();
  const store = await postgresStore(url);
  let actors: Actors;
  try {
    actors = await populate(store);
  } finally {
    await store.close();
  }
  const dataDir = await Deno.makeTempDir({ prefix: "ferry-bench-pg-" });
  cleanups.push(() => Deno.remove(dataDir, { recursive: true }));
  const env = { ...ferryEnv(dataDir), DATABASE_URL: url.toString() };
  const server = await startServer(FERRY_ARGS, env, "/api/healthcheck");
  cleanups.push(() => server.stop());
  const rows = await accountScenarios(server, "PostgreSQL", actors);
  await cleanUp();
  return {
    rows,
    command: server.command.replace(/:\d+\/ferry_bench/, ":<port>/ferry_bench"),
    version,
  };
}

function table(rows: Row[]): string {
  const lines = [
    "| scenario | store | requests/s | p50 | p99 | requests | non-2xx / socket errors |",
    "| --- | --- | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const { scenario, store, result: r, expected } of rows) {
    const non2xx = expected ? `${r.non2xx} (${expected} expected)` : String(r.non2xx);
    const errors = `${non2xx}${r.socketErrors ? ` / ${r.socketErrors}` : ""}`;
    lines.push(
      `| ${scenario} | ${store} | ${r.requestsPerSecond.toFixed(1)} | ${ms(r.p50Ms)} | ` +
        `${ms(r.p99Ms)} | ${r.requests} | ${errors} |`,
    );
  }
  return lines.join("\n");
}

function ms(value: number): string {
  return value >= 100 ? `${value.toFixed(0)} ms` : `${value.toPrecision(3)} ms`;
}

/**
 * Runs every scenario on both stores and writes `bench/results/accounts.md`;
 * returns the file's path. Stops every server and the cluster it started.
 */
export function run(): Promise<string> {
  return wrkBench(async () => {
    const started = Date.now();
    const hello = await helloRun();
    const kv = await kvRun();
    const pg = await postgresRun();
    const rows = [...hello.rows, ...kv.rows, ...pg.rows];
    const commands = [...hello.rows, ...kv.rows, ...pg.rows].map((r) =>
      r.result.command.replace(/127\.0\.0\.1:\d+/, "127.0.0.1:<port>")
    );
    const text = [
      "# Account routes under HTTP load",
      "",
      `Written by \`bench/http_accounts.ts\` (\`deno task bench\`) in ${
        ((Date.now() - started) / 1000).toFixed(0)
      } s. wrk and the server share the machine's CPUs on loopback; each figure follows a ` +
      `${LOAD.warmupSeconds} s warm-up run. ${USER_COUNT} users in each store; the server logs ` +
      "every request to stdout (sent to /dev/null), as `serve` does in production.",
      "",
      await machineSection({
        wrk: await versionOf("wrk", ["-v"]),
        PostgreSQL: `${pg.version} (throwaway cluster of tests/helpers/postgres_cluster.ts: ` +
          "fsync=off, synchronous_commit=off)",
      }),
      "## Results",
      "",
      table(rows),
      "",
      "## Commands",
      "",
      "Servers (`SERVICE_PORT` is a free port each time; the data dirs are temp dirs):",
      "",
      "```sh",
      ...[hello, kv, pg].map((r) => r.command.replace(/SERVICE_PORT=\d+/, "SERVICE_PORT=<port>")),
      "```",
      "",
      "Load (the same command ran first for a warm-up with " +
      `\`-d${LOAD.warmupSeconds}s\`; tokens are made with core/tokens.ts \`clientToken\`):`,
      "",
      "```sh",
      ...commands,
      "```",
      "",
    ].join("\n");
    await Deno.mkdir(join(REPO_ROOT, "bench/results"), { recursive: true });
    await Deno.writeTextFile(RESULTS, text);
    console.log(`\n${table(rows)}\n\nwritten to ${RESULTS}`);
    return RESULTS;
  });
}

if (import.meta.main) await run();
