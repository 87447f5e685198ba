/**
 * Short-URL redirects under HTTP load, with wrk on loopback against the real
 * server process (`main.ts serve`) on Deno KV and on PostgreSQL: `GET
 * /go/<code>` (a 302 that counts a view in the store, answered by the public
 * fast path once the record is cached) and `GET /go/<locked>` (a
 * password-protected URL: the 302 to its password page, which the fast path
 * leaves to the app), and a bare `Deno.serve` hello-world measured in the
 * same run as the reference. The goal: at least half the hello-world's
 * requests per second. Writes `bench/results/redirects.md`. About two
 * minutes and a half.
 *
 * Run alone: `deno run --allow-all --unstable-kv bench/http_redirects.ts`, or
 * through `deno task bench redirects`.
 */
import { URL_RULE_DEFAULTS } from "../db/urls.ts";
import { join } from "node:path";
import { newId, systemClock, systemRandom } from "../core/clock.ts";
import type { Services } from "../core/services.ts";
import { buildUser } from "../core/users.ts";
import type { Store } from "../db/store.ts";
import { benchDatabase, cleanUp, cleanups, wrkBench } from "./helpers/cleanup.ts";
import { wrkMachineSection } from "./helpers/machine.ts";
import { FERRY_ARGS, HELLO_ARGS, REPO_ROOT, startServer } from "./helpers/server.ts";
import { wrk, type WrkResult } from "./helpers/wrk.ts";
import { kvStore, postgresStore } from "./helpers/stores.ts";

/** wrk's load: threads, connections, seconds measured, seconds of warm-up before. */
export const LOAD = { threads: 2, connections: 32, durationSeconds: 10, warmupSeconds: 2 };
/** The short URL's code. */
export const CODE = "bench1";
/** The code of a password-protected short URL. */
const LOCKED = "bench2";
const DESTINATION = "https://example.com/landing";
const RESULTS = join(REPO_ROOT, "bench/results/redirects.md");

/** One measured line. */
interface Row {
  scenario: string;
  result: WrkResult;
  command: string;
}

/** One user, its short URL `CODE` (no max views, no password) and `LOCKED` (a password). */
export async function populate(store: Store): Promise<void> {
  const s = { clock: systemClock, random: systemRandom } as Pick<Services, "clock" | "random">;
  const user = await buildUser(s as Services, { username: "bench", password: null, role: "USER" });
  await store.users.create(user);
  await populateUrls(store, user.id);
}

/**
 * The short URLs of {@link populate}, owned by `userId`. Takes only the URL
 * area, which older checkouts' stores have too.
 */
export async function populateUrls(store: Pick<Store, "urls">, userId: string): Promise<void> {
  const now = new Date();
  for (const [code, password] of [[CODE, null], [LOCKED, "$argon2id$v=19$m=19456,t=2,p=1$x$y"]]) {
    await store.urls.create({
      id: newId(systemRandom, Date.now()),
      code: code!,
      vanity: null,
      destination: DESTINATION,
      views: 0,
      maxViews: null,
      password,
      enabled: true,
      userId,
      createdAt: now,
      updatedAt: now,
      ...URL_RULE_DEFAULTS,
    }, null);
  }
}

/** Starts a server with `args`/`env`, checks `path` answers `status`, then warms up and measures. */
async function measured(
  scenario: string,
  args: string[],
  env: Record<string, string>,
  readyPath: string,
  path: string,
  status: number,
): Promise<Row> {
  const server = await startServer(args, env, readyPath);
  cleanups.push(() => server.stop());
  const check = await fetch(`${server.origin}${path}`, { redirect: "manual" });
  await check.body?.cancel();
  if (check.status !== status) throw new Error(`${scenario}: ${path} answered ${check.status}`);
  const url = `${server.origin}${path}`;
  await wrk({ url, ...LOAD, durationSeconds: LOAD.warmupSeconds });
  const result = await wrk({ url, ...LOAD });
  console.log(`  ${scenario}: ${result.requestsPerSecond.toFixed(0)} req/s`);
  await server.stop();
  return { scenario, result, command: server.command };
}

function ferryEnv(dataDir: string): Record<string, string> {
  return {
    SERVICE_HOSTNAME: "127.0.0.1",
    SERVICE_DATA_DIR: dataDir,
    SERVICE_SECRET: "ferry-bench-secret-ferry-bench-secret-ferry-bench-secret-0123456",
    SERVICE_RATELIMIT_ENABLED: "false",
  };
}

/** Both scenarios on one store, served with `env`. */
async function storeRows(label: string, env: Record<string, string>): Promise<Row[]> {
  const scenarios = [
    [`GET /go/<code> (302, view counted) — ${label}`, CODE],
    [`GET /go/<locked> (302 to its password page, through the app) — ${label}`, LOCKED],
  ];
  const rows: Row[] = [];
  for (const [scenario, code] of scenarios) {
    rows.push(
      await measured(scenario, FERRY_ARGS, env, "/api/healthcheck", `/go/${code}`, 302),
    );
  }
  return rows;
}

async function kvRows(): Promise<Row[]> {
  const dataDir = await Deno.makeTempDir({ prefix: "ferry-bench-kv-" });
  cleanups.push(() => Deno.remove(dataDir, { recursive: true }));
  const store = await kvStore(join(dataDir, "ferry.kv"));
  await populate(store).finally(() => store.close());
  return await storeRows("Deno KV", ferryEnv(dataDir));
}

async function postgresRows(): Promise<{ rows: Row[]; version: string }> {
  const { url, version } = await benchDatabase();
  const store = await postgresStore(url);
  await populate(store).finally(() => store.close());
  const dataDir = await Deno.makeTempDir({ prefix: "ferry-bench-pg-" });
  cleanups.push(() => Deno.remove(dataDir, { recursive: true }));
  const rows = await storeRows("PostgreSQL", {
    ...ferryEnv(dataDir),
    DATABASE_URL: url.toString(),
  });
  return { rows, version };
}

function table(rows: Row[], hello: number): string {
  const lines = [
    "| scenario | requests/s | of hello-world | p50 | p99 | requests | non-2xx/3xx |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const { scenario, result: r } of rows) {
    lines.push(
      `| ${scenario} | ${r.requestsPerSecond.toFixed(1)} | ` +
        `${((100 * r.requestsPerSecond) / hello).toFixed(0)} % | ${r.p50Ms} ms | ${r.p99Ms} ms | ` +
        `${r.requests} | ${r.non2xx} |`,
    );
  }
  return lines.join("\n");
}

/** Runs the three measurements and writes `bench/results/redirects.md`; returns its path. */
export function run(): Promise<string> {
  return wrkBench(async () => {
    const hello = await measured(
      "bare Deno.serve hello-world (reference)",
      HELLO_ARGS,
      { SERVICE_HOSTNAME: "127.0.0.1" },
      "/",
      "/",
      200,
    );
    const kv = await kvRows();
    const pg = await postgresRows();
    await cleanUp();
    const rows = [hello, ...kv, ...pg.rows];
    const helloRps = hello.result.requestsPerSecond;
    const text = [
      "# Short-URL redirects under HTTP load",
      "",
      "Written by `bench/http_redirects.ts` (`deno task bench redirects`). wrk and the server " +
      `share the machine's CPUs on loopback; each figure follows a ${LOAD.warmupSeconds} s ` +
      "warm-up. Every redirect resolves the URL (a store read, reused for up to a second, " +
      "`db/url_cache.ts`; while reused, a plain redirect is answered before the app, by " +
      "`routes/fast_public.ts`, and a password-protected URL's goes through the app) and " +
      "counts its view (URLs without maxViews: added to the store in batches, once a second); " +
      "the server logs every request to stdout (sent to /dev/null). Goal: at least 50 % of the " +
      "hello-world. Before/after figures: `bench/results/performance.md`.",
      "",
      await wrkMachineSection(pg.version),
      "## Results",
      "",
      table(rows, helloRps),
      "",
      "## Commands",
      "",
      "```sh",
      ...rows.flatMap((r) => [
        r.command.replace(/SERVICE_PORT=\d+/, "SERVICE_PORT=<port>")
          .replace(/:\d+\/ferry_bench/, ":<port>/ferry_bench"),
        r.result.command.replace(/127\.0\.0\.1:\d+/, "127.0.0.1:<port>"),
      ]),
      "```",
      "",
    ].join("\n");
    await Deno.mkdir(join(REPO_ROOT, "bench/results"), { recursive: true });
    await Deno.writeTextFile(RESULTS, text);
    console.log(`\n${table(rows, helloRps)}\n\nwritten to ${RESULTS}`);
    return RESULTS;
  });
}

if (import.meta.main) await run();
