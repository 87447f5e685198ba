/**
 * Two handles on one database (as two server processes have) share one
 * exact count: their batches meet the versionstamp check (and SQLite's write
 * lock) on Deno KV and the row lock on PostgreSQL.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openKvStore } from "../../db/kv/mod.ts";
import { openPostgresStore } from "../../db/postgres/mod.ts";
import type { Store } from "../../db/store.ts";
import { freshDatabase, ignoreKind, STORE_KINDS, type StoreKind } from "../helpers/stores.ts";

/** Opens two stores on one fresh database of `kind` (a KV file, a Postgres database). */
async function twoHandles(kind: StoreKind): Promise<{ stores: Store[]; close(): Promise<void> }> {
  if (kind === "kv") {
    const dir = await Deno.makeTempDir();
    const path = join(dir, "kv.sqlite");
    const stores = [await openKvStore(path), await openKvStore(path)];
    return {
      stores,
      close: async () => {
        for (const s of stores) await s.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  }
  const db = await freshDatabase();
  const stores = [await openPostgresStore(db.url, { max: 5 }), await openPostgresStore(db.url)];
  return {
    stores,
    close: async () => {
      for (const s of stores) await s.close();
      await db.drop();
    },
  };
}

for (const kind of STORE_KINDS) {
  Deno.test({
    name: `rate limits: two handles on one ${kind} store share one exact count`,
    ignore: ignoreKind(kind),
    fn: async () => {
      const { stores, close } = await twoHandles(kind);
      try {
        const start = Math.floor(Date.now() / 60_000) * 60_000;
        const keyOf = (i: number) => i % 3 ? "shared" : "other";
        const hits = await Promise.all(
          Array.from(
            { length: 180 },
            (_, i) => stores[i % 2].rateLimits.hit(keyOf(i), start, 60_000, 37),
          ),
        );
        const counted = (key: string) =>
          hits.filter((h, i) => h.allowed && keyOf(i) === key).map((h) => h.count)
            .sort((a, b) => a - b);
        const oneToMax = Array.from({ length: 37 }, (_, i) => i + 1);
        assert.deepEqual(counted("shared"), oneToMax);
        assert.deepEqual(counted("other"), oneToMax);
        assert.deepEqual(await stores[0].rateLimits.hit("shared", start, 60_000, 38), {
          allowed: true,
          count: 38,
        });
      } finally {
        await close();
      }
    },
  });
}
