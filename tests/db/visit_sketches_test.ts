/**
 * Unique visitors as sketches on a real store of each kind: two instances
 * (two Deno KV visit stores on one database, two PostgreSQL pools on one)
 * writing the same hour's sketch at once lose no register of each other's
 * (the stored sketch is the sketch of every visitor both brought); and a
 * store upgraded from exact counts (Deno KV schema 9 with its visitor marks,
 * PostgreSQL before migration 037 with `visits_seen`) answers the same hours
 * and day totals as before, its marks gone, and adds new visitors by sketch.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import postgres from "postgres";
import { entryOf, sketchOf } from "../../db/hll.ts";
import { openKvStore } from "../../db/kv/mod.ts";
import { patient } from "../../db/kv/patient.ts";
import { KvVisits } from "../../db/kv/visits.ts";
import { migrate } from "../../db/postgres/migrate.ts";
import { MIGRATIONS } from "../../db/postgres/migrations/mod.ts";
import { openPostgresStore, PostgresStore } from "../../db/postgres/mod.ts";
import type { Backend } from "../../db/store.ts";
import { groupVisits } from "../../db/visit_rollup.ts";
import { dayUniques, hourUniques } from "../../db/visit_uniques.ts";
import type { VisitStore } from "../../db/visits.ts";
import { freshDatabase, ignoreKind } from "../helpers/stores.ts";
import { VISIT_START, visitAt } from "../helpers/visits.ts";

const START = VISIT_START;
const HOUR = 3_600_000;
const U1 = { kind: "url", id: "u1" } as const;

/** A visitor hash as the recorder makes it. */
const hash = (n: number) => createHash("sha256").update(`visitor ${n}`).digest("hex").slice(0, 16);

/** A visit of the link u1 at `START + minute` by `visitor`. */
const visit = (minute: number, visitor: string) => visitAt(U1, minute, visitor);

/**
 * Twelve batches of 400 new visitors each, six from each of `a` and `b`, all
 * at once into one hour; the stored sketch must be that of all 4,800.
 */
async function concurrentWriters(a: VisitStore, b: VisitStore): Promise<void> {
  const batches = Array.from(
    { length: 12 },
    (_, i) => Array.from({ length: 400 }, (_, j) => visit(j % 60, hash(i * 400 + j))),
  );
  await Promise.all(batches.map((batch, i) => (i % 2 ? a : b).add(groupVisits(batch))));
  const all = sketchOf(batches.flat().map((v) => entryOf(v.visitor)));
  for (const scope of [U1, { kind: "server", id: "*" } as const]) {
    const hours = await a.hours(scope, new Date(START), new Date(START + HOUR));
    assert.equal(hours.length, 1);
    assert.equal(hours[0].visits, 4800, `${scope.kind}: every visit`);
    assert.deepEqual(hours[0].sketch, all, `${scope.kind}: no register lost`);
    const days = await a.days(scope, new Date(START - 10 * HOUR), new Date(START + HOUR));
    assert.deepEqual(days.map((d) => d.sketch), [all], `${scope.kind}: the day's, the same`);
  }
}

Deno.test("visit sketches: kv: two instances writing one hour at once lose nothing", async () => {
  // Two stores over one database (one handle: SQLite's file lock refuses a second in-process
  // writer); their atomic checks are what keeps them apart, as across processes.
  const kv = await Deno.openKv(":memory:");
  try {
    await concurrentWriters(new KvVisits(kv), new KvVisits(kv));
  } finally {
    kv.close();
  }
});

Deno.test({
  name: "visit sketches: postgres: two instances writing one hour at once lose nothing",
  ignore: ignoreKind("postgres"),
  fn: async () => {
    const db = await freshDatabase();
    const a = await openPostgresStore(db.url, { max: 4 });
    const b = await openPostgresStore(db.url, { max: 4 });
    try {
      await concurrentWriters(a.visits, b.visits);
    } finally {
      await a.close();
      await b.close();
      await db.drop();
    }
  },
});

/** What the exact counts of the old roll-up said: two visitors in hour 0, one more in hour 1. */
async function assertOldTotals(store: Backend): Promise<void> {
  const day = async () =>
    (await store.visits.days(U1, new Date(START - 10 * HOUR), new Date(START + HOUR)))[0]?.sketch ??
      null;
  const hours = await store.visits.hours(U1, new Date(START), new Date(START + 2 * HOUR));
  assert.deepEqual(hours.map((h) => [h.visits, hourUniques(h)]), [[3, 2], [2, 2]]);
  assert.equal(await day(), null, "no sketch yet");
  assert.equal(dayUniques(hours, null), 3, "the day's: the sum of its hours' first-seen counts");
  // A new visitor after the upgrade counts by sketch on top of the exact counts.
  await store.visits.add(groupVisits([visit(70, hash(99)), visit(75, hash(99))]));
  const after = await store.visits.hours(U1, new Date(START), new Date(START + 2 * HOUR));
  assert.deepEqual(after.map((h) => [h.visits, hourUniques(h)]), [[3, 2], [4, 3]]);
  assert.equal(dayUniques(after, await day()), 4);
}

Deno.test("visit sketches: kv: schema 9's exact counts answer the same, its marks gone", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ferry-visit-sketches-" });
  const path = join(dir, "ferry.kv");
  try {
    (await openKvStore(path)).close();
    // What schema 9 wrote: roll-up hours with exact counts, and 1,200 visitor marks.
    const kv = patient(await Deno.openKv(path));
    await kv.set(["meta", "schema_version"], 9);
    const hour = (h: number, visits: number, hourUniques: number, dayUniques: number) =>
      kv.atomic()
        .set(["visits_hourly", "url", "u1", START + h * HOUR], {
          visits,
          hourUniques,
          dayUniques,
          dimensions: { "device\0desktop": visits },
        })
        .set(["visits_hours", START + h * HOUR, "url", "u1"], null)
        .commit();
    await hour(0, 3, 2, 2);
    await hour(1, 2, 2, 1);
    for (let i = 0; i < 1200; i += 100) {
      const op = kv.atomic();
      for (let j = i; j < i + 100; j++) {
        op.set(["visits_seen", START, "url", "u1", "h", hash(j)], true);
      }
      await op.commit();
    }
    kv.close();

    const upgraded = await openKvStore(path);
    try {
      const raw = patient(await Deno.openKv(path));
      const left = await Array.fromAsync(raw.list({ prefix: ["visits_seen"] }));
      raw.close();
      assert.equal(left.length, 0, "the marks are gone");
      await assertOldTotals(upgraded);
    } finally {
      upgraded.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "visit sketches: postgres: exact counts before 037 answer the same, visits_seen gone",
  ignore: ignoreKind("postgres"),
  fn: async () => {
    const db = await freshDatabase();
    const sql = postgres(db.url, { max: 2, onnotice: () => {} });
    try {
      await migrate(sql, MIGRATIONS.filter((m) => m.version < 37));
      await sql`
        INSERT INTO visits_hourly (target_kind, target_id, hour, visits, hour_uniques, day_uniques)
        VALUES ('url', 'u1', ${new Date(START)}, 3, 2, 2),
          ('url', 'u1', ${new Date(START + HOUR)}, 2, 2, 1)`;
      await sql`
        INSERT INTO visits_seen (target_kind, target_id, span, start, visitor)
        VALUES ('url', 'u1', 'h', ${new Date(START)}, ${hash(1)})`;
      assert.deepEqual(await migrate(sql, MIGRATIONS.filter((m) => m.version <= 37)), [37]);
      const [{ exists }] = await sql`SELECT to_regclass('visits_seen') IS NOT NULL AS exists`;
      assert.equal(exists, false, "visits_seen is gone");
      // The store is today's: the later migrations too (raw visits packed, 039).
      await migrate(sql, MIGRATIONS);
      await assertOldTotals(new PostgresStore(sql));
    } finally {
      await sql.end();
      await db.drop();
    }
  },
});
