/**
 * Two handles on one database (as two server processes have) share one
 * exact count: a handle counting alone counts in memory and hands its counts
 * over before another counts (`db/rate_limit_owner.ts`); handles counting
 * together meet the versionstamp check (and SQLite's write lock) on Deno KV
 * and the row lock on PostgreSQL.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openKvStore } from "../../db/kv/mod.ts";
import { openPostgresStore } from "../../db/postgres/mod.ts";
import type { RateLimitHit } from "../../db/rate_limits.ts";
import { servingStore } from "../../db/serving.ts";
import type { Backend, Store } from "../../db/store.ts";
import { systemClock } from "../../core/clock.ts";
import { IDLE_MS } from "../../db/rate_limit_owner.ts";
import { freshDatabase, ignoreKind, STORE_KINDS, type StoreKind } from "../helpers/stores.ts";
import { eventually } from "../helpers/wait.ts";

/** A server process's store over `backend`. */
const serve = (backend: Backend): Store => servingStore(backend, systemClock);

/** Opens `count` stores on one fresh database of `kind` (a KV file, a Postgres database). */
async function handles(
  kind: StoreKind,
  count = 2,
): Promise<{ stores: Store[]; close(): Promise<void> }> {
  const stores: Store[] = [];
  if (kind === "kv") {
    const dir = await Deno.makeTempDir();
    const path = join(dir, "kv.sqlite");
    for (let i = 0; i < count; i++) stores.push(serve(await openKvStore(path)));
    return {
      stores,
      close: async () => {
        for (const s of stores) await s.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  }
  const db = await freshDatabase();
  for (let i = 0; i < count; i++) stores.push(serve(await openPostgresStore(db.url, { max: 5 })));
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
      const { stores, close } = await handles(kind);
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

for (const kind of STORE_KINDS) {
  Deno.test({
    name: `rate limits: on ${kind}, a lone handle counts in memory and hands its counts over`,
    ignore: ignoreKind(kind),
    fn: async () => {
      const { stores, close } = await handles(kind, 3);
      const [a, b, c] = stores.map((s) => s.rateLimits);
      try {
        const start = Math.floor(Date.now() / 60_000) * 60_000;
        const hit = (limits: typeof a) => limits.hit("k", start, 60_000, 100).then((h) => h.count);
        assert.equal(a.counting(), "none");
        for (let i = 1; i <= 5; i++) assert.equal(await hit(a), i);
        assert.equal(a.counting(), "memory");

        // B asks A to hand over and waits: A's five, held in memory, are in its count.
        assert.equal(await hit(b), 6);
        assert.deepEqual([a.counting(), b.counting()], ["store", "store"]);
        assert.equal(await hit(a), 7);
        assert.equal(await hit(b), 8);

        // B leaves; within a renewal A finds itself alone and counts in memory again.
        await b.close();
        await eventually("A counting alone", () => Promise.resolve(a.counting() === "memory"));
        assert.equal(await hit(a), 9);
        assert.equal(await hit(a), 10);

        // A closing writes its counts and frees the record: a newcomer needs no wait.
        await a.close();
        assert.equal(await hit(c), 11);
        assert.equal(c.counting(), "memory");
      } finally {
        await close();
      }
    },
  });

  Deno.test({
    name: `rate limits: on ${kind}, an idle handle writes its counts and leaves the counting`,
    ignore: ignoreKind(kind),
    fn: async () => {
      const { stores, close } = await handles(kind);
      const [a, b] = stores.map((s) => s.rateLimits);
      try {
        const start = Math.floor(Date.now() / 60_000) * 60_000;
        for (let i = 0; i < 3; i++) await a.hit("idle", start, 60_000, 100);
        assert.equal(a.counting(), "memory");
        await eventually("A leaving", () => Promise.resolve(a.counting() === "none"), IDLE_MS * 3);
        // B claims the record at once (nobody counts) and reads A's three from the store.
        const waited = Date.now();
        assert.deepEqual(await b.hit("idle", start, 60_000, 100), { allowed: true, count: 4 });
        assert.ok(Date.now() - waited < IDLE_MS, "B waited for a claim that was released");
        assert.equal(b.counting(), "memory");
      } finally {
        await close();
      }
    },
  });
}

for (const kind of STORE_KINDS) {
  Deno.test({
    name:
      `rate limits: on ${kind}, handles joining and leaving mid-burst never count one slot twice`,
    ignore: ignoreKind(kind),
    fn: async () => {
      const { stores, close } = await handles(kind, 4);
      const limits = stores.map((s) => s.rateLimits);
      try {
        const start = Math.floor(Date.now() / 60_000) * 60_000;
        const max = 150;
        const hits: Promise<RateLimitHit>[] = [];
        const burst = (who: number[], size = 8) => {
          for (const i of who) {
            for (let n = 0; n < size; n++) hits.push(limits[i].hit("churn", start, 60_000, max));
          }
          return new Promise((resolve) => setTimeout(resolve, 50));
        };
        // A alone, in memory; B joins; A leaves and B, alone, takes the counting over;
        // C and D join while B counts in memory, and together they pass the limit.
        for (let w = 0; w < 4; w++) await burst([0]);
        await Promise.all(hits);
        assert.equal(limits[0].counting(), "memory");
        for (let w = 0; w < 3; w++) await burst([0, 1]);
        await Promise.all(hits); // B's wait for A to hand over
        assert.deepEqual([limits[0].counting(), limits[1].counting()], ["store", "store"]);
        await limits[0].close();
        await eventually("B counting alone", async () => {
          await burst([1], 1);
          return limits[1].counting() === "memory";
        });
        for (let w = 0; w < 3; w++) await burst([1]);
        for (let w = 0; w < 4; w++) await burst([1, 2, 3]);
        const answers = await Promise.all(hits);
        const counted = answers.filter((h) => h.allowed).map((h) => h.count).sort((a, b) => a - b);
        assert.deepEqual(counted, Array.from({ length: max }, (_, i) => i + 1));
        assert.ok(answers.filter((h) => !h.allowed).every((h) => h.count === max));
        assert.deepEqual(await limits[3].hit("churn", start, 60_000, max + 1), {
          allowed: true,
          count: max + 1,
        });
      } finally {
        await close();
      }
    },
  });
}
