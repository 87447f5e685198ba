/** For tests of Deno KV's builds after a write: a database on disk, files with ties, and a commit that meddles. */
import { join } from "node:path";
import type { FileRecord } from "../../db/files.ts";
import { splitFences } from "../../db/kv/file_fences.ts";
import { splitGroups } from "../../db/kv/file_fence_groups.ts";
import { fileRecord } from "./stores.ts";

/** A database path in a temporary directory, removed after `fn`. */
export async function inTempStore(fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "ferry-kv-backlog-" });
  try {
    await fn(join(dir, "ferry.kv"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** `n` files of `userId` with many ties in every order; some favourites, some in a folder. */
export const tiedFiles = (userId: string, n: number, prefix: string): FileRecord[] =>
  Array.from({ length: n }, (_, i) =>
    fileRecord(userId, {
      name: `${prefix}${(i * 7) % 13}-${crypto.randomUUID().slice(0, 6)}.png`,
      originalName: i % 3 ? `Orig ${i % 4}` : null,
      size: (i * 37) % 11,
      views: i % 5,
      type: ["image/png", "text/plain", "video/mp4"][i % 3],
      favorite: i % 3 === 0,
      folderId: i % 2 === 1 ? "folder1" : null,
      deletesAt: i % 2 ? new Date(Date.UTC(2030, 0, 1 + (i % 9))) : null,
    }));

/**
 * Splits every block of `owner` longer than 24 entries into blocks of 10,
 * then every group of fences of more than 48 entries into groups of 30-odd.
 */
export async function splitSmall(kv: Deno.Kv, owner: string): Promise<void> {
  await splitFences(kv, { owner, all: true, at: 24, piece: 10 });
  await splitGroups(kv, { owner, all: true, at: 48, piece: 30 });
}

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
