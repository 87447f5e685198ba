/**
 * `OwnedRateLimits` on a manual clock: who counts where, and when the
 * counting changes hands, without waiting in real time. Each handle is a
 * process of its own (its own KV handle on one file, its own ticks); the
 * exact counts across real stores are the contract suite's
 * (tests/contract/rate_limit_sharing_test.ts).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { KvLeases } from "../../db/kv/leases.ts";
import { patient } from "../../db/kv/patient.ts";
import { KvRateLimits } from "../../db/kv/rate_limits.ts";
import type { Timer } from "../../core/clock.ts";
import {
  IDLE_MS,
  OwnedRateLimits,
  RENEW_MS,
  STALE_MS,
  TERM_MS,
} from "../../db/rate_limit_owner.ts";

/** A tick or a sleep due at `at` (ms), of the handle `of`. */
interface Due {
  at: number;
  of: object;
  run: () => unknown;
  /** For ticks: how often they come again. */
  every?: number;
  stopped?: boolean;
}

/** One clock for every handle, and their ticks and sleeps, run as the clock is moved. */
class ManualTime {
  now = Date.UTC(2026, 0, 1, 12);
  #due: Due[] = [];
  #crashed = new Set<object>();

  /** A handle's {@link Timer}. */
  timer(of: object): Timer {
    return {
      now: () => this.now,
      every: (ms, tick) => {
        const due: Due = { at: this.now + ms, of, run: tick, every: ms };
        this.#due.push(due);
        return () => due.stopped = true;
      },
      sleep: (ms) =>
        new Promise((resolve) => this.#due.push({ at: this.now + ms, of, run: resolve })),
    };
  }

  /** The handle `of` no longer ticks or wakes: a process that died. */
  crash(of: object): void {
    this.#crashed.add(of);
  }

  /** Moves the clock by `ms`, running what falls due in order and waiting for each tick. */
  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    while (true) {
      const live = this.#due.filter((d) => !d.stopped && !this.#crashed.has(d.of));
      const next = live.filter((d) => d.at <= end).sort((x, y) => x.at - y.at)[0];
      if (next === undefined) break;
      this.now = next.at;
      if (next.every) next.at += next.every;
      else this.#due.splice(this.#due.indexOf(next), 1);
      await next.run();
      await new Promise((resolve) => setTimeout(resolve, 1)); // the store's I/O that follows
    }
    this.now = end;
  }

  /** Moves the clock on in small steps until `promise` settles; its value. */
  async until<T>(promise: Promise<T>): Promise<T> {
    let settled = false;
    promise.finally(() => settled = true).catch(() => {});
    for (let i = 0; i < 5000 && !settled; i++) {
      await this.advance(100);
      await new Promise((resolve) => setTimeout(resolve, 1)); // the store's I/O under way
    }
    return await promise;
  }
}

/** Resolves with `promise` if it settles without the clock moving; throws if it waits. */
async function atOnce<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("waited for the clock")), 2000);
  });
  try {
    return await Promise.race([promise, waited]);
  } finally {
    clearTimeout(timer);
  }
}

const WINDOW = { start: Date.UTC(2026, 0, 1, 12), ms: 3_600_000 };

/** What a test gets: the clock, the handles, a hit counted on one, and a way to kill one. */
interface Processes {
  time: ManualTime;
  handles: OwnedRateLimits[];
  /** Counts one request on `h` in a window of an hour; the count it answers. */
  hit(h: OwnedRateLimits): Promise<number>;
  /** `h` neither ticks nor wakes again, as a killed process. */
  crash(h: OwnedRateLimits): void;
}

/** Runs `fn` with `count` handles on one KV file, each a process of its own on one clock. */
async function withHandles(count: number, fn: (p: Processes) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  // Patient as the store's own handles are: two handles on one file otherwise refuse each
  // other's writes while one holds SQLite's lock ("database is locked"), now and then.
  const kvs = await Promise.all(
    Array.from({ length: count }, async () => patient(await Deno.openKv(join(dir, "kv")))),
  );
  const time = new ManualTime();
  const handles = kvs.map((kv) =>
    new OwnedRateLimits(new KvRateLimits(kv), new KvLeases(kv), time.timer(kv))
  );
  try {
    await fn({
      time,
      handles,
      hit: (h) => h.hit("k", WINDOW.start, WINDOW.ms, 1000).then((r) => r.count),
      crash: (h) => time.crash(kvs[handles.indexOf(h)]),
    });
  } finally {
    for (const h of handles) await h.close();
    for (const kv of kvs) kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("owner: a process alone counts in memory; a newcomer waits for its counts", async () => {
  await withHandles(2, async ({ time, handles: [a, b], hit }) => {
    assert.equal(a.counting(), "none");
    for (let i = 1; i <= 5; i++) assert.equal(await atOnce(hit(a)), i);
    assert.equal(a.counting(), "memory");
    // B asks A to hand over; A does on its next look, its five written first.
    assert.equal(await time.until(hit(b)), 6);
    assert.deepEqual([a.counting(), b.counting()], ["store", "store"]);
    assert.equal(await atOnce(hit(a)), 7);
    assert.equal(await atOnce(hit(b)), 8);
  });
});

Deno.test("owner: once the other leaves, the one left counts in memory from its next renewal", async () => {
  await withHandles(2, async ({ time, handles: [a, b], hit }) => {
    await hit(a);
    await time.until(hit(b));
    await b.close();
    await time.advance(RENEW_MS);
    assert.equal(a.counting(), "memory");
    assert.equal(await atOnce(hit(a)), 3);
  });
});

Deno.test("owner: an idle process writes its counts and leaves; the next claims at once", async () => {
  await withHandles(2, async ({ time, handles: [a, b], hit }) => {
    for (let i = 0; i < 3; i++) await hit(a);
    await time.advance(IDLE_MS - 100);
    assert.equal(a.counting(), "memory");
    await time.advance(100);
    assert.equal(a.counting(), "none");
    assert.equal(await atOnce(hit(b)), 4);
    assert.equal(b.counting(), "memory");
  });
});

Deno.test("owner: a crashed owner's claim runs out after its term; only its last second is lost", async () => {
  await withHandles(2, async ({ time, handles: [a, b], hit, crash }) => {
    await hit(a);
    await hit(a);
    await time.advance(RENEW_MS); // A renews, writing its two
    const renewed = time.now;
    await hit(a); // counted in A's memory only
    crash(a);
    assert.equal(await time.until(hit(b)), 3);
    assert.ok(time.now >= renewed + TERM_MS, "B took the claim before its term ran out");
    assert.equal(b.counting(), "memory");
  });
});

Deno.test("owner: a member not heard from for a while is dropped, and the one left counts in memory", async () => {
  await withHandles(2, async ({ time, handles: [a, b], hit, crash }) => {
    await hit(a);
    await time.until(hit(b));
    crash(b);
    for (let t = 0; t < STALE_MS - RENEW_MS; t += RENEW_MS) {
      await hit(a); // A stays busy, so never idle
      await time.advance(RENEW_MS);
    }
    assert.equal(a.counting(), "store");
    await hit(a);
    await time.advance(2 * RENEW_MS);
    assert.equal(a.counting(), "memory");
  });
});

Deno.test("owner: close writes the memory's counts and frees the claim", async () => {
  await withHandles(2, async ({ handles: [a, b], hit }) => {
    for (let i = 0; i < 4; i++) await hit(a);
    await a.close();
    assert.equal(await atOnce(hit(b)), 5);
    assert.equal(b.counting(), "memory");
  });
});
