/**
 * Raw visits packed as bytes (`db/visit_pack.ts`): a pack gives back the
 * groups it was made of (nulls, repeated and non-ASCII strings, fractional
 * times), packs keep within their limit (a heavy group split by its times,
 * in order), bytes that are not a pack are refused; and raw visits stored
 * before packs (Deno KV's arrays of groups and of single records, PostgreSQL's
 * rows of `visits`) are still listed, counted, deleted and removed by the
 * retention beside new packs.
 */
import assert from "node:assert/strict";
import { KvVisits } from "../../db/kv/visits.ts";
import { packVisits, unpackVisits } from "../../db/visit_pack.ts";
import { groupVisits, visitsOf } from "../../db/visit_rollup.ts";
import type { VisitGroup, VisitRecord } from "../../db/visits.ts";
import { migratedPostgresTest } from "../helpers/stores.ts";
import { VISIT_START, visitAt } from "../helpers/visits.ts";

const U1 = { kind: "url", id: "u1" } as const;
const F1 = { kind: "file", id: "f1" } as const;

/** A group of `times` visits of `target` by `visitor`, a second apart. */
function group(target: typeof U1 | typeof F1, visitor: string, times: number): VisitGroup {
  const { at: _, ...record } = visitAt(target, 0, visitor);
  return { ...record, times: Array.from({ length: times }, (_, i) => VISIT_START + i * 1000) };
}

Deno.test("visit packs: a pack gives back its groups, per target, strings once", () => {
  const groups: VisitGroup[] = [
    { ...group(U1, "v1", 2), referrer: "news.example", country: "GB", browser: "Chrome" },
    { ...group(U1, "v2", 1), referrer: "ünïcode.example", os: "iOS", device: "mobile" },
    { ...group(F1, "v1", 1), ownerId: null, bot: true, device: "bot" },
    { ...group(U1, "v3", 1), referrer: "news.example", country: "GB", browser: "Chrome" },
    { ...group(U1, "v4", 1), times: [VISIT_START + 0.5] },
  ];
  const packs = packVisits(groups, 48 * 1024);
  assert.deepEqual(packs.map((p) => [p.targetKind, p.targetId, p.visits, p.at]), [
    ["url", "u1", 5, VISIT_START + 1000],
    ["file", "f1", 1, VISIT_START],
  ]);
  assert.deepEqual(unpackVisits(packs[0].bytes), groups.filter((g) => g.targetId === "u1"));
  assert.deepEqual(unpackVisits(packs[1].bytes), [groups[2]]);
  // A repeated string is named by its index: the fourth group costs less than the first.
  const one = packVisits([groups[0]], 1024)[0].bytes.length;
  const again = packVisits([groups[0], groups[3]], 1024)[0].bytes.length;
  assert.ok(again - one < one - 10, `${one} then ${again - one} bytes`);
});

Deno.test("visit packs: each within its limit, a heavy group split by its times in order", () => {
  const heavy = group(U1, "v1", 2500);
  const groups = [group(U1, "v0", 1), heavy, group(U1, "v2", 3)];
  const packs = packVisits(groups, 4096);
  assert.ok(packs.length >= 5, `${packs.length} packs`);
  for (const pack of packs) assert.ok(pack.bytes.length <= 4096, `${pack.bytes.length} bytes`);
  const back = packs.flatMap((p) => unpackVisits(p.bytes));
  assert.deepEqual(back.flatMap(visitsOf), groups.flatMap(visitsOf));
  assert.equal(packs.reduce((n, p) => n + p.visits, 0), 2504);
  for (const pack of packs) {
    assert.equal(pack.at, Math.max(...unpackVisits(pack.bytes).flatMap((g) => g.times)));
  }
  assert.throws(() => packVisits([group(U1, "v".repeat(5000), 1)], 4096), /outweighs/);
});

Deno.test("visit packs: bytes that are not a pack are refused", () => {
  const [pack] = packVisits([group(U1, "v1", 3)], 4096);
  assert.throws(() => unpackVisits(new Uint8Array([9, 1, 2])), /not a visit pack/);
  assert.throws(() => unpackVisits(pack.bytes.slice(0, pack.bytes.length - 3)), /ends early/);
  const bad = pack.bytes.slice();
  bad[1] = 7; // the target's kind names a string the pack has not held
  assert.throws(() => unpackVisits(bad), /lacks/);
});

/** Visits stored before packs, and one batch after. */
const OLD_GROUPED = [visitAt(U1, 1, "v1"), visitAt(U1, 2, "v1")];
const OLD_SINGLE = visitAt(U1, 3, "v2", { browser: "Firefox" });
const NEW = visitAt(U1, 30, "v3");

Deno.test("visit packs: Deno KV reads, deletes and expires the packs stored before", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const visits = new KvVisits(kv);
    const at = OLD_SINGLE.at.getTime();
    const old: [string, unknown[]][] = [["a", groupVisits(OLD_GROUPED)], ["b", [OLD_SINGLE]]];
    for (const [seq, value] of old) {
      await kv.atomic().set(["visits", "url", "u1", at, seq], value)
        .set(["visits_at", at, "url", "u1", seq], null).commit();
    }
    await visits.add(groupVisits([NEW]));
    const all = [...OLD_GROUPED, OLD_SINGLE, NEW];
    assert.deepEqual(await Array.fromAsync(visits.list("url", "u1")), all);
    // The retention takes the old packs (latest visit at minute 3), not the new one (and the
    // roll-ups' hour and day, which start before).
    assert.equal(await visits.deleteBefore(new Date(at + 1), 100), 2 + 3 + 3);
    assert.deepEqual(await Array.fromAsync(visits.list("url", "u1")), [NEW]);
    for (const [seq, value] of old) {
      await kv.atomic().set(["visits", "url", "u1", at, seq], value)
        .set(["visits_at", at, "url", "u1", seq], null).commit();
    }
    assert.equal(await visits.deleteTarget("url", "u1", "owner-a"), 4);
    assert.deepEqual(await Array.fromAsync(visits.list("url", "u1")), []);
    assert.deepEqual(await Array.fromAsync(kv.list({ prefix: ["visits_at"] })), []);
  } finally {
    kv.close();
  }
});

migratedPostgresTest(
  "visit packs: PostgreSQL reads, deletes and expires the rows of `visits` stored before",
  async (sql, store) => {
    const row = (v: VisitRecord, times: number[] | null) =>
      sql`INSERT INTO visits (target_kind, target_id, owner_id, at, referrer, country, browser,
          os, device, bot, visitor, times)
        VALUES (${v.targetKind}, ${v.targetId}, ${v.ownerId}, ${v.at}, ${v.referrer}, ${v.country},
          ${v.browser}, ${v.os}, ${v.device}, ${v.bot}, ${v.visitor},
          ${times === null ? null : times.map(String)}::bigint[])`;
    const insertOld = async () => {
      await row(OLD_GROUPED[1], OLD_GROUPED.map((v) => v.at.getTime()));
      await row(OLD_SINGLE, null);
    };
    await insertOld();
    await store.visits.add(groupVisits([NEW]));
    const all = [...OLD_GROUPED, OLD_SINGLE, NEW];
    assert.deepEqual(await Array.fromAsync(store.visits.list("url", "u1")), all);
    const before = new Date(OLD_SINGLE.at.getTime() + 1);
    // The two old rows, and the roll-ups' 3 hours, their 3 dimension rows (a device each), 3 days.
    assert.equal(await store.visits.deleteBefore(before, 100), 2 + 3 + 3 + 3);
    assert.deepEqual(await Array.fromAsync(store.visits.list("url", "u1")), [NEW]);
    await insertOld();
    assert.equal(await store.visits.deleteTarget("url", "u1", "owner-a"), 4);
    assert.deepEqual(await Array.fromAsync(store.visits.list("url", "u1")), []);
    const [left] =
      await sql`SELECT (SELECT count(*) FROM visits) + (SELECT count(*) FROM visit_packs) AS n`;
    assert.equal(Number(left.n), 0);
  },
);
