/**
 * Password hashing: argon2id in WebAssembly (hash-wasm), so the same code runs
 * under `deno run`, inside a compiled executable and on Deno Deploy, with no
 * native addon. Hashes are standard PHC strings; hashes made by Zipline v3/v4
 * (the argon2 npm package's defaults: m=64 MiB, t=3, p=4) verify as they are,
 * and are rehashed with Ferry's parameters at their user's next login.
 *
 * Every hash runs on the process's password workers (`password_worker.ts`),
 * never on the server's thread: a hash takes tens of milliseconds of CPU,
 * which would stall every other request, and leaves a WebAssembly memory of
 * its size (19 MiB, Zipline's 64 MiB) for a garbage collection that may come
 * late, which piled up to hundreds of MiB under a burst of logins
 * (bench/results/soak.md). The pool runs {@link PASSWORD_WORKERS} hashes at
 * once within {@link POOL_HASH_MEMORY}, queues the rest, and each worker
 * collects its garbage after every hash (`serveJobs`), so that memory is given
 * back at once and a worker lives on for the next hash.
 */
import type { Random } from "./clock.ts";
import { ApiError } from "./errors.ts";
import { type HashOptions, PASSWORD_WORKER_NAME, type PasswordJob } from "./password_worker.ts";
import { PoolBusyError, type PoolStats, workerModule, WorkerPool } from "./worker_pool.ts";

/** The cost of an argon2id hash. */
export interface HashParams {
  /** KiB. */
  memorySize: number;
  iterations: number;
  parallelism: number;
}

/** Parameters for new hashes: OWASP's argon2id minimum (19 MiB, 2 passes, 1 lane). */
export const HASH_PARAMS = { memorySize: 19456, iterations: 2, parallelism: 1, hashLength: 32 };

/** The parameters of the hashes Zipline v3/v4 made (the argon2 npm package's defaults). */
export const ZIPLINE_HASH_PARAMS = {
  memorySize: 65536,
  iterations: 3,
  parallelism: 4,
  hashLength: 32,
};

/**
 * The decoy's parameters: Ferry's own, so that a login for an unknown user
 * (or for one without a password) costs what a wrong password costs for a
 * user whose hash Ferry made, and the answer's time does not tell the two
 * apart. An imported Zipline hash costs more until its user's first login
 * rehashes it (`core/login.ts`).
 */
export const DECOY_PARAMS = HASH_PARAMS;

/** Hashes at once: a login burst queues rather than taking every core. */
export const PASSWORD_WORKERS = 2;

/** KiB of argon2 memory the running hashes may hold together: two of Ferry's (a Zipline hash runs alone). */
export const POOL_HASH_MEMORY = 2 * HASH_PARAMS.memorySize;

/** The largest argon2 memory (KiB) a stored hash may ask for; a larger one never verifies. */
export const MAX_VERIFY_MEMORY = 4 * ZIPLINE_HASH_PARAMS.memorySize;

let pool: WorkerPool | undefined;

/** Runs `job`, which hashes through `memorySize` KiB, on a password worker. */
async function onWorker(job: PasswordJob, memorySize: number): Promise<unknown> {
  pool ??= new WorkerPool({
    url: workerModule(import.meta.url, "/core/passwords.ts", "./password_worker.ts"),
    name: PASSWORD_WORKER_NAME,
    size: PASSWORD_WORKERS,
    maxQueue: 1024,
    timeoutMs: 60_000,
    // Each hash's memory is collected after it, so a worker need not end to give it back.
    recycleWeight: Number.POSITIVE_INFINITY,
    idleMs: 5_000,
  });
  try {
    return await pool.run(memorySize / POOL_HASH_MEMORY, (step) => step(job));
  } catch (error) {
    if (error instanceof PoolBusyError) {
      throw new ApiError(503, "too many password checks at once; try again shortly");
    }
    throw error;
  }
}

/** Ends the idle password workers (at shutdown: a live worker keeps the process running). */
export function closePasswordWorkers(): void {
  pool?.close();
}

/** The password pool's counts (workers started and ended, tasks run), for tests and benchmarks. */
export function passwordPoolStats(): PoolStats | null {
  return pool?.stats() ?? null;
}

async function hashWith(password: string, salt: Uint8Array, options: HashOptions) {
  return await onWorker({ kind: "hash", password, salt, options }, options.memorySize) as string;
}

/** Hashes `password` with a fresh salt into a PHC string. */
export async function hashPassword(password: string, random: Random): Promise<string> {
  return await hashWith(password, random.bytes(16), HASH_PARAMS);
}

/** The algorithm and cost of a PHC argon2 hash, or `null` for anything else. */
export function hashParamsOf(hash: string): HashParams & { algorithm: string } | null {
  const match = hash.match(/^\$(argon2(?:id|i|d))\$v=\d+\$m=(\d+),t=(\d+),p=(\d+)\$/);
  return match && {
    algorithm: match[1],
    memorySize: Number(match[2]),
    iterations: Number(match[3]),
    parallelism: Number(match[4]),
  };
}

/** `true` when `hash` was not made with Ferry's algorithm and {@link HASH_PARAMS}. */
export function needsRehash(hash: string): boolean {
  const params = hashParamsOf(hash);
  return params?.algorithm !== "argon2id" || params.memorySize !== HASH_PARAMS.memorySize ||
    params.iterations !== HASH_PARAMS.iterations || params.parallelism !== HASH_PARAMS.parallelism;
}

/** `true` when `password` matches the PHC `hash`; a malformed hash is a mismatch. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const params = hashParamsOf(hash);
  if (!params || params.memorySize > MAX_VERIFY_MEMORY) return false;
  try {
    return await onWorker({ kind: "verify", password, hash }, params.memorySize) === true;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    return false;
  }
}

let decoy: Promise<string> | undefined;

/** The hash the decoy verifies against: made once per process with {@link DECOY_PARAMS}. */
export function decoyHash(): Promise<string> {
  decoy ??= hashWith("decoy", crypto.getRandomValues(new Uint8Array(16)), DECOY_PARAMS);
  return decoy;
}

/**
 * Spends the time of one verification without a real hash, so that a login
 * for an unknown user takes as long as a wrong password for a user on
 * Ferry's hashes.
 */
export async function verifyDecoy(password: string): Promise<false> {
  await verifyPassword(password, await decoyHash());
  return false;
}
