/** `db/kv/helpers.ts`: `defined`, `getAll` and the check-and-retry loop `commitChecked`. */
import assert from "node:assert/strict";
import { commitChecked, defined, getAll } from "../../db/kv/helpers.ts";
import { patient } from "../../db/kv/patient.ts";

/** Runs `fn` on a fresh in-memory KV, closed afterwards. */
async function withKv(fn: (kv: Deno.Kv) => Promise<void>) {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(kv);
  } finally {
    kv.close();
  }
}

Deno.test("defined: drops undefined fields and keeps null, false and 0", () => {
  assert.deepEqual(defined({ a: undefined, b: null, c: false, d: 0, e: "x" }), {
    b: null,
    c: false,
    d: 0,
    e: "x",
  });
});

Deno.test("getAll: reads past getMany's 10 keys, in key order, missing keys as null", async () => {
  await withKv(async (kv) => {
    for (let i = 0; i < 25; i += 2) await kv.set(["n", i], i * 10);
    const entries = await getAll<number>(kv, Array.from({ length: 25 }, (_, i) => ["n", i]));
    assert.deepEqual(
      entries.map((e) => e.value),
      [...Array(25).keys()].map((i) => i % 2 ? null : i * 10),
    );
    assert.deepEqual(await getAll(kv, []), []);
  });
});

Deno.test("commitChecked: commits and returns the result; nothing to write returns at once", async () => {
  await withKv(async (kv) => {
    const written = await commitChecked(async () => {
      const entry = await kv.get<number>(["count"]);
      const next = (entry.value ?? 0) + 1;
      return { op: kv.atomic().check(entry).set(["count"], next), result: next };
    });
    assert.equal(written, 1);
    assert.equal((await kv.get(["count"])).value, 1);
    let tries = 0;
    assert.equal(await commitChecked(() => Promise.resolve({ result: (tries++, "none") })), "none");
    assert.equal(tries, 1);
  });
});

Deno.test("commitChecked: a failed check retries from a fresh read", async () => {
  await withKv(async (kv) => {
    await kv.set(["count"], 0);
    let tries = 0;
    const result = await commitChecked(async () => {
      const entry = await kv.get<number>(["count"]);
      // A concurrent writer moves the counter after the first read.
      if (tries++ === 0) await kv.set(["count"], 5);
      return {
        op: kv.atomic().check(entry).set(["count"], entry.value! + 1),
        result: entry.value! + 1,
      };
    });
    assert.equal(tries, 2);
    assert.equal(result, 6);
    assert.equal((await kv.get(["count"])).value, 6);
  });
});

Deno.test("commitChecked: `lost` decides: an error ends the loop, null retries", async () => {
  await withKv(async (kv) => {
    await kv.set(["name", "taken"], "someone");
    let tries = 0;
    await assert.rejects(
      commitChecked(() => {
        tries++;
        const op = kv.atomic().check({ key: ["name", "taken"], versionstamp: null })
          .set(["name", "taken"], "me");
        return Promise.resolve({
          op,
          result: true,
          lost: () => Promise.resolve(new Error("taken")),
        });
      }),
      { message: "taken" },
    );
    assert.equal(tries, 1);
    assert.equal((await kv.get(["name", "taken"])).value, "someone");

    let asked = 0;
    const result = await commitChecked(async () => {
      const entry = await kv.get<string>(["name", "taken"]);
      if (asked === 0) await kv.set(["name", "taken"], "someone else");
      const op = kv.atomic().check(entry).set(["name", "taken"], "me");
      return { op, result: "mine", lost: () => Promise.resolve((asked++, null)) };
    });
    assert.equal(result, "mine");
    assert.equal(asked, 1);
  });
});

Deno.test("commitChecked: errors other than a failed check are not retried", async () => {
  await withKv(async (kv) => {
    let tries = 0;
    // KV refuses a value over 64 KiB by throwing from commit.
    await assert.rejects(commitChecked(() => {
      tries++;
      return Promise.resolve({ op: kv.atomic().set(["big"], "x".repeat(70_000)), result: null });
    }));
    assert.equal(tries, 1);
    tries = 0;
    await assert.rejects(
      commitChecked(() => Promise.reject(new Error(`refused ${++tries}`))),
      { message: "refused 1" },
    );
    assert.equal(tries, 1);
  });
});

Deno.test("patient handles: two on one KV file write at once, none refused by the other's lock", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/locks.kv`;
  const [a, b] = [patient(await Deno.openKv(path)), patient(await Deno.openKv(path))];
  try {
    const increment = (kv: Deno.Kv) =>
      commitChecked(async () => {
        const entry = await kv.get<number>(["count"]);
        return { op: kv.atomic().check(entry).set(["count"], (entry.value ?? 0) + 1), result: 1 };
      });
    const on = (i: number) => i % 2 ? a : b;
    const increments = () => Array.from({ length: 100 }, (_, i) => increment(on(i)));
    // Writes outside the checked loop too: plain sets, unchecked sums, then deletes.
    await Promise.all([
      ...increments(),
      ...Array.from({ length: 100 }, (_, i) => on(i).set(["plain", i], i)),
      ...Array.from({ length: 100 }, (_, i) => on(i + 1).atomic().sum(["sum"], 1n).commit()),
    ]);
    assert.equal((await a.get(["count"])).value, 100);
    assert.equal((await b.get<Deno.KvU64>(["sum"])).value?.value, 100n);
    assert.equal((await Array.fromAsync(a.list({ prefix: ["plain"] }))).length, 100);
    await Promise.all([
      ...increments(),
      ...Array.from({ length: 100 }, (_, i) => on(i).delete(["plain", i])),
    ]);
    assert.equal((await b.get(["count"])).value, 200);
    assert.equal((await Array.fromAsync(b.list({ prefix: ["plain"] }))).length, 0);
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});
