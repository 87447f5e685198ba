/**
 * The URL list on Deno KV (issue #32: under 50 ms at 1,000 URLs), this
 * checkout against another commit (`KV_URLS_BASELINE`, default `b8aba23`,
 * before the owner's URL records were packed in chunks), in paired rounds
 * ({@link ROUNDS}, the side measured first alternating): each side, in a
 * process of its own running its own code, fills a fresh on-disk store with
 * one user's {@link URLS} URLs (as `bench/scale.ts` does, through
 * `urls.createMany`) and measures, in process: the store's `listByUser`
 * (first and the median of {@link REPEATS}, and the CPU of one), the route's
 * share (`urlView` of each and `JSON.stringify`), a first page of 15; a
 * URL's create (`urls.create`, {@link CREATES} appended one after the other:
 * time, commits and mutations each) and a view's write (`urls.addViews`, the
 * redirect's batched views, and `urls.view`, a URL with a view limit); then
 * over HTTP, the store closed and `main.ts serve` started on it,
 * `GET /api/user/urls` first and the median of {@link REPEATS} (and the
 * server's CPU a request). The load
 * average is recorded with each round. Writes `bench/results/kv_urls.md`
 * (hand notes after its tables kept).
 *
 * Run: `deno run --allow-all --unstable-kv bench/kv_urls.ts` (`deno task
 * bench kv_urls`); `KV_URLS_ROUNDS` sets the rounds.
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type Checkout, describeCommit, worktreeAt } from "./helpers/checkout.ts";
import { cleanUp } from "./helpers/cleanup.ts";
import { treeCpuSeconds } from "./helpers/cpu.ts";
import { countKvWrites, type KvWriteCounts } from "./helpers/kv_writes.ts";
import { FERRY_ARGS, REPO_ROOT, startServer } from "./helpers/server.ts";

/** URLs of the user. */
const URLS = 1000;
/** Repeats of each read after its first. */
const REPEATS = 15;
/** URLs created one after the other. */
const CREATES = 100;
/** Views written one after the other, each way. */
const VIEWS = 200;
/** Rounds: each side measured once a round. */
const ROUNDS = Number(Deno.env.get("KV_URLS_ROUNDS") ?? 3);
/** The commit measured against. */
const BASELINE = Deno.env.get("KV_URLS_BASELINE") ?? "b8aba23";
const RESULTS = join(REPO_ROOT, "bench/results/kv_urls.md");
/** Where the hand notes start in {@link RESULTS} (kept when it is written again). */
const NOTES = "## Notes";
/** The bench servers' secret (`bench/http_accounts.ts`). */
const SECRET = "ferry-bench-secret-ferry-bench-secret-ferry-bench-secret-0123456";

/** One side's figures of one round. */
type Figures = Record<string, number>;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** The process's CPU time so far (ms), from /proc. */
async function cpuMs(): Promise<number> {
  const stat = (await Deno.readTextFile("/proc/self/stat")).split(") ")[1].split(" ");
  return (Number(stat[11]) + Number(stat[12])) * 10;
}

/** One side, in this process: its figures. */
async function side(root: string): Promise<Figures> {
  // deno-lint-ignore no-explicit-any
  const load = async (path: string): Promise<any> =>
    await import(pathToFileURL(join(resolve(root), path)).href);
  const { openKvStore } = await load("db/kv/mod.ts");
  const { servingStore } = await load("db/serving.ts");
  const { newId, systemClock, systemRandom } = await load("core/clock.ts");
  const { urlView } = await load("core/urls.ts");
  const { URL_RULE_DEFAULTS } = await load("db/urls.ts");
  const { clientToken } = await load("core/tokens.ts");
  const { populateUsers } = await load("bench/helpers/users.ts");
  const dir = await Deno.makeTempDir({ prefix: "ferry-bench-kv-urls-" });
  const f: Figures = {};
  try {
    const backend = await openKvStore(join(dir, "ferry.kv"));
    const store = servingStore(backend, systemClock);
    const [user] = await populateUsers(store, 1);
    const now = Date.now();
    const url = (i: number, at: number) => ({
      id: newId(systemRandom, at),
      code: `s${i}`,
      vanity: null,
      destination: `https://example.com/${i}`,
      views: i % 7,
      maxViews: null,
      password: null,
      enabled: true,
      userId: user.id,
      createdAt: new Date(at),
      updatedAt: new Date(at),
      ...URL_RULE_DEFAULTS,
    });
    const urls = Array.from({ length: URLS }, (_, i) => url(i, now - i * 1000));
    await store.urls.createMany(urls);
    const urlStore = backend.urls;
    let t = performance.now();
    let list = await urlStore.listByUser(user.id);
    f["list, first (ms)"] = performance.now() - t;
    if (list.length !== URLS) throw new Error(`listed ${list.length}`);
    const times = [];
    const route = [];
    let cpu = await cpuMs();
    for (let i = 0; i < REPEATS; i++) {
      t = performance.now();
      list = await urlStore.listByUser(user.id);
      times.push(performance.now() - t);
      t = performance.now();
      JSON.stringify(list.map(urlView));
      route.push(performance.now() - t);
    }
    f["list CPU, with the route's share (ms)"] = (await cpuMs() - cpu) / REPEATS;
    f["list, then (ms)"] = median(times);
    f["route: urlView + JSON (ms)"] = median(route);
    const pages = [];
    for (let i = 0; i < REPEATS; i++) {
      t = performance.now();
      await urlStore.pageByUser(user.id, 0, 15);
      pages.push(performance.now() - t);
    }
    f["first page of 15 (ms)"] = median(pages);

    const counts: KvWriteCounts = { commits: 0, mutations: 0, commitMs: 0 };
    countKvWrites(counts);
    const measureWrites = async (
      label: string,
      n: number,
      write: (i: number) => Promise<unknown>,
    ) => {
      Object.assign(counts, { commits: 0, mutations: 0, commitMs: 0 });
      const each = [];
      cpu = await cpuMs();
      for (let i = 0; i < n; i++) {
        t = performance.now();
        await write(i);
        each.push(performance.now() - t);
      }
      f[`${label} (ms)`] = median(each);
      f[`${label} CPU (ms)`] = (await cpuMs() - cpu) / n;
      f[`${label}: mutations`] = counts.mutations / n;
      f[`${label}: commits`] = counts.commits / n;
    };
    await measureWrites(
      "create",
      CREATES,
      (i) => urlStore.create(url(URLS + i, now + i + 1), null),
    );
    await measureWrites("addViews", VIEWS, (i) => urlStore.addViews(urls[(i * 7919) % URLS].id, 1));
    const limited = url(URLS + CREATES, now + CREATES + 10);
    await urlStore.create({ ...limited, maxViews: 1_000_000 }, null);
    await measureWrites("view (a view limit)", VIEWS, () => urlStore.view(limited.id));
    const token = clientToken(user.token, Date.now(), SECRET, systemRandom);
    await store.close();

    const server = await startServer(
      FERRY_ARGS,
      {
        SERVICE_HOSTNAME: "127.0.0.1",
        SERVICE_DATA_DIR: dir,
        SERVICE_SECRET: SECRET,
        SERVICE_RATELIMIT_ENABLED: "false",
      },
      "/api/healthcheck",
      root,
    );
    try {
      const ask = async () => {
        const started = performance.now();
        const res = await fetch(`${server.origin}/api/user/urls`, {
          headers: { Authorization: token },
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`the list answered ${res.status}`);
        return performance.now() - started;
      };
      f["HTTP list, first (ms)"] = await ask();
      const http = [];
      const serverCpu = await treeCpuSeconds(server.pid);
      for (let i = 0; i < REPEATS; i++) http.push(await ask());
      f["HTTP list, then (ms)"] = median(http);
      f["HTTP list: the server's CPU (ms)"] = (await treeCpuSeconds(server.pid) - serverCpu) *
        1000 / REPEATS;
    } finally {
      await server.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  return f;
}

/** One side in a process of its own. */
async function measure(root: string): Promise<Figures> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--unstable-kv", import.meta.filename!, "--side", root],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  if (!out.success) throw new Error(`the side at ${root} failed: ${text}`);
  return JSON.parse(text.split("\n").at(-1)!);
}

/** `1.2` or `34`. */
const shown = (v: number) => v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);

/** Measures both sides and writes {@link RESULTS}. */
async function main() {
  try {
    const baseline: Checkout = await worktreeAt(BASELINE);
    const here = { root: REPO_ROOT, ...await describeCommit("HEAD") };
    const rounds: { load: number[]; sides: Figures[] }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 ? [here, baseline] : [baseline, here];
      const load = Deno.loadavg();
      const got = new Map<Checkout, Figures>();
      for (const s of order) got.set(s, await measure(s.root));
      rounds.push({ load, sides: [got.get(baseline)!, got.get(here)!] });
      console.log(`round ${r + 1}, load ${load[0].toFixed(1)}`, rounds.at(-1)!.sides);
    }
    const names = Object.keys(rounds[0].sides[0]);
    const lines = [
      `| figure | ${rounds.map((_, r) => `round ${r + 1}: before | after`).join(" | ")} |` +
      " median before | median after |",
      `| --- | ${rounds.map(() => "---: | ---:").join(" | ")} | ---: | ---: |`,
      ...names.map((name) =>
        `| ${name} | ${
          rounds.map((r) => r.sides.map((s) => shown(s[name])).join(" | ")).join(" | ")
        } | ` +
        `${shown(median(rounds.map((r) => r.sides[0][name])))} | ` +
        `${shown(median(rounds.map((r) => r.sides[1][name])))} |`
      ),
      `| load average (1 min) at the round's start | ${
        rounds.map((r) => `${r.load[0].toFixed(1)} |`).join(" | ")
      } | | |`,
    ];
    let notes = "";
    try {
      const old = await Deno.readTextFile(RESULTS);
      if (old.includes(NOTES)) notes = old.slice(old.indexOf(NOTES));
    } catch {
      // first run
    }
    await Deno.writeTextFile(
      RESULTS,
      [
        "# The URL list on Deno KV (issue #32)",
        "",
        "Written by `bench/kv_urls.ts` (`deno task bench kv_urls`); hand notes below the tables.",
        "",
        `Before: \`${baseline.title.split(" ")[0]}\`; after: \`${
          here.title.split(" ")[0]
        }\`. ${ROUNDS} rounds, the side`,
        "measured first alternating; each side a process of its own on a fresh on-disk store",
        `of one user's ${URLS} URLs. ${
          new Date().toISOString()
        }, \`nproc\` ${navigator.hardwareConcurrency}.`,
        "",
        ...lines,
        "",
        notes,
      ].join("\n"),
    );
  } finally {
    await cleanUp();
  }
}

if (Deno.args[0] === "--side") {
  console.log(JSON.stringify(await side(Deno.args[1])));
  Deno.exit(0);
} else if (import.meta.main) {
  await main();
}
