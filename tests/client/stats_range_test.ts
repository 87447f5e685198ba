/**
 * The statistics page's time: presets ending now, a range of days from two
 * date inputs (local days, the last one included, never past now), the
 * period of the same length before it and the change against it; and the
 * donut of types' slices and shares.
 */
import assert from "node:assert/strict";
import { ask, askDates, change, DAY, dayInput, previousOf } from "../../client/stats_range.ts";
import { donutSlices, share } from "../../client/donut_slices.ts";

const NOW = new Date(2026, 10, 27, 15, 30).getTime();

Deno.test("client stats range: presets end now; previous periods have the same length", () => {
  assert.deepEqual(ask("week", NOW), { range: "week", from: NOW - 7 * DAY, to: NOW });
  assert.deepEqual(ask("all", NOW), { range: "all", from: null, to: NOW });
  assert.deepEqual(previousOf(ask("week", NOW)), {
    from: NOW - 14 * DAY,
    to: NOW - 7 * DAY,
    name: "the week before",
  });
  assert.equal(previousOf(ask("day", NOW))?.name, "the day before");
  assert.equal(previousOf(ask("month", NOW))?.name, "the 30 days before");
  assert.equal(previousOf(ask("year", NOW))?.name, "the year before");
  assert.equal(previousOf(ask("all", NOW)), null);
});

Deno.test("client stats range: two days make a range of local days, up to now", () => {
  assert.equal(dayInput(NOW), "2026-11-27");
  const past = askDates("2026-11-01", "2026-11-10", NOW);
  assert.deepEqual(past, {
    range: "custom",
    from: new Date(2026, 10, 1).getTime(),
    to: new Date(2026, 10, 11).getTime(),
  });
  assert.equal(previousOf(past as never)?.name, "the 10 days before");
  assert.deepEqual(askDates("2026-11-27", "2026-11-27", NOW), {
    range: "custom",
    from: new Date(2026, 10, 27).getTime(),
    to: NOW,
  }, "today ends now");
  assert.equal(askDates("2026-11-10", "2026-11-01", NOW), "The first day is after the last.");
  assert.equal(askDates("2026-11-28", "2026-11-30", NOW), "The first day has not begun yet.");
  assert.equal(askDates("", "2026-11-01", NOW), "Choose a first and a last day.");
  assert.equal(askDates("2026-02-30", "2026-03-01", NOW), "Choose a first and a last day.");
});

Deno.test("client stats range: the change of a total for people", () => {
  assert.deepEqual(change(4, 8), { text: "+100%", trend: "up" });
  assert.deepEqual(change(8, 6), { text: "−25%", trend: "down" });
  assert.deepEqual(change(3, 3), { text: "no change", trend: "same" });
  assert.deepEqual(change(0, 5), { text: "new", trend: "up" });
  assert.deepEqual(change(200, 203), { text: "+1.5%", trend: "up" });
  assert.deepEqual(change(100_000, 100_001), { text: "+<0.1%", trend: "up" });
});

Deno.test("client donut: slices largest first, the smallest beyond eight as other; shares", () => {
  const types = Array.from({ length: 10 }, (_, i) => ({ label: `t${i}`, value: i + 1 }));
  const slices = donutSlices([...types, { label: "none", value: 0 }]);
  assert.deepEqual(slices.map((s) => s.label), [
    "t9",
    "t8",
    "t7",
    "t6",
    "t5",
    "t4",
    "t3",
    "other",
  ]);
  assert.equal(slices.at(-1)?.value, 1 + 2 + 3);
  assert.equal(share(1, 3), "33%");
  assert.equal(share(1, 40), "2.5%");
  assert.equal(share(1, 5000), "<0.1%");
  assert.equal(share(0, 0), "0%");
});
