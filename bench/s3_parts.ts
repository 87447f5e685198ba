/**
 * The S3 datasource's `put` buffers (`storage/s3.ts`): a multipart upload
 * through the SDK's `Upload` holds up to its part size times its queue of
 * parts in memory. Puts `BENCH_S3_PARTS_MIB` MiB (256) to an s3rver with each
 * part size and queue of {@link CONFIGS}, each in a process of its own
 * (so one's garbage does not count against the next), alternated for
 * `BENCH_S3_PARTS_ROUNDS` rounds (3): the throughput and what the put added
 * to the process's RSS at its peak. Prints a Markdown table to paste into
 * `bench/results/memory.md`. Run: `deno run -A bench/s3_parts.ts`.
 */
import { Upload } from "@aws-sdk/lib-storage";
import { S3Client } from "@aws-sdk/client-s3";
import { loadAverage } from "./helpers/machine.ts";
import { procMib, rssSampler } from "./helpers/memory.ts";
import { s3BucketEnv } from "./helpers/s3.ts";
import { startS3rver } from "../tests/helpers/s3rver.ts";
import { S3RVER_CREDENTIALS } from "../tests/helpers/services.ts";

const MIB = 1024 * 1024;
const TOTAL_MIB = Number(Deno.env.get("BENCH_S3_PARTS_MIB") ?? 256);
const ROUNDS = Number(Deno.env.get("BENCH_S3_PARTS_ROUNDS") ?? 3);
/** [part size in MiB, queue size]: the old setting first. */
const CONFIGS: [number, number][] = [[8, 2], [5, 2], [5, 1]];

/** In the child: one put of {@link TOTAL_MIB} MiB, in 64 KiB chunks each a new buffer, as a request body's are. */
async function child(endpoint: string, bucket: string, partMib: number, queue: number) {
  const client = new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
    requestChecksumCalculation: "WHEN_REQUIRED",
  });
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= TOTAL_MIB * MIB) return controller.close();
      controller.enqueue(new Uint8Array(64 * 1024).fill(sent & 0xff));
      sent += 64 * 1024;
    },
  });
  const rest = procMib(Deno.pid, "VmRSS");
  const sampler = rssSampler(Deno.pid);
  const began = performance.now();
  await new Upload({
    client,
    params: { Bucket: bucket, Key: "big.bin", Body: body },
    partSize: partMib * MIB,
    queueSize: queue,
  }).done();
  const seconds = (performance.now() - began) / 1000;
  const added = sampler.stop() - rest;
  client.destroy();
  console.log(JSON.stringify({ mibPerSecond: TOTAL_MIB / seconds, added }));
}

async function run() {
  const s3 = await startS3rver();
  const rows: string[] = [];
  try {
    const results = new Map<string, { speed: number[]; added: number[]; load: string[] }>();
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...CONFIGS].reverse() : CONFIGS;
      for (const [partMib, queue] of order) {
        const env = await s3BucketEnv(s3, "ferry-bench-parts");
        const out = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            import.meta.filename!,
            env.SERVICE_DATASOURCE_S3_ENDPOINT,
            env.SERVICE_DATASOURCE_S3_BUCKET,
            String(partMib),
            String(queue),
          ],
          stdout: "piped",
          stderr: "inherit",
        }).output();
        const line = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!;
        const { mibPerSecond, added } = JSON.parse(line);
        const key = `${partMib} MiB × ${queue}`;
        const r = results.get(key) ?? { speed: [], added: [], load: [] };
        r.speed.push(mibPerSecond);
        r.added.push(added);
        r.load.push(await loadAverage());
        results.set(key, r);
        console.error(`${key}: ${mibPerSecond.toFixed(1)} MiB/s, +${added.toFixed(0)} MiB`);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    rows.push(
      "| parts × queue | MiB/s (median) | RSS added (MiB, median) | RSS added (MiB, highest) | load (1, 5, 15 min) |",
      "| ------------- | -------------: | ----------------------: | -----------------------: | ------------------- |",
    );
    for (const [key, r] of results) {
      rows.push(
        `| ${key} | ${median(r.speed).toFixed(1)} | ${median(r.added).toFixed(0)} | ${
          Math.max(...r.added).toFixed(0)
        } | ${r.load.join("; ")} |`,
      );
    }
  } finally {
    await s3.stop();
  }
  console.log(rows.join("\n"));
}

if (import.meta.main) {
  if (Deno.args.length === 4) {
    const [endpoint, bucket, partMib, queue] = Deno.args;
    await child(endpoint, bucket, Number(partMib), Number(queue));
  } else await run();
}
