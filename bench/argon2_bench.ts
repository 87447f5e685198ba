/**
 * argon2id: our implementation (hash-wasm, WebAssembly, `core/passwords.ts`)
 * against the native alternatives a Deno server could use instead:
 *
 * - `npm:@node-rs/argon2`: Rust through N-API, a prebuilt binary per platform
 *   shipped as an optional npm dependency; hashes on libuv's thread pool.
 * - `npm:argon2` (what Zipline uses): C through N-API. Deno skips its install
 *   script (`node-gyp-build`; lifecycle scripts need a node_modules dir), but
 *   none is needed on linux-x64: `node-gyp-build` loads the
 *   `prebuilds/linux-x64/argon2.glibc.node` shipped inside the package. A
 *   platform without a prebuild would need the script (and a C toolchain).
 *
 * The alternatives are imported at run time with specifiers the type checker
 * does not follow, so that `deno check` does not fetch them and a package that
 * cannot load under Deno is reported (as an ignored bench naming the error)
 * instead of failing the whole file. Native addons need `--allow-ffi` (without
 * it: "Requires ffi access to …argon2.glibc.node" and "Failed to load native
 * binding"), and neither works inside `deno compile` or on Deno Deploy, which
 * load no native addons; WebAssembly (hash-wasm) works everywhere.
 *
 * Run: `deno bench --allow-all --no-lock bench/argon2_bench.ts` (or `deno task bench`).
 */
import { argon2Verify } from "hash-wasm";
import { HASH_PARAMS, hashPassword, verifyPassword } from "../core/passwords.ts";
import { systemRandom } from "../core/clock.ts";

const PASSWORD = "correct horse battery staple";

/** A hash made by `npm:argon2@0.44.0` with its defaults (Zipline v3/v4): m=64 MiB, t=3, p=4. */
export const ZIPLINE_HASH =
  "$argon2id$v=19$m=65536,t=3,p=4$+0DJW1RZMxKPllBs9kNGtw$9xESKSA7Fk0axPSF9rbgAQpqNed9E0Yzq39jPe96p4g";

/** What a bench needs of an argon2 implementation. */
interface Argon2 {
  /** Hashes `password` with {@link HASH_PARAMS} into a PHC string. */
  hash(password: string): Promise<string>;
  /** Checks `password` against a PHC string. */
  verify(hash: string, password: string): Promise<boolean>;
}

/** `@node-rs/argon2`'s surface that we use (its options are named after argon2's C API). */
interface NodeRsArgon2 {
  hash(
    password: string,
    options: { memoryCost: number; timeCost: number; parallelism: number; outputLen: number },
  ): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

/** `argon2`'s surface that we use. */
interface NodeArgon2 {
  argon2id: number;
  hash(
    password: string,
    options: {
      type: number;
      memoryCost: number;
      timeCost: number;
      parallelism: number;
      hashLength: number;
    },
  ): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

/** Imports `specifier` at run time; the error message when it does not load. */
async function load<T>(specifier: string): Promise<T | string> {
  try {
    const module = await import(specifier);
    return (module.default ?? module) as T;
  } catch (error) {
    // The first line of each message down the cause chain (napi-rs puts the real reason in `cause`).
    const reasons: string[] = [];
    for (let e: unknown = error; e && reasons.length < 4; e = (e as Error).cause) {
      reasons.push(String((e as Error).message ?? e).split("\n")[0]);
    }
    return reasons.join(" <- ");
  }
}

const ours: Argon2 = {
  hash: (password) => hashPassword(password, systemRandom),
  verify: (hash, password) => verifyPassword(password, hash),
};

const nodeRsSpecifier = "npm:@node-rs/argon2@2.0.2";
const nodeArgon2Specifier = "npm:argon2@0.44.0";
const nodeRs = await load<NodeRsArgon2>(nodeRsSpecifier);
const nodeArgon2 = await load<NodeArgon2>(nodeArgon2Specifier);

const impls: { name: string; impl: Argon2 | string }[] = [
  { name: "hash-wasm (ours)", impl: ours },
  {
    name: nodeRsSpecifier,
    impl: typeof nodeRs === "string" ? nodeRs : {
      hash: (password) =>
        nodeRs.hash(password, {
          memoryCost: HASH_PARAMS.memorySize,
          timeCost: HASH_PARAMS.iterations,
          parallelism: HASH_PARAMS.parallelism,
          outputLen: HASH_PARAMS.hashLength,
        }),
      verify: (hash, password) => nodeRs.verify(hash, password),
    },
  },
  {
    name: nodeArgon2Specifier,
    impl: typeof nodeArgon2 === "string" ? nodeArgon2 : {
      hash: (password) =>
        nodeArgon2.hash(password, {
          type: nodeArgon2.argon2id,
          memoryCost: HASH_PARAMS.memorySize,
          timeCost: HASH_PARAMS.iterations,
          parallelism: HASH_PARAMS.parallelism,
          hashLength: HASH_PARAMS.hashLength,
        }),
      verify: (hash, password) => nodeArgon2.verify(hash, password),
    },
  },
];

const params =
  `m=${HASH_PARAMS.memorySize},t=${HASH_PARAMS.iterations},p=${HASH_PARAMS.parallelism}`;
const ourHash = await ours.hash(PASSWORD);
// Every hash must verify everywhere before anything is timed: PHC strings are interchangeable.
if (!(await argon2Verify({ password: PASSWORD, hash: ZIPLINE_HASH }))) {
  throw new Error("hash-wasm does not verify the Zipline fixture hash");
}

const CONCURRENT = 4;
const slow = { n: 20, warmup: 2 };

for (const { name, impl } of impls) {
  if (typeof impl === "string") {
    console.error(`${name} did not load under Deno: ${impl}`);
    Deno.bench({ name: `${name}: not loaded (${impl})`, ignore: true, fn() {} });
    continue;
  }
  const own = await impl.hash(PASSWORD);
  for (const hash of [own, ourHash, ZIPLINE_HASH]) {
    if (!(await impl.verify(hash, PASSWORD)) || await impl.verify(hash, "wrong")) {
      throw new Error(`${name} does not verify ${hash}`);
    }
  }
  const baseline = impl === ours;
  Deno.bench({
    name,
    group: `hash ${params}`,
    baseline,
    ...slow,
    fn: async () => void await impl.hash(PASSWORD),
  });
  Deno.bench({
    name,
    group: `verify ${params}`,
    baseline,
    ...slow,
    fn: async () => void await impl.verify(ourHash, PASSWORD),
  });
  Deno.bench({
    name,
    group: "verify Zipline default m=65536,t=3,p=4",
    baseline,
    n: 10,
    warmup: 1,
    fn: async () => void await impl.verify(ZIPLINE_HASH, PASSWORD),
  });
  Deno.bench({
    name,
    group: `${CONCURRENT} concurrent verifies ${params} (logins at once)`,
    baseline,
    n: 10,
    warmup: 1,
    fn: async () => {
      await Promise.all(Array.from({ length: CONCURRENT }, () => impl.verify(ourHash, PASSWORD)));
    },
  });
}
