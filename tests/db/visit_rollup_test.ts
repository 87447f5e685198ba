/**
 * Visits as groups (`db/visit_rollup.ts`): records become groups of visits
 * alike in all but their time and back, unchanged; a batch of groups rolls up
 * into hours with their dimensions and their visitors' sketch entries; parts
 * keep within their weight, splitting a heavy group by its times.
 */
import assert from "node:assert/strict";
import { entryOf, estimate, unionAll } from "../../db/hll.ts";
import {
  deltaSketch,
  groupVisits,
  HOUR_MS,
  rollUp,
  visitCount,
  visitsOf,
} from "../../db/visit_rollup.ts";
import type { VisitRecord } from "../../db/visits.ts";

const T = Date.UTC(2027, 2, 10, 10, 0, 0);

/** A visit of link `id` by `visitor` at `at`, from Chrome unless `browser` says. */
function visit(id: string, visitor: string, at: number, browser = "Chrome"): VisitRecord {
  return {
    targetKind: "url",
    targetId: id,
    ownerId: "alice",
    at: new Date(at),
    referrer: null,
    country: null,
    browser,
    os: "Windows",
    device: "desktop",
    bot: false,
    visitor,
  };
}

Deno.test("visit groups: records become groups and back unchanged", () => {
  const visits = [
    visit("a", "v1", T + 5),
    visit("a", "v1", T + 1),
    visit("a", "v2", T + 2),
    visit("a", "v1", T + 3, "Firefox"),
    visit("b", "v1", T + 4),
  ];
  const groups = groupVisits(visits);
  assert.equal(groups.length, 4);
  assert.deepEqual(groups[0].times, [T + 5, T + 1]);
  assert.equal(visitCount(groups), 5);
  const back = groups.flatMap(visitsOf).sort((x, y) => x.at.getTime() - y.at.getTime());
  assert.deepEqual(back, [...visits].sort((x, y) => x.at.getTime() - y.at.getTime()));
});

Deno.test("visit groups: a batch rolls up per hour, each hour with its visitors' entries", () => {
  const visits = [
    visit("a", "v1", T + HOUR_MS + 10), // v1's second hour
    visit("a", "v1", T + 10), // v1's first visit: its day's unique in this hour
    visit("a", "v1", T + 20),
    visit("a", "v2", T + HOUR_MS + 5, "Firefox"),
  ];
  const deltas = rollUp(groupVisits(visits));
  const link = (hour: number) => deltas.get(`url\0a\0${hour}`);
  assert.equal(link(T)?.visits, 2);
  assert.equal(link(T + HOUR_MS)?.visits, 2);
  assert.deepEqual([...link(T + HOUR_MS)!.dimensions].sort(), [
    ["browser\0Chrome", 1],
    ["browser\0Firefox", 1],
    ["device\0desktop", 2],
    ["os\0Windows", 2],
  ]);
  assert.equal(deltas.get(`server\0*\0${T}`)?.visits, 2);
  assert.equal(deltas.get(`owner\0alice\0${T + HOUR_MS}`)?.visits, 2);
  const uniques = (hour: number) => estimate(deltaSketch(link(hour)!)!);
  assert.equal(uniques(T), 1, "v1 twice");
  assert.equal(uniques(T + HOUR_MS), 2, "v1 and v2");
  assert.deepEqual(link(T + HOUR_MS)!.entries.sort(), [entryOf("v1"), entryOf("v2")].sort());
  const day = unionAll([deltaSketch(link(T)!)!, deltaSketch(link(T + HOUR_MS)!)!])!;
  assert.equal(estimate(day), 2, "the day's union: v1 and v2");
});
