/**
 * Files through the HTTP API of the real server process (`main.ts serve` on
 * Deno KV, local datasource): a 2 GiB upload and its download, streamed, with
 * with curl, and the server's peak RSS (`VmHWM`); then wrk on small-file uploads and on
 * `GET /raw/<name>`. Writes `bench/results/files.md`. About a minute.
 *
 * Run alone: `deno run --allow-all --unstable-kv bench/http_files.ts`, or
 * through `deno task bench files`.
 */
import { join } from "node:path";
import { systemClock, systemRandom } from "../core/clock.ts";
import type { Services } from "../core/services.ts";
import { clientToken } from "../core/tokens.ts";
import { buildUser } from "../core/users.ts";
import { openKvStore } from "../db/kv/mod.ts";
import { machineSection, versionOf } from "./helpers/machine.ts";
import { type BenchServer, FERRY_ARGS, REPO_ROOT, startServer } from "./helpers/server.ts";
import { hasWrk, wrk, WRK_SCRIPTS, type WrkOptions, type WrkResult } from "./helpers/wrk.ts";

const SECRET = "ferry-bench-secret-ferry-bench-secret-ferry-bench-secret-0123456";
/** The big file: 2 GiB (`BENCH_BIG_BYTES` overrides, for a quick try). */
const BIG = Number(Deno.env.get("BENCH_BIG_BYTES") ?? 2 * 1024 ** 3);
/** The chunk the file is written in. */
const CHUNK = 1024 * 1024;
const LOAD = { threads: 2, connections: 32, durationSeconds: 10, warmupSeconds: 2 };
const RESULTS = join(REPO_ROOT, "bench/results/files.md");
const BOUNDARY = "----ferrybench7d1c";

/** The pid of the server listening with `SERVICE_PORT=<port>` (found through /proc environ). */
async function serverPid(port: string): Promise<number> {
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const environ = await Deno.readTextFile(`/proc/${entry.name}/environ`);
      if (environ.split("\0").includes(`SERVICE_PORT=${port}`)) return Number(entry.name);
    } catch {
      // gone, or not ours
    }
  }
  throw new Error(`no process with SERVICE_PORT=${port}`);
}

/** `VmRSS` and `VmHWM` (peak) of `pid`, in MiB. */
async function memory(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)![1]);
  return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}

/** Writes `size` patterned bytes to `path`, 1 MiB at a time. */
async function writeBigFile(path: string, size: number): Promise<void> {
  const chunk = new Uint8Array(CHUNK).map((_, i) => (i * 31) % 251);
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  for (let written = 0; written < size; written += CHUNK) {
    await file.write(chunk.subarray(0, Math.min(CHUNK, size - written)));
  }
}

/** Runs curl with `args`; returns what `-w` printed. */
async function curl(args: string[]): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command("curl", { args: ["-sS", ...args] })
    .output();
  if (code !== 0) throw new Error(`curl ${args.join(" ")}: ${new TextDecoder().decode(stderr)}`);
  return new TextDecoder().decode(stdout);
}

/** Measures one big upload and its download with curl; returns the results section. */
async function bigFile(server: BenchServer, token: string, pid: number, dir: string) {
  const path = join(dir, "big.bin");
  await writeBigFile(path, BIG);
  const before = await memory(pid);
  const reply = join(dir, "reply.json");
  const uploadSeconds = Number(
    await curl([
      ...["-o", reply, "-w", "%{time_total}", "-H", `authorization: ${token}`],
      ...["-F", `file=@${path}`, `${server.origin}/api/upload`],
    ]),
  );
  const { files } = JSON.parse(await Deno.readTextFile(reply));
  await Deno.remove(path);
  const afterUpload = await memory(pid);
  const [downloadSeconds, received] = (await curl([
    ...["-o", "/dev/null", "-w", "%{time_total} %{size_download}"],
    `${server.origin}/raw/${files[0].name}`,
  ])).split(" ").map(Number);
  if (received !== BIG) throw new Error(`downloaded ${received} bytes of ${BIG}`);
  const afterDownload = await memory(pid);
  const gib = BIG / 1024 ** 3;
  const gb = BIG / 1e9;
  console.log(
    `  upload ${(gb / uploadSeconds).toFixed(2)} GB/s, download ${
      (gb / downloadSeconds).toFixed(2)
    } GB/s, peak RSS ${afterDownload.peak.toFixed(0)} MiB`,
  );
  return [
    `| step | time | throughput | server RSS after | server peak RSS (VmHWM) |`,
    `| --- | ---: | ---: | ---: | ---: |`,
    `| idle, before | | | ${before.rss.toFixed(0)} MiB | ${before.peak.toFixed(0)} MiB |`,
    `| upload ${gib} GiB (curl -F, POST /api/upload) | ${uploadSeconds.toFixed(2)} s | ${
      (gb / uploadSeconds).toFixed(2)
    } GB/s | ${afterUpload.rss.toFixed(0)} MiB | ${afterUpload.peak.toFixed(0)} MiB |`,
    `| download ${gib} GiB (curl, GET /raw/<name>) | ${downloadSeconds.toFixed(2)} s | ${
      (gb / downloadSeconds).toFixed(2)
    } GB/s | ${afterDownload.rss.toFixed(0)} MiB | ${afterDownload.peak.toFixed(0)} MiB |`,
  ].join("\n");
}

async function measure(options: WrkOptions): Promise<WrkResult> {
  await wrk({ ...options, ...LOAD, durationSeconds: LOAD.warmupSeconds });
  const result = await wrk({ ...options, ...LOAD });
  console.log(`  ${options.url}: ${result.requestsPerSecond.toFixed(0)} req/s`);
  return result;
}

/** Runs everything and writes the results file; returns its path. */
export async function run(): Promise<string> {
  if (!(await hasWrk())) throw new Error("wrk is not installed: apt-get install wrk");
  const dataDir = await Deno.makeTempDir({ prefix: "ferry-bench-files-" });
  let server: BenchServer | undefined;
  try {
    const store = await openKvStore(join(dataDir, "ferry.kv"));
    const s = { clock: systemClock, random: systemRandom } as Services;
    const user = await buildUser(s, { username: "bench", password: null, role: "USER" });
    await store.createUser(user);
    await store.close();
    const token = clientToken(user.token, Date.now(), SECRET, systemRandom);
    server = await startServer(FERRY_ARGS, {
      SERVICE_HOSTNAME: "127.0.0.1",
      SERVICE_DATA_DIR: dataDir,
      SERVICE_SECRET: SECRET,
      SERVICE_RATELIMIT_ENABLED: "false",
      SERVICE_FILES_MAX_FILE_SIZE: "10gb",
    }, "/api/healthcheck");
    const pid = await serverPid(new URL(server.origin).port);
    console.log("2 GiB upload and download");
    const big = await bigFile(server, token, pid, dataDir);

    console.log("small files");
    const body = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; ` +
      `filename="small.txt"\r\nContent-Type: text/plain\r\n\r\n${"x".repeat(1024)}\r\n` +
      `--${BOUNDARY}--\r\n`;
    const uploads = await measure({
      url: `${server.origin}/api/upload`,
      script: WRK_SCRIPTS.upload,
      env: { WRK_BODY: body, WRK_BOUNDARY: BOUNDARY },
      headers: { Authorization: token },
      redact: ["Authorization"],
    });
    const probe = await fetch(`${server.origin}/api/upload`, {
      method: "POST",
      headers: {
        authorization: token,
        "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
      },
      body,
    });
    const { files } = await probe.json();
    const raw = await measure({ url: `${server.origin}/raw/${files[0].name}` });
    const after = await memory(pid);
    const row = (scenario: string, r: WrkResult) =>
      `| ${scenario} | ${
        r.requestsPerSecond.toFixed(1)
      } | ${r.p50Ms} ms | ${r.p99Ms} ms | ${r.requests} | ${r.non2xx}${
        r.socketErrors ? ` / ${r.socketErrors}` : ""
      } |`;
    const text = [
      "# Files through the HTTP API",
      "",
      "Written by `bench/http_files.ts` (`deno task bench files`). The real server " +
      "(`main.ts serve`, Deno KV, local datasource on the temp dir's disk) and curl " +
      "share the machine on loopback. The big file is uploaded by curl from disk and " +
      "downloaded to /dev/null; the local datasource fsyncs each upload before it is " +
      "recorded. RSS is the server process's, from /proc/<pid>/status.",
      "",
      await machineSection({ wrk: await versionOf("wrk", ["-v"]) }),
      "## 2 GiB upload and download",
      "",
      big,
      "",
      `## Under load (wrk, ${LOAD.threads} threads, ${LOAD.connections} connections, ` +
      `${LOAD.durationSeconds} s after a ${LOAD.warmupSeconds} s warm-up)`,
      "",
      "| scenario | requests/s | p50 | p99 | requests | non-2xx / socket errors |",
      "| --- | ---: | ---: | ---: | ---: | --- |",
      row("POST /api/upload, one 1 KiB file (token auth)", uploads),
      row("GET /raw/<name>, 1 KiB text file", raw),
      "",
      `Server peak RSS over the whole run: ${after.peak.toFixed(0)} MiB.`,
      "",
      "## Commands",
      "",
      "```sh",
      server.command.replace(/SERVICE_PORT=\d+/, "SERVICE_PORT=<port>").replace(
        /SERVICE_DATA_DIR=\S+/,
        "SERVICE_DATA_DIR=<temp dir>",
      ),
      uploads.command.replace(/127\.0\.0\.1:\d+/, "127.0.0.1:<port>").replace(
        /x{1024}/,
        "<1 KiB of x>",
      ),
      raw.command.replace(/127\.0\.0\.1:\d+/, "127.0.0.1:<port>"),
      "```",
      "",
    ].join("\n");
    await Deno.writeTextFile(RESULTS, text);
    console.log(`written to ${RESULTS}`);
    return RESULTS;
  } finally {
    await server?.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
}

if (import.meta.main) await run();
