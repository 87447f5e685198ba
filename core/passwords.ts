/**
 * Password hashing: argon2id in WebAssembly (hash-wasm), so the same code runs
 * under `deno run`, inside a compiled executable and on Deno Deploy, with no
 * native addon. Hashes are standard PHC strings; hashes made by Zipline v3/v4
 * (the argon2 npm package's defaults: m=64 MiB, t=3, p=4) verify as they are,
 * and are rehashed with Ferry's parameters at their user's next login.
 */
import { argon2id, argon2Verify } from "hash-wasm";
import type { Random } from "./clock.ts";

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

async function hashWith(password: string, salt: Uint8Array, params: typeof HASH_PARAMS) {
  return await argon2id({ password, salt, ...params, outputType: "encoded" });
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
  if (!hash.startsWith("$argon2")) return false;
  try {
    return await argon2Verify({ password, hash });
  } catch {
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
