/**
 * The one time-to-live idiom (`db/fresh_cache.ts`), on a time given as a
 * number: an answer is used until its time is up and loaded again after; a
 * load in flight is shared and a failed one not kept; past its time a
 * stale-while-refreshing answer is still given while one new load replaces
 * it; near its end a refreshed-ahead one starts its replacement; the cache keeps within its entries and its bytes.
 */
import assert from "node:assert/strict";
import { approxBytes, FreshCache, type FreshOptions } from "../../db/fresh_cache.ts";

/** A cache of `options` (a second, roomy unless said) and a load counting its calls. */
function cache<V>(options: Partial<FreshOptions<V>> = {}) {
  const fresh = new FreshCache<V>({
    ttlMs: 1000,
    maxEntries: 100,
    maxBytes: 1024 * 1024,
    ...options,
  });
  let loads = 0;
  const load = (value: V) => () => {
    loads++;
    return Promise.resolve(value);
  };
  return { fresh, load, loads: () => loads };
}

Deno.test("fresh cache: an answer is used for its time from its load, then loaded again", async () => {
  const { fresh, load, loads } = cache<string>();
  assert.equal(await fresh.get("k", 0, load("one")), "one");
  assert.equal(await fresh.get("k", 999, load("two")), "one");
  assert.deepEqual(fresh.peek("k", 999), { value: "one" });
  assert.equal(fresh.peek("k", 1000), undefined, "past its time, peek has nothing");
  assert.equal(await fresh.get("k", 1000, load("two")), "two");
  assert.equal(loads(), 2);
});

Deno.test("fresh cache: a load in flight is shared; peek waits for nothing", async () => {
  const { fresh } = cache<string>();
  const { promise, resolve } = Promise.withResolvers<string>();
  let loads = 0;
  const load = () => (loads++, promise);
  const first = fresh.get("k", 0, load);
  const later = fresh.get("k", 5000, load);
  assert.equal(fresh.peek("k", 0), undefined, "not arrived yet");
  resolve("once");
  assert.deepEqual([await first, await later], ["once", "once"]);
  assert.equal(loads, 1);
});

Deno.test("fresh cache: a failed load is not kept", async () => {
  const { fresh, load } = cache<string>();
  await assert.rejects(fresh.get("k", 0, () => Promise.reject(new Error("down"))));
  assert.equal(await fresh.get("k", 0, load("up")), "up");
});

Deno.test("fresh cache: the time may depend on the answer", async () => {
  const { fresh, load, loads } = cache<string | null>({
    ttlMs: (value) => value === null ? 10 : 1000,
  });
  assert.equal(await fresh.get("miss", 0, load(null)), null);
  assert.equal(await fresh.get("hit", 0, load("yes")), "yes");
  assert.equal(fresh.peek("miss", 10), undefined);
  assert.deepEqual(fresh.peek("hit", 10), { value: "yes" });
  assert.equal(loads(), 2);
});

Deno.test("fresh cache: delete and clear forget; set keeps a value as a load would", async () => {
  const { fresh, load, loads } = cache<string>();
  await fresh.get("a", 0, load("a"));
  await fresh.get("b", 0, load("b"));
  fresh.delete("a");
  assert.equal(fresh.peek("a", 0), undefined);
  assert.deepEqual(fresh.peek("b", 0), { value: "b" });
  fresh.clear();
  assert.equal(fresh.peek("b", 0), undefined);
  assert.deepEqual(fresh.size, { entries: 0, bytes: 0 });
  fresh.set("c", 0, "c");
  assert.equal(await fresh.get("c", 999, load("not asked")), "c");
  assert.equal(loads(), 2);
});

Deno.test("fresh cache: stale while refreshing, one refresh, replaced unless forgotten", async () => {
  const { fresh } = cache<string>({ staleWhileRefresh: true });
  await fresh.get("k", 0, () => Promise.resolve("old"));
  const next = Promise.withResolvers<string>();
  let refreshes = 0;
  const refresh = () => (refreshes++, next.promise);
  assert.equal(await fresh.get("k", 1000, refresh), "old", "past its time: the old answer");
  assert.equal(await fresh.get("k", 1500, refresh), "old", "and again, one refresh under way");
  next.resolve("new");
  await next.promise;
  assert.equal(await fresh.get("k", 1500, refresh), "new", "the refresh replaced it");
  assert.equal(refreshes, 1);
  assert.deepEqual(fresh.peek("k", 1999), { value: "new" }, "fresh from the refresh's start");

  const late = Promise.withResolvers<string>();
  assert.equal(await fresh.get("k", 2000, () => late.promise), "new");
  fresh.delete("k");
  late.resolve("late");
  await late.promise;
  assert.equal(fresh.peek("k", 2000), undefined, "a refresh begun before a forget is dropped");
});

Deno.test("fresh cache: refreshed ahead near its end, the old answer meanwhile, never past its time", async () => {
  const { fresh } = cache<string>({ refreshAheadMs: 300 });
  await fresh.get("k", 0, () => Promise.resolve("old"));
  const next = Promise.withResolvers<string>();
  let loads = 0;
  const load = () => (loads++, next.promise);
  assert.deepEqual(fresh.peek("k", 699, load), { value: "old" });
  assert.equal(await fresh.get("k", 699, load), "old");
  assert.equal(loads, 0, "not yet near its end: nothing loaded");
  assert.deepEqual(fresh.peek("k", 700, load), { value: "old" }, "near its end: the old answer");
  assert.equal(await fresh.get("k", 800, load), "old", "and again, one load under way");
  assert.equal(fresh.peek("k", 1000, load), undefined, "never past its time");
  assert.equal(loads, 1);
  next.resolve("new");
  await next.promise;
  assert.deepEqual(fresh.peek("k", 1000), { value: "new" }, "replaced by the load");
  assert.equal(fresh.peek("k", 1700), undefined, "fresh from the load's start (700)");
  assert.equal(fresh.peek("missing", 0, load), undefined);
  assert.equal(loads, 1, "peek loads nothing that is not cached");

  const late = Promise.withResolvers<string>();
  assert.equal(await fresh.get("k", 1500, () => late.promise), "new");
  fresh.delete("k");
  late.resolve("late");
  await late.promise;
  assert.equal(fresh.peek("k", 1500), undefined, "a load begun before a forget is dropped");
});

Deno.test("fresh cache: past its time, a replacement refreshed ahead and still in flight is waited for, not loaded again", async () => {
  const { fresh } = cache<string>({ refreshAheadMs: 300 });
  await fresh.get("k", 0, () => Promise.resolve("old"));
  const next = Promise.withResolvers<string>();
  let loads = 0;
  const load = () => (loads++, next.promise);
  assert.equal(await fresh.get("k", 800, load), "old");
  const waited = fresh.get("k", 1000, load);
  assert.equal(loads, 1, "one load in flight");
  next.resolve("new");
  assert.equal(await waited, "new");
  assert.deepEqual(fresh.peek("k", 1500), { value: "new" });
});

Deno.test("fresh cache: bounded in entries and in bytes, the oldest going first", async () => {
  const { fresh, load } = cache<string>({ maxEntries: 2 });
  for (const key of ["a", "b", "c"]) await fresh.get(key, 0, load(key));
  assert.equal(fresh.peek("a", 0), undefined);
  assert.equal(fresh.size.entries, 2);

  const sized = cache<string>({ maxBytes: 100, sizeOf: (value) => value.length });
  for (const key of ["a", "b", "c"]) await sized.fresh.get(key, 0, sized.load("x".repeat(40)));
  assert.equal(sized.fresh.peek("a", 0), undefined, "the oldest made room");
  assert.deepEqual(sized.fresh.peek("c", 0), { value: "x".repeat(40) });
  assert.ok(sized.fresh.size.bytes <= 100);
  await sized.fresh.get("huge", 0, sized.load("x".repeat(500)));
  assert.equal(
    sized.fresh.peek("huge", 0),
    undefined,
    "an answer larger than the bound is not kept",
  );
  assert.deepEqual(sized.fresh.size, { entries: 0, bytes: 0 });
});

Deno.test("approxBytes: strings by length, records by their fields, long arrays sampled", () => {
  assert.equal(approxBytes("abcd"), 16 + 8);
  assert.ok(approxBytes({ name: "x".repeat(1000) }) > 2000);
  const records = Array.from({ length: 1000 }, (_, i) => ({ id: `id-${i}`, at: new Date(0) }));
  const measured = records.reduce((n, record) => n + 8 + approxBytes(record), 16);
  const estimate = approxBytes(records);
  assert.ok(Math.abs(estimate - measured) < measured * 0.05, `${estimate} against ${measured}`);
});
