/** `Coalescer`: who waits, what goes together, and what each caller gets back. */
import assert from "node:assert/strict";
import { Coalescer } from "../../db/coalesce.ts";

/** A coalescer that records its batches and doubles each item; `fail` makes a batch throw. */
function recording(fail?: (items: number[]) => boolean) {
  const batches: number[][] = [];
  const coalescer = new Coalescer<number, number>(async (items) => {
    batches.push(items);
    await new Promise((resolve) => setTimeout(resolve, 2));
    if (fail?.(items)) throw new Error(`batch ${items.join(",")} failed`);
    return items.map((item) => item * 2);
  });
  return { batches, coalescer };
}

Deno.test("coalescer: the first call goes at once, the calls made meanwhile go together next", async () => {
  const { batches, coalescer } = recording();
  const answers = await Promise.all([1, 2, 3, 4].map((n) => coalescer.run(n)));
  assert.deepEqual(answers, [2, 4, 6, 8]);
  assert.deepEqual(batches, [[1], [2, 3, 4]]);
});

Deno.test("coalescer: sequential calls are each flushed at once", async () => {
  const { batches, coalescer } = recording();
  for (const n of [1, 2, 3]) assert.equal(await coalescer.run(n), n * 2);
  assert.deepEqual(batches, [[1], [2], [3]]);
});

Deno.test("coalescer: a failed batch rejects its own callers only", async () => {
  const { coalescer } = recording((items) => items.includes(2));
  const results = await Promise.allSettled([1, 2, 3].map((n) => coalescer.run(n)));
  assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "rejected"]);
  assert.equal(await coalescer.run(5), 10, "the coalescer goes on after a failure");
});
