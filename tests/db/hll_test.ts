/**
 * HyperLogLog sketches (`db/hll.ts`): small counts exact (sparse), large ones
 * within three standard errors at 10k, 100k and 1M visitors of a seeded
 * input, a union the same as the sketch of both inputs (register-wise max,
 * sparse or dense, in any order), and the stored bytes round trip.
 */
import assert from "node:assert/strict";
import {
  decodeSketch,
  encodeSketch,
  entryOf,
  ERROR_BOUND,
  estimate,
  M,
  type Sketch,
  sketchOf,
  SPARSE_MAX,
  union,
  unionAll,
} from "../../db/hll.ts";

/** `n` visitor hashes (16 hex digits) from a seeded generator (mulberry32, twice a hash). */
function visitors(n: number, seed: number): string[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const hex = (x: number) => x.toString(16).padStart(8, "0");
  return Array.from({ length: n }, () => hex(next()) + hex(next()));
}

const sketch = (list: string[]): Sketch => sketchOf(list.map(entryOf));

Deno.test("hll: 1 to 300 distinct visitors count exactly, repeats once", () => {
  const all = visitors(300, 1);
  for (let n = 1; n <= all.length; n++) {
    assert.equal(estimate(sketch(all.slice(0, n))), n, `${n} visitors`);
  }
  assert.equal(estimate(sketch([...all.slice(0, 3), ...all.slice(0, 3), all[0]])), 3);
  assert.equal(estimate(sketch(["v1", "v2", "v1"])), 2, "other strings are hashed first");
  assert.equal(estimate(sketchOf([])), 0);
});

Deno.test("hll: up to the sparse limit the count is exact or off by a collision", () => {
  const all = visitors(SPARSE_MAX, 2);
  const s = sketch(all);
  assert.ok(s instanceof Uint32Array, "still sparse");
  assert.ok(Math.abs(estimate(s) - SPARSE_MAX) <= 2, `${estimate(s)}`);
  assert.ok(sketch([...all, ...visitors(1, 3)]) instanceof Uint8Array, "one more: dense");
});

Deno.test("hll: 10k, 100k and 1M visitors within three standard errors (2.4 %)", () => {
  for (const n of [10_000, 100_000, 1_000_000]) {
    const got = estimate(sketch(visitors(n, n)));
    const error = Math.abs(got - n) / n;
    assert.ok(error < ERROR_BOUND, `${n}: ${got} (${(100 * error).toFixed(2)} %)`);
  }
});

Deno.test("hll: a union is the sketch of both inputs: register-wise max, in any order", () => {
  const all = visitors(12_000, 4);
  const cases: [string[], string[]][] = [
    [all.slice(0, 40), all.slice(20, 90)], // sparse and sparse
    [all.slice(0, 2000), all.slice(1000, 3000)], // sparse and sparse, dense together
    [all.slice(0, 8000), all.slice(7000, 7100)], // dense and sparse
    [all.slice(0, 6000), all.slice(5000, 12_000)], // dense and dense
  ];
  for (const [a, b] of cases) {
    const both = sketch([...a, ...b]);
    assert.deepEqual(union(sketch(a), sketch(b)), both);
    assert.deepEqual(union(sketch(b), sketch(a)), both);
    assert.deepEqual(unionAll([sketch(b), sketch(a)]), both);
  }
  const dense = sketch(all) as Uint8Array;
  assert.equal(dense.length, M);
  const halves = [sketch(all.slice(0, 6000)), sketch(all.slice(6000))] as Uint8Array[];
  for (let k = 0; k < M; k++) assert.equal(dense[k], Math.max(halves[0][k], halves[1][k]));
  assert.equal(unionAll([]), null);
});

Deno.test("hll: stored bytes round trip; sparse 4 bytes a visitor, dense 12,289 bytes", () => {
  const small = sketch(visitors(10, 5));
  const bytes = encodeSketch(small);
  assert.equal(bytes.length, 1 + 4 * 10);
  assert.deepEqual(decodeSketch(bytes), small);
  const big = sketch(visitors(20_000, 6));
  const dense = encodeSketch(big);
  assert.equal(dense.length, 12_289);
  assert.deepEqual(decodeSketch(dense), big);
  assert.deepEqual(decodeSketch(dense.slice()), big);
  assert.throws(() => decodeSketch(new Uint8Array([9, 1, 2])), /not a stored sketch/);
});

Deno.test("hll: a visitor hash's entry is read from its 16 hex digits; other strings are hashed", () => {
  // Index: the top 25 bits; rank: the leading zeros of the 39 after them, plus one.
  assert.equal(entryOf("00000001fedcba98"), 0 * 64 + 7);
  assert.equal(entryOf("000000000fedcba9"), 0 * 64 + 7 + 4 + 1);
  assert.equal(entryOf("8000000000000000"), (1 << 24) * 64 + 40);
  assert.equal(entryOf("ffffffffffffffff"), (2 ** 25 - 1) * 64 + 1);
  assert.notEqual(entryOf("00000001FEDCBA98"), entryOf("00000001fedcba98"), "upper case: hashed");
  assert.notEqual(entryOf("0000000gfedcba98"), entryOf("0000000afedcba98"), "not hex: hashed");
  assert.equal(entryOf("v1"), entryOf("v1"));
});
