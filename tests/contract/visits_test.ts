/**
 * The visit store contract (`db/visits.ts`), run against Deno KV and
 * PostgreSQL: a batch stored raw and rolled up per hour for its target, its
 * owner and the server; visitors counted once per hour and per day across
 * batches and concurrent writers (their sketches' union), many distinct
 * visitors within the estimate's bound; ranges and dimensions; hours written in
 * bulk; deleting a link's or a file's visits with it, and an owner's roll-up;
 * the retention's removal of old records and salts.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { Backend } from "../../db/store.ts";
import {
  SERVER_SCOPE,
  type VisitDimensionCount,
  type VisitHour,
  type VisitScope,
} from "../../db/visits.ts";
import { ERROR_BOUND, unionAll } from "../../db/hll.ts";
import { groupVisits } from "../../db/visit_rollup.ts";
import { dayUniques, hourUniques } from "../../db/visit_uniques.ts";
import { type ContractSteps, contractSuite } from "../helpers/stores.ts";
import { VISIT_START, visitAt } from "../helpers/visits.ts";

const START = VISIT_START;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const U1 = { kind: "url", id: "u1" } as const;
const U2 = { kind: "url", id: "u2" } as const;
const F1 = { kind: "file", id: "f1" } as const;
const OWNER: VisitScope = { kind: "owner", id: "owner-a" };

const CHROME = { referrer: "news.example", country: "GB", browser: "Chrome", os: "Windows" };
const IPHONE = { browser: "Mobile Safari", os: "iOS", device: "mobile" };

/** The visits every step below starts from (two batches), and what they are. */
const A = visitAt(U1, 5, "v1", CHROME);
const B = visitAt(U1, 40, "v2", IPHONE);
const C = visitAt(U1, 70, "v1", CHROME); // the next hour, the same visitor
const D = visitAt(F1, 20, "v1", { browser: "Firefox", os: "Linux" });
const E = visitAt(U2, 30, "v3", { ownerId: null, browser: "Chrome" });

async function seed(store: Backend) {
  await store.visits.add(groupVisits([A, B, D, E]));
  await store.visits.add(groupVisits([C]));
}

/** `[hour offset from START in hours, visits, unique visitors]` of each hour. */
function shape(hours: VisitHour[]): number[][] {
  return hours.map((h) => [(h.hour.getTime() - START) / HOUR, h.visits, hourUniques(h)]);
}

/**
 * The unique visitors of `scope` on START's day: its day sketch, which must
 * be the union of its hours' sketches.
 */
async function dayOf(store: Backend, scope: VisitScope): Promise<number> {
  const [from, to] = [new Date(START - 10 * HOUR), new Date(START + 14 * HOUR)];
  const hours = await store.visits.hours(scope, from, to);
  const days = await store.visits.days(scope, from, to);
  assert.ok(days.length <= 1 && days.every((d) => d.day.getTime() === from.getTime()));
  const sketches = hours.flatMap((h) => h.sketch === null ? [] : [h.sketch]);
  assert.deepEqual(days[0]?.sketch ?? null, unionAll(sketches), "the day's: its hours' union");
  return dayUniques(hours, days[0]?.sketch ?? null);
}

/** Every hour of `scope` over two days around START, with visits. */
async function hoursOf(store: Backend, scope: VisitScope): Promise<number[][]> {
  const hours = await store.visits.hours(scope, new Date(START - DAY), new Date(START + DAY));
  return shape(hours.filter((h) => h.visits > 0));
}

/** Dimension counts as sorted `dimension:value=count` strings. */
function counts(list: VisitDimensionCount[]): string[] {
  return list.map((c) => `${c.dimension}:${c.value}=${c.count}`).sort();
}

const steps: ContractSteps = {
  "a batch is kept raw, oldest first, as it was given": async (store) => {
    await seed(store);
    assert.deepEqual(await Array.fromAsync(store.visits.list("url", "u1")), [A, B, C]);
    assert.deepEqual(await Array.fromAsync(store.visits.list("file", "f1")), [D]);
    assert.deepEqual(await Array.fromAsync(store.visits.list("url", "u2")), [E]);
    assert.deepEqual(await Array.fromAsync(store.visits.list("file", "u1")), [], "kind counts");
    assert.deepEqual(await Array.fromAsync(store.visits.list("url", "none")), []);
  },
  "hours roll up per target, owner and server, each visitor once an hour and once a day": async (
    store,
  ) => {
    await seed(store);
    // [hour, visits, unique visitors]: v1 comes back in the next hour, same day.
    assert.deepEqual(await hoursOf(store, U1), [[0, 2, 2], [1, 1, 1]]);
    assert.equal(await dayOf(store, U1), 2, "v1 once in its day");
    assert.deepEqual(await hoursOf(store, F1), [[0, 1, 1]]);
    assert.deepEqual(
      await hoursOf(store, OWNER),
      [[0, 3, 2], [1, 1, 1]],
      "v1 of the link and the file is one visitor of the owner's",
    );
    assert.equal(await dayOf(store, OWNER), 2);
    assert.deepEqual(await hoursOf(store, SERVER_SCOPE), [[0, 4, 3], [1, 1, 1]]);
    assert.equal(await dayOf(store, SERVER_SCOPE), 3);
    assert.deepEqual(await hoursOf(store, { kind: "owner", id: "nobody" }), []);
  },
  "a range is [from, to) on hours; dimensions are summed over it": async (store) => {
    await seed(store);
    const first = await store.visits.hours(U1, new Date(START), new Date(START + HOUR));
    assert.deepEqual(shape(first), [[0, 2, 2]]);
    const second = await store.visits.hours(U1, new Date(START + HOUR), new Date(START + DAY));
    assert.deepEqual(shape(second), [[1, 1, 1]]);
    assert.deepEqual(await store.visits.hours(U1, new Date(START - DAY), new Date(START)), []);

    assert.deepEqual(
      counts(await store.visits.dimensions(U1, new Date(START), new Date(START + 2 * HOUR))),
      [
        "browser:Chrome=2",
        "browser:Mobile Safari=1",
        "country:GB=2",
        "device:desktop=2",
        "device:mobile=1",
        "os:Windows=2",
        "os:iOS=1",
        "referrer:news.example=2",
      ],
      "no referrer and no country are not values",
    );
    assert.deepEqual(
      counts(await store.visits.dimensions(U1, new Date(START + HOUR), new Date(START + DAY))),
      [
        "browser:Chrome=1",
        "country:GB=1",
        "device:desktop=1",
        "os:Windows=1",
        "referrer:news.example=1",
      ],
    );
    assert.deepEqual(
      counts(await store.visits.dimensions(SERVER_SCOPE, new Date(START), new Date(START + DAY))),
      [
        "browser:Chrome=3",
        "browser:Firefox=1",
        "browser:Mobile Safari=1",
        "country:GB=2",
        "device:desktop=4",
        "device:mobile=1",
        "os:Linux=1",
        "os:Windows=2",
        "os:iOS=1",
        "referrer:news.example=2",
      ],
    );
  },
  "concurrent batches of one visitor count it once": async (store) => {
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        store.visits.add(groupVisits([visitAt(U1, 10 + i, "v1", CHROME)]))
      ),
    );
    assert.deepEqual(await hoursOf(store, U1), [[0, 5, 1]]);
    assert.deepEqual(await hoursOf(store, SERVER_SCOPE), [[0, 5, 1]]);
    const dims = await store.visits.dimensions(U1, new Date(START), new Date(START + HOUR));
    assert.ok(counts(dims).includes("browser:Chrome=5"));
    assert.equal((await Array.fromAsync(store.visits.list("url", "u1"))).length, 5);
  },
  "the next day's visit of the same hash is a new day's visitor": async (store) => {
    await store.visits.add(groupVisits([visitAt(U1, 0, "v1")]));
    await store.visits.add(groupVisits([visitAt(U1, 24 * 60, "v1")]));
    const hours = await store.visits.hours(U1, new Date(START), new Date(START + 2 * DAY));
    assert.deepEqual(shape(hours), [[0, 1, 1], [24, 1, 1]]);
  },
  "hours written in bulk (exact counts, as before sketches) add to what is there": async (
    store,
  ) => {
    await store.visits.addHours([{
      scope: U1,
      hour: new Date(START),
      visits: 10,
      hourUniques: 4,
      dayUniques: 3,
      dimensions: [{ dimension: "browser", value: "Chrome", count: 10 }],
    }]);
    await store.visits.add(groupVisits([visitAt(U1, 15, "new", { browser: "Chrome" })]));
    // The exact counts carried, plus the sketch's visitor.
    assert.deepEqual(await hoursOf(store, U1), [[0, 11, 5]]);
    assert.equal(await dayOf(store, U1), 4);
    assert.deepEqual(
      counts(await store.visits.dimensions(U1, new Date(START), new Date(START + HOUR))),
      ["browser:Chrome=11", "device:desktop=1"],
    );
  },
  "deleting a link's visits takes them out of its owner's and the server's": async (store) => {
    await seed(store);
    assert.equal(await store.visits.deleteTarget("url", "u1", "owner-a"), 3);
    assert.deepEqual(await Array.fromAsync(store.visits.list("url", "u1")), []);
    assert.deepEqual(await hoursOf(store, U1), []);
    const dims = await store.visits.dimensions(U1, new Date(START), new Date(START + DAY));
    assert.deepEqual(dims, []);
    // The file's visit is left; unique counts lose the link's own, at most (db/visits.ts).
    const owner = await hoursOf(store, OWNER);
    assert.deepEqual(owner.map(([hour, visits]) => [hour, visits]), [[0, 1]]);
    assert.ok(owner[0][2] <= 1, "never more visitors than visits");
    const server = await hoursOf(store, SERVER_SCOPE);
    assert.deepEqual(server.map(([hour, visits]) => [hour, visits]), [[0, 2]]);
    assert.deepEqual(
      counts(await store.visits.dimensions(OWNER, new Date(START), new Date(START + DAY))),
      ["browser:Firefox=1", "device:desktop=1", "os:Linux=1"],
    );
    assert.deepEqual(await Array.fromAsync(store.visits.list("file", "f1")), [D], "kept");
  },
  "deleting an owner-less link's visits takes them out of the server's": async (store) => {
    await seed(store);
    assert.equal(await store.visits.deleteTarget("url", "u2", null), 1);
    assert.deepEqual(await hoursOf(store, U2), []);
    const server = await hoursOf(store, SERVER_SCOPE);
    assert.deepEqual(server.map(([hour, visits]) => [hour, visits]), [[0, 3], [1, 1]]);
    assert.deepEqual(await hoursOf(store, OWNER), [[0, 3, 2], [1, 1, 1]], "untouched");
    assert.equal(await store.visits.deleteTarget("url", "u2", null), 0, "nothing left");
  },
  "deleting a file's visits, then an owner's roll-up": async (store) => {
    await seed(store);
    assert.equal(await store.visits.deleteTarget("file", "f1", "owner-a"), 1);
    assert.deepEqual(await Array.fromAsync(store.visits.list("file", "f1")), []);
    const owner = await hoursOf(store, OWNER);
    assert.deepEqual(owner.map(([hour, visits]) => [hour, visits]), [[0, 2], [1, 1]]);
    await store.visits.deleteOwner("owner-a");
    assert.deepEqual(await hoursOf(store, OWNER), []);
    assert.deepEqual(
      await store.visits.dimensions(OWNER, new Date(START), new Date(START + DAY)),
      [],
    );
    assert.equal((await hoursOf(store, SERVER_SCOPE)).length, 2, "the server's is kept");
    assert.equal((await Array.fromAsync(store.visits.list("url", "u1"))).length, 3);
  },
  "the retention removes what is older, a limit at a time, and keeps the rest": async (store) => {
    await seed(store);
    const later = visitAt(U1, 20 * 24 * 60, "v9", IPHONE); // 20 days on
    await store.visits.add(groupVisits([later]));
    const cutoff = new Date(START + 10 * DAY);
    assert.equal(await store.visits.deleteBefore(cutoff, 1), 1, "one at most");
    let removed = 1;
    for (let pass = 0; pass < 100; pass++) {
      const n = await store.visits.deleteBefore(cutoff, 50);
      if (n === 0) break;
      removed += n;
    }
    assert.ok(removed >= 5 + 6, `the raw visits and their hours at least: ${removed}`);
    assert.equal(await store.visits.deleteBefore(cutoff, 50), 0, "nothing left");
    assert.deepEqual(await Array.fromAsync(store.visits.list("url", "u1")), [later]);
    assert.deepEqual(await Array.fromAsync(store.visits.list("file", "f1")), []);
    const all = await store.visits.hours(U1, new Date(0), new Date(START + 30 * DAY));
    assert.deepEqual(shape(all), [[20 * 24, 1, 1]]);
    assert.deepEqual(
      await store.visits.dimensions(SERVER_SCOPE, new Date(0), cutoff),
      [],
      "old hours' dimensions went with them",
    );
    // The later hour's sketch was kept: the same visitor there is still counted once.
    await store.visits.add(groupVisits([visitAt(U1, 20 * 24 * 60 + 5, "v9", IPHONE)]));
    const after = await store.visits.hours(U1, new Date(cutoff), new Date(START + 30 * DAY));
    assert.deepEqual(shape(after), [[20 * 24, 2, 1]]);
  },
  "many distinct visitors of one batch and hour count within the bound": async (store) => {
    // Visitor hashes as the recorder makes them: 16 hex digits of a SHA-256.
    const distinct = (n: number, from: number) =>
      Array.from(
        { length: n },
        (_, i) => createHash("sha256").update(String(from + i)).digest("hex").slice(0, 16),
      );
    // 1,000: sparse, exact in practice; 20,000 more over two batches (a dense sketch).
    await store.visits.add(groupVisits(distinct(1000, 0).map((v, i) => visitAt(U1, i % 60, v))));
    assert.deepEqual(await hoursOf(store, U1), [[0, 1000, 1000]]);
    for (const from of [1000, 11_000]) {
      await store.visits.add(
        groupVisits(distinct(10_000, from).map((v, i) => visitAt(U1, i % 60, v))),
      );
    }
    const [[, visits, uniques]] = await hoursOf(store, U1);
    assert.equal(visits, 21_000);
    const error = Math.abs(uniques - 21_000) / 21_000;
    assert.ok(error < ERROR_BOUND, `${uniques} visitors of 21,000: ${(100 * error).toFixed(2)} %`);
    assert.equal(await dayOf(store, SERVER_SCOPE), uniques, "one hour: the day's is the same");
  },
  "a day's salt is stored once; old salts are deleted": async (store) => {
    assert.equal(await store.visits.salt("2027-03-09", "first"), "first");
    assert.equal(await store.visits.salt("2027-03-09", "second"), "first", "the stored one");
    const raced = await Promise.all(
      ["a", "b", "c"].map((fresh) => store.visits.salt("2027-03-10", fresh)),
    );
    assert.equal(new Set(raced).size, 1, `one salt for a day, however many ask: ${raced}`);
    assert.equal(await store.visits.salt("2027-03-11", "third"), "third");
    assert.equal(await store.visits.deleteSaltsBefore("2027-03-11"), 2);
    assert.equal(await store.visits.salt("2027-03-09", "new"), "new", "deleted, so new");
    assert.equal(await store.visits.salt("2027-03-11", "other"), "third", "kept");
    assert.equal(await store.visits.deleteSaltsBefore("2027-03-01"), 0);
  },
};

contractSuite("visits", steps);
