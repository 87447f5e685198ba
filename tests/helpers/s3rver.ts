/**
 * A throwaway S3-compatible server (s3rver) for the test task, run as a child
 * Deno process on a free port with its buckets in a temp dir. Started by
 * `tests/run.ts`, never by a test. Credentials: `S3RVER_CREDENTIALS`.
 */

import { freePort } from "./postgres_cluster.ts";

/** A running s3rver. */
export interface S3rver {
  /** The endpoint URL, e.g. `http://127.0.0.1:4568`. */
  endpoint: string;
  /** Kills the server and deletes its buckets. */
  stop(): Promise<void>;
}

const S3RVER = "npm:s3rver@3.7.1";
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;

/** The project root: its `deno.lock` pins s3rver's dependencies. */
const PROJECT_ROOT = new URL("../../", import.meta.url);

/**
 * Starts s3rver and waits until its port answers HTTP. Throws with the
 * server's stderr when it exits early or is not ready within a minute.
 */
export async function startS3rver(): Promise<S3rver> {
  const dir = await Deno.makeTempDir({ prefix: "ferry-s3-" });
  const port = freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      S3RVER,
      "--directory",
      dir,
      "--port",
      String(port),
      "--address",
      "127.0.0.1",
      "--silent",
    ],
    cwd: PROJECT_ROOT,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = collectTail(child.stderr);

  let stopped: Promise<void> | null = null;
  const stop = () => {
    stopped ??= kill(child).then(() => Deno.remove(dir, { recursive: true }));
    return stopped;
  };

  const exited = child.status.then((status) => status.code);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (true) {
    const ready = await answers(endpoint);
    if (ready) return { endpoint, stop };
    const code = await Promise.race([exited, delay(250).then(() => null)]);
    if (code !== null || Date.now() > deadline) {
      await stop();
      const why = code !== null ? `exited with code ${code}` : "was not ready after 60 s";
      throw new Error(`s3rver ${why}:\n${(await stderr).trim()}`);
    }
  }
}

/** `true` when `url` answers HTTP with any status. */
async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

/** Sends SIGTERM, then SIGKILL if the process is still alive after a grace period. */
async function kill(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch {
    return; // already exited
  }
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch {
      // exited in the meantime
    }
  }, STOP_GRACE_MS);
  await child.status;
  clearTimeout(timer);
}

/** Drains a stream (so the child never blocks on a full pipe), keeping its last 4 KiB as text. */
async function collectTail(stream: ReadableStream<Uint8Array>): Promise<string> {
  let tail = "";
  for await (const text of stream.pipeThrough(new TextDecoderStream())) {
    tail = (tail + text).slice(-4096);
  }
  return tail;
}

/** Resolves after `ms` milliseconds. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
