/** For tests of Deno KV's builds after a write: a database on disk, and a commit that meddles. */
import { join } from "node:path";
import { splitFences } from "../../db/kv/file_fences.ts";

/** A database path in a temporary directory, removed after `fn`. */
export async function inTempStore(fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "ferry-kv-backlog-" });
  try {
    await fn(join(dir, "ferry.kv"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Splits every block of `owner` longer than 24 entries into blocks of 10. */
export const splitSmall = (kv: Deno.Kv, owner: string) =>
  splitFences(kv, { owner, all: true, at: 24, piece: 10 });

/**
 * `kv` whose `n`-th commit (counted from 1) first runs `meddle` (a write of
 * another caller between a build's reads and its commit).
 */
export function meddlingAt(kv: Deno.Kv, n: number, meddle: () => Promise<void>): Deno.Kv {
  let commits = 0;
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = async () => {
            if (++commits === n) await meddle();
            return await commit();
          };
          return op;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
