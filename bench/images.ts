/**
 * Image work and the server's responsiveness (issue #30, item 3): the real
 * server process (`main.ts serve`, Deno KV, local datasource) is sent images
 * to compress or thumbnail, at and over the caps of `core/files/image_pool.ts`,
 * while a client polls `/api/healthcheck` every 20 ms. Each case records the
 * process's resident memory before, its peak during the job (`VmHWM` of
 * /proc, reset before each case through `clear_refs`), and after the job once
 * its workers ended, the healthcheck's slowest and 99th-percentile answer,
 * and what the upload answered. Goals: the healthcheck within 100 ms, the
 * process at most 300 MB above where it started. Writes
 * `bench/results/images.md`.
 *
 * `BENCH_IMAGES_BEFORE=<checkout>` also sends the bomb and the large JPEG's
 * thumbnail to another checkout of Ferry (say `git archive <commit> | tar -x
 * -C /tmp/before`), for the figures from before the pool.
 *
 * Run alone: `deno run --allow-all --unstable-kv bench/images.ts`, or
 * through `deno task bench images`. A few minutes: generating the images
 * takes a while on a small machine.
 */
import { join, resolve } from "node:path";
import encodeWebp, { init as initWebp } from "@jsquash/webp/encode.js";
import webpWasm from "@jsquash/webp/codec/enc/webp_enc_simd.wasm" with { type: "bytes" };
import { encodePixels } from "../core/files/codecs.ts";
import type { Pixels } from "../core/files/image_facts.ts";
import { encodeImage } from "../core/files/images.ts";
import { cleanUp, cleanups } from "./helpers/cleanup.ts";
import { machineSection } from "./helpers/machine.ts";
import { type BenchServer, FERRY_ARGS, REPO_ROOT, startServer } from "./helpers/server.ts";

const RESULTS = join(REPO_ROOT, "bench/results/images.md");
const BEFORE = Deno.env.get("BENCH_IMAGES_BEFORE");
/** How often the healthcheck is asked, in ms. */
const POLL_MS = 20;
/** How long after a job the process is measured again: past the pool's idle time (5 s). */
const SETTLE_MS = 7_000;

/** An upload's file. */
interface Part {
  name: string;
  type: string;
  bytes: Uint8Array;
}

/** One measured case. */
interface Case {
  label: string;
  /** What is sent, for the table. */
  input: string;
  /** Runs the job against `server` with the admin `token`; returns what it answered. */
  run(server: BenchServer, token: string): Promise<string>;
}

/** One case's figures. */
interface Measured {
  build: string;
  label: string;
  input: string;
  answer: string;
  seconds: number;
  before: number;
  peak: number;
  after: number;
  health: { count: number; max: number; p99: number; failed: number };
  /** The machine's load average (1 minute) when the case started. */
  load: string;
}

const MB = 1024 * 1024;

/** The `VmRSS` or `VmHWM` of `pid`, in bytes. */
async function memory(pid: number, field: "VmRSS" | "VmHWM"): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1]);
  return kb * 1024;
}

/** Resets `pid`'s peak resident memory to its current one. */
async function resetPeak(pid: number): Promise<void> {
  await Deno.writeTextFile(`/proc/${pid}/clear_refs`, "5");
}

/**
 * Polls the healthcheck from a worker of its own (`helpers/health_poller.ts`)
 * until `stop` settles; the answers' count, slowest and 99th-percentile times
 * in ms, and how many failed.
 */
async function pollHealth(origin: string, stop: Promise<unknown>) {
  const poller = new Worker(new URL("./helpers/health_poller.ts", import.meta.url), {
    type: "module",
  });
  const result = new Promise<{ times: number[]; failed: number }>((resolve) => {
    poller.onmessage = (event) => resolve(event.data);
  });
  poller.postMessage({ origin, intervalMs: POLL_MS });
  await stop.catch(() => {});
  poller.postMessage("stop");
  const { times, failed } = await result;
  poller.terminate();
  times.sort((a, b) => a - b);
  return {
    count: times.length,
    max: times.at(-1) ?? 0,
    p99: times[Math.floor(times.length * 0.99)] ?? 0,
    failed,
  };
}

/** Uploads `parts` with `headers`; the answer's `compressed` fields (or the error). */
async function upload(
  server: BenchServer,
  token: string,
  parts: Part[],
  headers: Record<string, string>,
): Promise<string> {
  const form = new FormData();
  for (const p of parts) {
    form.append("file", new Blob([p.bytes as BlobPart], { type: p.type }), p.name);
  }
  const res = await fetch(`${server.origin}/api/upload`, {
    method: "POST",
    body: form,
    headers: { authorization: token, ...headers },
  });
  const body = await res.json();
  if (!res.ok) return `${res.status} ${body.error}`;
  return body.files.map((f: { compressed?: { ext: string; failed?: true } }) =>
    f.compressed ? (f.compressed.failed ? "kept as it came" : `→ ${f.compressed.ext}`) : "stored"
  ).join(", ");
}

/** Uploads `part`, starts a thumbnails pass and waits for its thumbnail; `none` after 2 min. */
async function thumbnail(server: BenchServer, token: string, part: Part): Promise<string> {
  const answer = await upload(server, token, [part], {});
  const list = await (await fetch(`${server.origin}/api/user/files?page=1`, {
    headers: { authorization: token },
  })).json();
  const id = list.page[0].id;
  const pass = await fetch(`${server.origin}/api/server/thumbnails`, {
    method: "POST",
    headers: { authorization: token, "content-type": "application/json" },
    body: JSON.stringify({ rerun: false }),
  });
  await pass.body?.cancel();
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const file = await (await fetch(`${server.origin}/api/user/files/${id}`, {
      headers: { authorization: token },
    })).json();
    if (file.thumbnail) return `${answer}, thumbnail made`;
    await new Promise((r) => setTimeout(r, 100));
  }
  return `${answer}, no thumbnail (after 2 min)`;
}

/** A `width`×`height` picture: gradients with `noise` (0–255) of random grain. */
function picture(width: number, height: number, noise: number): Pixels {
  const data = new Uint8Array(width * height * 4);
  let seed = 12345;
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0; x < width; x++, i += 4) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const grain = noise ? (seed >>> 8) % noise : 0;
      data[i] = ((x * 255) / width + grain) & 255;
      data[i + 1] = ((y * 255) / height + grain) & 255;
      data[i + 2] = (((x + y) * 128) / (width + height) + 64 + grain) & 255;
      data[i + 3] = 255;
    }
  }
  return { width, height, data };
}

/** A lossless WebP of one colour: a few kilobytes however large it declares itself. */
async function flatWebp(side: number): Promise<Uint8Array> {
  await initWebp(await WebAssembly.compile(webpWasm as Uint8Array<ArrayBuffer>));
  const data = new Uint8ClampedArray(side * side * 4).fill(200);
  const image = { width: side, height: side, data, colorSpace: "srgb" } as unknown as ImageData;
  return new Uint8Array(await encodeWebp(image, { lossless: 1, quality: 100, method: 0 }));
}

/** The images, made once (the JPEG and WebP encoders are slow at this size). */
async function images() {
  const log = (what: string, bytes: Uint8Array) =>
    console.log(`  ${what}: ${(bytes.byteLength / MB).toFixed(1)} MB`);
  console.log("making the images…");
  const bomb = await flatWebp(7000);
  log("7000×7000 flat WebP", bomb);
  const twelve = picture(4000, 3000, 24);
  const jpeg12 = await encodePixels(twelve, "jpg", 90);
  log("12 MP JPEG", jpeg12);
  const webp12 = await encodePixels(twelve, "webp", 90);
  log("12 MP WebP", webp12);
  const png12 = encodeImage(picture(4000, 3000, 40), "png");
  log("12 MP PNG", png12);
  const six = picture(3000, 2000, 24);
  const jpeg6 = await encodePixels(six, "jpg", 90);
  const jpeg2 = await encodePixels(picture(1900, 1050, 24), "jpg", 90);
  const jpeg16 = await encodePixels(picture(4000, 4000, 24), "jpg", 90);
  log("16 MP JPEG", jpeg16);
  return { bomb, jpeg12, webp12, png12, jpeg6, jpeg2, jpeg16 };
}

const compress = (type: string) => ({
  "x-service-image-compression-percent": "60",
  "x-service-image-compression-type": type,
});

function cases(img: Awaited<ReturnType<typeof images>>): { all: Case[]; before: Case[] } {
  const part = (name: string, type: string, bytes: Uint8Array): Part => ({ name, type, bytes });
  const bomb: Case = {
    label: "bomb, compressed to JPEG",
    input: `7000×7000 WebP of ${img.bomb.byteLength} bytes`,
    run: (s, t) => upload(s, t, [part("bomb.webp", "image/webp", img.bomb)], compress("jpg")),
  };
  const thumb: Case = {
    label: "thumbnail of a large JPEG",
    input: `4000×4000 JPEG, ${(img.jpeg16.byteLength / MB).toFixed(1)} MB`,
    run: (s, t) => thumbnail(s, t, part("big.jpg", "image/jpeg", img.jpeg16)),
  };
  const idle: Case = {
    label: "nothing: the machine's own noise",
    input: "—",
    run: () => new Promise((resolve) => setTimeout(() => resolve("—"), 10_000)),
  };
  const all: Case[] = [
    idle,
    bomb,
    {
      label: "at the cap, JPEG to JPEG",
      input: "4000×3000 JPEG",
      run: (s, t) => upload(s, t, [part("a.jpg", "image/jpeg", img.jpeg12)], compress("jpg")),
    },
    {
      label: "at the cap, WebP to WebP",
      input: "4000×3000 WebP",
      run: (s, t) => upload(s, t, [part("a.webp", "image/webp", img.webp12)], compress("webp")),
    },
    {
      label: "at the cap, PNG to PNG",
      input: `4000×3000 PNG, ${(img.png12.byteLength / MB).toFixed(1)} MB`,
      run: (s, t) => upload(s, t, [part("a.png", "image/png", img.png12)], compress("png")),
    },
    {
      label: "at JPEG XL's cap",
      input: "1900×1050 JPEG",
      run: (s, t) => upload(s, t, [part("a.jpg", "image/jpeg", img.jpeg2)], compress("jxl")),
    },
    {
      label: "three parts of one request, 18 MP together",
      input: "3 × 3000×2000 JPEG",
      run: (s, t) =>
        upload(
          s,
          t,
          [1, 2, 3].map((n) => part(`${n}.jpg`, "image/jpeg", img.jpeg6)),
          compress("jpg"),
        ),
    },
    {
      label: "four requests at once, each at the cap",
      input: "4 × 4000×3000 JPEG",
      run: async (s, t) =>
        (await Promise.all(
          [1, 2, 3, 4].map((n) =>
            upload(s, t, [part(`${n}.jpg`, "image/jpeg", img.jpeg12)], compress("webp"))
          ),
        )).join("; "),
    },
    thumb,
  ];
  return { all, before: [idle, bomb, thumb] };
}

/** Starts a server of the checkout at `root`, runs each case on it, stops it. */
async function measureBuild(build: string, root: string, list: Case[]): Promise<Measured[]> {
  const dataDir = await Deno.makeTempDir({ prefix: "ferry-bench-images-" });
  cleanups.push(() => Deno.remove(dataDir, { recursive: true }));
  const server = await startServer(
    FERRY_ARGS,
    {
      SERVICE_HOSTNAME: "127.0.0.1",
      SERVICE_DATA_DIR: dataDir,
      SERVICE_FILES_MAX_FILE_SIZE: "200mb",
    },
    "/api/healthcheck",
    root,
  );
  cleanups.push(() => server.stop());
  const setup = await fetch(`${server.origin}/api/setup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: "a bench password" }),
  });
  if (!setup.ok) throw new Error(`setup: ${setup.status} ${await setup.text()}`);
  const cookie = setup.headers.getSetCookie()[0].split(";")[0];
  const { token } = await (await fetch(`${server.origin}/api/user/token`, {
    headers: { cookie },
  })).json();
  const out: Measured[] = [];
  for (const c of list) {
    console.log(`${build}: ${c.label}`);
    await new Promise((r) => setTimeout(r, 1_000));
    const load = (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];
    const before = await memory(server.pid, "VmRSS");
    await resetPeak(server.pid);
    const started = performance.now();
    const job = c.run(server, token);
    const health = await pollHealth(server.origin, job);
    const answer = await job;
    const seconds = (performance.now() - started) / 1000;
    const peak = await memory(server.pid, "VmHWM");
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const after = await memory(server.pid, "VmRSS");
    out.push({
      build,
      label: c.label,
      input: c.input,
      answer,
      seconds,
      before,
      peak,
      after,
      health,
      load,
    });
    console.log(
      `  ${answer}; peak +${((peak - before) / MB).toFixed(0)} MB, health max ${
        health.max.toFixed(0)
      } ms`,
    );
  }
  await server.stop();
  return out;
}

function table(rows: Measured[]): string {
  const mb = (n: number) => `${Math.round(n / MB)} MB`;
  const lines = [
    "| build | case | sent | answer | time | RSS before | peak (growth) | after (growth) | healthcheck: answers, slowest, p99 | load |",
    "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: |",
  ];
  for (const r of rows) {
    const health = `${r.health.count}${r.health.failed ? ` (${r.health.failed} failed)` : ""}, ` +
      `${r.health.max.toFixed(0)} ms, ${r.health.p99.toFixed(0)} ms`;
    lines.push(
      `| ${r.build} | ${r.label} | ${r.input} | ${r.answer} | ${r.seconds.toFixed(1)} s | ` +
        `${mb(r.before)} | ${mb(r.peak)} (+${mb(r.peak - r.before)}) | ` +
        `${mb(r.after)} (${r.after >= r.before ? "+" : ""}${
          mb(r.after - r.before)
        }) | ${health} | ` +
        `${r.load} |`,
    );
  }
  return lines.join("\n");
}

if (import.meta.main) {
  try {
    const img = await images();
    const { all, before } = cases(img);
    const rows: Measured[] = [];
    if (BEFORE) rows.push(...await measureBuild("before", resolve(BEFORE), before));
    rows.push(...await measureBuild("this", REPO_ROOT, all));
    const text = [
      "# Image work and the server's responsiveness",
      "",
      "`deno task bench images` (bench/images.ts): the real server (Deno KV, local disk) is sent " +
      "images to compress (`x-service-image-compression-*`) or to thumbnail (a pass of " +
      `\`POST /api/server/thumbnails\`), while a client asks \`/api/healthcheck\` every ${POLL_MS} ms (from a worker of its own, so that ` +
      `sending the upload does not delay it). RSS is the ` +
      "server process's resident memory (its image workers are threads of it): before the case, " +
      "its peak during the case (`VmHWM`, reset first), and after, " +
      `${SETTLE_MS / 1000} s after the answer, when the pool's workers have ended. Goals ` +
      "(issue #30): the healthcheck within 100 ms, the process at most 300 MB above where it " +
      "started. The machine is shared: the client, the server and its workers share its CPUs.",
      "",
      table(rows),
      "",
      await machineSection(),
      "",
    ].join("\n");
    await Deno.writeTextFile(RESULTS, text);
    console.log(`wrote ${RESULTS}`);
  } finally {
    await cleanUp();
  }
}
