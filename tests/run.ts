/**
 * `deno task test`: starts a throwaway PostgreSQL cluster and an s3rver, runs
 * `deno test` against them (extra arguments, e.g. a file, are passed through),
 * stops both whatever happens, and ends with one line: `X passed, Y failed`.
 *
 * A service that does not start is skipped with a warning, except under `CI`,
 * where it fails the run. The exit code is `deno test`'s.
 */

import { startPostgres } from "./helpers/postgres_cluster.ts";
import { startS3rver } from "./helpers/s3rver.ts";

/** A started service: its env var for the tests and how to stop it. */
interface Started {
  env: string;
  url: string;
  stop(): Promise<void>;
}

const SERVICES = [
  { name: "postgres", env: "FERRY_TEST_DATABASE_URL", start: startPostgres },
  {
    name: "s3rver",
    env: "FERRY_TEST_S3_ENDPOINT",
    start: () => startS3rver().then(({ endpoint, stop }) => ({ url: endpoint, stop })),
  },
];

/** Matches deno test's final line, e.g. `ok | 12 passed (34 steps) | 0 failed | 2 ignored (3s)`. */
const SUMMARY = /^(?:ok|FAILED) \| (\d+) passed(?: \([^)]*\))? \| (\d+) failed/;
// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

const started = startServices();
let tests: Deno.ChildProcess | undefined;
let stopping: Promise<void> | undefined;

/** Stops every service that started (once, however often it is called). */
function stopServices(): Promise<void> {
  stopping ??= started.then(async ({ services }) => {
    await Promise.allSettled(services.map((service) => service.stop()));
  });
  return stopping;
}

for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  Deno.addSignalListener(signal, () => {
    try {
      tests?.kill("SIGTERM");
    } catch {
      // already exited
    }
    stopServices().finally(() => Deno.exit(code));
  });
}

let passed = 0;
let failed = 1;
let exitCode = 1;
try {
  const { services, failures } = await started;
  for (const failure of failures) console.error(`warning: ${failure}`);
  if (failures.length > 0 && Deno.env.get("CI")) {
    console.error("CI needs every test service; not running the tests.");
  } else {
    const env: Record<string, string> = { RUST_BACKTRACE: "0" };
    for (const service of services) env[service.env] = service.url;
    const result = await runTests(env);
    exitCode = result.code;
    if (result.summary) {
      [passed, failed] = result.summary;
      if (exitCode === 0 && failed > 0) exitCode = 1;
    } else {
      console.error("no deno test summary found: counting the run as failed.");
      if (exitCode === 0) exitCode = 1;
    }
  }
} catch (error) {
  console.error(error);
} finally {
  await stopServices();
}
console.log(`${passed} passed, ${failed} failed`);
Deno.exit(exitCode);

/** Starts all services in parallel, reporting each failure as a line of text. */
async function startServices(): Promise<{ services: Started[]; failures: string[] }> {
  const services: Started[] = [];
  const failures: string[] = [];
  await Promise.all(SERVICES.map(async ({ name, env, start }) => {
    const began = performance.now();
    try {
      const { url, stop } = await start();
      services.push({ env, url, stop });
      const seconds = ((performance.now() - began) / 1000).toFixed(1);
      console.log(`${name} ready at ${url} (${seconds} s)`);
    } catch (error) {
      failures.push(`${name} did not start: ${error instanceof Error ? error.message : error}`);
    }
  }));
  return { services, failures };
}

/**
 * Runs `deno test` with the services' env, streaming its stdout to ours while
 * looking for the summary line; returns the exit code and `[passed, failed]`.
 */
async function runTests(
  env: Record<string, string>,
): Promise<{ code: number; summary: [number, number] | null }> {
  tests = new Deno.Command(Deno.execPath(), {
    args: ["test", "--allow-all", "--unstable-kv", ...Deno.args],
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let summary: [number, number] | null = null;
  const scan = (line: string) => {
    const match = line.replace(ANSI, "").match(SUMMARY);
    if (match) summary = [Number(match[1]), Number(match[2])];
  };
  let partial = "";
  const decoder = new TextDecoder();
  for await (const chunk of tests.stdout) {
    await writeAll(chunk);
    const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
    partial = lines.pop() ?? "";
    lines.forEach(scan);
  }
  scan(partial + decoder.decode());
  const { code } = await tests.status;
  return { code, summary };
}

/** Writes all of `bytes` to stdout (a single write may be partial). */
async function writeAll(bytes: Uint8Array): Promise<void> {
  while (bytes.length > 0) bytes = bytes.subarray(await Deno.stdout.write(bytes));
}
