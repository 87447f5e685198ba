/**
 * Password hashing: argon2id in WebAssembly (hash-wasm), so the same code runs
 * under `deno run`, inside a compiled executable and on Deno Deploy, with no
 * native addon. Hashes are standard PHC strings; hashes made by Zipline v3/v4
 * (the argon2 npm package's defaults: m=64 MiB, t=3, p=4) verify as they are.
 */
import { argon2id, argon2Verify } from "hash-wasm";
import type { Random } from "./clock.ts";

/** Parameters for new hashes: OWASP's argon2id minimum (19 MiB, 2 passes, 1 lane). */
export const HASH_PARAMS = { memorySize: 19456, iterations: 2, parallelism: 1, hashLength: 32 };

/** Hashes `password` with a fresh salt into a PHC string. */
export async function hashPassword(password: string, random: Random): Promise<string> {
  return await argon2id({
    password,
    salt: random.bytes(16),
    ...HASH_PARAMS,
    outputType: "encoded",
  });
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

/**
 * Spends the time of one verification without a real hash, so that a login
 * for an unknown user takes about as long as one with a wrong password.
 */
export async function verifyDecoy(password: string): Promise<false> {
  decoy ??= hashPassword("decoy", { bytes: (n) => crypto.getRandomValues(new Uint8Array(n)) });
  await verifyPassword(password, await decoy);
  return false;
}
