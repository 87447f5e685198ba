/**
 * The password worker: argon2id hashing and verification (hash-wasm) off the
 * server's thread, run by the pool in `passwords.ts`. Each job instantiates a
 * WebAssembly memory of the hash's size that only a garbage collection gives
 * back, so the pool ends this worker after a bounded amount of hashing
 * instead of letting those memories pile up in the server's own heap.
 */
import { inWorkerNamed, serveJobs } from "./worker_pool.ts";

/**
 * hash-wasm, loaded by a worker's first job: the server's thread imports this
 * module (for its names and types, and so that bundles carry it) but never
 * hashes, so it never holds the library (bench/results/memory.md).
 */
const hashWasm = () => import("hash-wasm");

/** The name the password workers are started under. */
export const PASSWORD_WORKER_NAME = "ferry-passwords";

/** A hash's cost and length, as hash-wasm takes them. */
export interface HashOptions {
  /** KiB. */
  memorySize: number;
  iterations: number;
  parallelism: number;
  hashLength: number;
}

/** One job: hash `password` with `salt` into a PHC string, or check `password` against `hash`. */
export type PasswordJob =
  | { kind: "hash"; password: string; salt: Uint8Array; options: HashOptions }
  | { kind: "verify"; password: string; hash: string };

/** Runs one {@link PasswordJob}: the PHC string, or whether the password matched. */
async function runPasswordJob(job: PasswordJob): Promise<string | boolean> {
  const { argon2id, argon2Verify } = await hashWasm();
  if (job.kind === "hash") {
    return await argon2id({
      password: job.password,
      salt: job.salt,
      ...job.options,
      outputType: "encoded",
    });
  }
  return await argon2Verify({ password: job.password, hash: job.hash });
}

if (inWorkerNamed(PASSWORD_WORKER_NAME)) {
  serveJobs(async (message) => ({ value: await runPasswordJob(message as PasswordJob) }));
}
