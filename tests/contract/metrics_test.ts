/** The metrics store's contract: one suite, run against Deno KV and PostgreSQL alike. */
import assert from "node:assert/strict";
import type { MetricRecord } from "../../db/metrics.ts";
import { type ContractSteps, contractSuite } from "../helpers/stores.ts";

const BASE = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

/** A snapshot taken `hours` after {@link BASE}. */
function metric(hours: number): MetricRecord {
  return { id: `m${hours}`, createdAt: new Date(BASE + hours * HOUR), data: { files: hours } };
}

const at = (hours: number) => new Date(BASE + hours * HOUR);

async function ids(records: AsyncIterable<MetricRecord>): Promise<string[]> {
  const out: string[] = [];
  for await (const r of records) out.push(r.id);
  return out;
}

const steps: ContractSteps = {
  "range: newest first, both ends included, open ends, counted alike": async (store) => {
    await store.metrics.add([0, 1, 2, 3, 4, 5].map(metric));
    const cases = [
      [{ from: at(1), to: at(3) }, ["m3", "m2", "m1"]],
      [{ from: at(4), to: null }, ["m5", "m4"]],
      [{ from: null, to: at(0) }, ["m0"]],
      [{ from: null, to: null }, ["m5", "m4", "m3", "m2", "m1", "m0"]],
      [{ from: new Date(at(1).getTime() + 1), to: new Date(at(2).getTime() - 1) }, []],
      [{ from: at(10), to: at(12) }, []],
    ] as const;
    for (const [range, expected] of cases) {
      assert.deepEqual(await ids(store.metrics.range(range)), expected);
      assert.equal(await store.metrics.countRange(range), expected.length);
    }
    const [first] = await Array.fromAsync(store.metrics.range({ from: at(2), to: at(2) }));
    assert.deepEqual(first, metric(2));
  },

  "range reads past one page": async (store) => {
    await store.metrics.add(Array.from({ length: 1200 }, (_, i) => metric(i)));
    const range = { from: at(100), to: null };
    const got = await ids(store.metrics.range(range));
    assert.equal(got.length, 1100);
    assert.equal(got[0], "m1199");
    assert.equal(got.at(-1), "m100");
    assert.equal(await store.metrics.countRange(range), 1100);
  },

  "a snapshot larger than a KV value is kept whole, among small ones": async (store) => {
    const big = { ...metric(1), data: { note: "é".repeat(200_000), list: [1.5, "ü", null] } };
    await store.metrics.add([metric(0), big, metric(2)]);
    assert.deepEqual(await Array.fromAsync(store.metrics.iterate()), [metric(0), big, metric(2)]);
    assert.deepEqual(await Array.fromAsync(store.metrics.range({ from: at(1), to: at(1) })), [big]);
    assert.equal(await store.metrics.count(), 3);
  },
};

contractSuite("metrics store contract", steps);
