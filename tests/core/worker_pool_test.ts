/**
 * The worker pool (core/worker_pool.ts) with a test worker
 * (tests/helpers/pool_worker.ts): steps run off the main thread, tasks wait
 * for room by weight and by count in the order they came, a full queue
 * refuses, heavy and failed workers end, idle ones end after a while.
 */
import assert from "node:assert/strict";
import {
  PoolBusyError,
  type PoolOptions,
  WorkerJobError,
  WorkerPool,
} from "../../core/worker_pool.ts";
import type { PoolTestJob } from "../helpers/pool_worker.ts";
import { eventually } from "../helpers/wait.ts";

const WORKER = new URL("../helpers/pool_worker.ts", import.meta.url);

function testPool(options: Partial<PoolOptions> = {}): WorkerPool {
  return new WorkerPool({
    url: WORKER,
    name: "pool-test",
    size: 2,
    maxQueue: 10,
    timeoutMs: 30_000,
    recycleWeight: 0.1,
    idleMs: 60_000,
    ...options,
  });
}

/** Runs one step of `job` as a task of `weight`. */
const one = (pool: WorkerPool, weight: number, job: PoolTestJob) =>
  pool.run(weight, (step) => step(job));

/** A promise and its resolver, to hold a task open. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => open = resolve);
  return { open, opened };
}

Deno.test("worker pool: a light worker serves the next step, a heavy one ends after its step", async () => {
  const pool = testPool();
  try {
    const [a, b] = await pool.run(
      0.02,
      async (step) => [await step({ do: "id" }), await step({ do: "id" })],
    );
    assert.equal(a, b, "the same worker served both light steps");
    assert.equal(await one(pool, 0.02, { do: "id" }), a, "and the next light task");
    const heavy = await one(pool, 0.5, { do: "id" });
    assert.equal(heavy, a, "the kept worker takes the heavy step…");
    assert.notEqual(await one(pool, 0.05, { do: "id" }), a, "…and ends after it");
    assert.deepEqual(pool.stats(), {
      workers: 1,
      running: 0,
      queued: 0,
      started: 2,
      ended: 1,
      tasks: 4,
    });
  } finally {
    pool.close();
  }
});

Deno.test("worker pool: light steps wear a worker out: it ends once their weights add up", async () => {
  const pool = testPool();
  try {
    const first = await one(pool, 0.04, { do: "id" });
    assert.equal(await one(pool, 0.04, { do: "id" }), first, "0.08 of 0.1: kept");
    assert.equal(await one(pool, 0.04, { do: "id" }), first, "0.12: answered, then ended");
    assert.notEqual(await one(pool, 0.04, { do: "id" }), first, "a new worker takes the next");
    assert.equal(pool.stats().ended, 1);
  } finally {
    pool.close();
  }
});

Deno.test("worker pool: the main thread runs on while a worker computes", async () => {
  const pool = testPool();
  try {
    let ticks = 0;
    let done = false;
    const task = one(pool, 0.05, { do: "spin", ms: 600 }).finally(() => done = true);
    while (!done) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (!done) ticks++;
    }
    await task;
    assert.ok(ticks > 0, "timers fired on the main thread during the step");
  } finally {
    pool.close();
  }
});

Deno.test("worker pool: answers move their buffers", async () => {
  const pool = testPool();
  try {
    const bytes = await one(pool, 0.05, { do: "bytes", size: 1 << 20 }) as Uint8Array;
    assert.equal(bytes.byteLength, 1 << 20);
    assert.ok(bytes.every((b) => b === 7));
  } finally {
    pool.close();
  }
});

Deno.test("worker pool: tasks start in order while their weights add up to one at most", async () => {
  const pool = testPool({ size: 3 });
  try {
    const started: string[] = [];
    const gates = { a: gate(), b: gate(), c: gate() };
    const task = (name: keyof typeof gates, weight: number) =>
      pool.run(weight, async () => {
        started.push(name);
        await gates[name].opened;
      });
    const a = task("a", 0.6);
    const b = task("b", 0.6);
    const c = task("c", 0.3); // would fit beside a, but waits behind b
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(started, ["a"]);
    assert.deepEqual([pool.stats().running, pool.stats().queued], [1, 2]);
    gates.a.open();
    await a;
    await eventually("b and c started", () => Promise.resolve(started.length === 3));
    assert.deepEqual(started, ["a", "b", "c"], "0.6 + 0.3 fit together");
    gates.b.open();
    gates.c.open();
    await Promise.all([b, c]);

    // A weight of more than one runs alone, as one.
    const big = gate();
    const alone = pool.run(5, () => big.opened);
    const small = pool.run(0.01, () => Promise.resolve());
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual([pool.stats().running, pool.stats().queued], [1, 1]);
    big.open();
    await Promise.all([alone, small]);
  } finally {
    pool.close();
  }
});

Deno.test("worker pool: no more tasks at once than workers; a full queue refuses at once", async () => {
  const pool = testPool({ size: 1, maxQueue: 1 });
  try {
    const held = gate();
    const first = pool.run(0.01, () => held.opened);
    const second = pool.run(0.01, () => Promise.resolve("second"));
    await assert.rejects(pool.run(0.01, () => Promise.resolve()), PoolBusyError);
    assert.deepEqual([pool.stats().running, pool.stats().queued], [1, 1]);
    held.open();
    await first;
    assert.equal(await second, "second");
    assert.deepEqual([pool.stats().running, pool.stats().queued], [0, 0]);
  } finally {
    pool.close();
  }
});

Deno.test("worker pool: a failed, crashed or hung step fails its task and ends its worker", async () => {
  const pool = testPool({ timeoutMs: 500 });
  try {
    const kept = await one(pool, 0.01, { do: "id" });
    await assert.rejects(one(pool, 0.01, { do: "fail" }), (error: unknown) => {
      assert.ok(error instanceof WorkerJobError);
      assert.deepEqual([error.message, error.handled], ["the handler failed", true]);
      return true;
    });
    assert.notEqual(await one(pool, 0.01, { do: "id" }), kept, "the failed step's worker ended");
    await assert.rejects(one(pool, 0.01, { do: "crash" }), (error: unknown) => {
      assert.ok(error instanceof WorkerJobError);
      assert.equal(error.handled, false);
      assert.match(error.message, /the worker crashed/);
      return true;
    });
    await assert.rejects(one(pool, 0.01, { do: "hang" }), (error: unknown) => {
      assert.ok(error instanceof WorkerJobError);
      assert.equal(error.message, "no answer within 500 ms");
      return true;
    });
    const { workers, started, ended } = pool.stats();
    assert.equal(workers, started - ended);
    assert.equal(ended, 3, "the failed, the crashed and the hung worker");
    assert.equal(typeof await one(pool, 0.01, { do: "id" }), "string", "the pool goes on");
  } finally {
    pool.close();
  }
});

Deno.test("worker pool: idle workers end after idleMs, and at once on close()", async () => {
  const pool = testPool({ idleMs: 100 });
  try {
    await one(pool, 0.01, { do: "id" });
    assert.equal(pool.stats().workers, 1);
    await eventually("the idle worker ended", () => Promise.resolve(pool.stats().workers === 0));
    await one(pool, 0.01, { do: "id" });
  } finally {
    pool.close();
  }
  assert.equal(pool.stats().workers, 0);
});

Deno.test("worker pool: a step running at close() ends its worker when it finishes", async () => {
  const pool = testPool({ idleMs: 60_000 });
  try {
    const running = one(pool, 0.01, { do: "spin", ms: 200 });
    await eventually("the step started", () => Promise.resolve(pool.stats().running === 1));
    pool.close();
    await running;
    assert.equal(pool.stats().workers, 0, "no worker kept for a minute after the close");
    await one(pool, 0.01, { do: "id" });
    assert.equal(pool.stats().workers, 1, "a run after the close keeps its worker again");
  } finally {
    pool.close();
  }
});
