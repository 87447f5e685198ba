/** The webhook outbox contract, on Deno KV and PostgreSQL alike. */
import assert from "node:assert/strict";
import {
  type DeliveryOutcome,
  WEBHOOK_HISTORY_SIZE,
  type WebhookDelivery,
} from "../../db/webhooks.ts";
import { ignoreKind, openTestStore, STORE_KINDS } from "../helpers/stores.ts";

const delivery = (id: string, nextAt: number): WebhookDelivery => ({
  id,
  kind: "http",
  event: "upload",
  url: "http://127.0.0.1:9/hook",
  body: JSON.stringify({ id }),
  attempts: 0,
  nextAt,
  createdAt: nextAt,
  lastError: null,
});

const done = (finishedAt: number): DeliveryOutcome => ({
  status: "delivered",
  attempts: 1,
  result: "HTTP 204",
  finishedAt,
});

for (const kind of STORE_KINDS) {
  Deno.test({
    name: `webhook outbox contract: ${kind}`,
    ignore: ignoreKind(kind),
    fn: async (t) => {
      const { store, close } = await openTestStore(kind);
      const outbox = store.webhooks;
      try {
        await t.step("claims due deliveries in time order, leasing them", async () => {
          await outbox.enqueue([delivery("a", 1000), delivery("b", 2000), delivery("c", 9000)]);
          assert.equal(await outbox.pending(), 3);
          const first = await outbox.claimDue(5000, 10, 30_000);
          assert.deepEqual(first.map((d) => d.id), ["a", "b"]);
          assert.deepEqual(first[0], delivery("a", 1000));
          assert.deepEqual(await outbox.claimDue(5000, 10, 30_000), [], "leased");
          assert.deepEqual(
            (await outbox.claimDue(35_001, 10, 30_000)).map((d) => d.id).sort(),
            ["a", "b", "c"],
            "a lease that runs out makes the delivery due again",
          );
        });

        await t.step("settle removes; reschedule records the attempt", async () => {
          await outbox.settle("a", done(40_000));
          await outbox.reschedule("b", 1, 100_000, "HTTP 500");
          assert.deepEqual((await outbox.claimDue(99_999, 10, 1)).map((d) => d.id), ["c"]);
          const [b] = await outbox.claimDue(100_000, 10, 1);
          assert.equal(b.id, "b");
          assert.equal(b.attempts, 1);
          assert.equal(b.lastError, "HTTP 500");
          await outbox.settle("b", done(100_000));
          await outbox.settle("c", done(100_000));
          await outbox.settle("missing", done(100_000));
          assert.equal(await outbox.pending(), 0);
        });

        await t.step(
          "list: the waiting deliveries, soonest due first, at most `limit`",
          async () => {
            await outbox.enqueue([delivery("x", 5000), delivery("y", 3000), delivery("z", 4000)]);
            await outbox.reschedule("x", 2, 2000, "HTTP 502");
            const listed = await outbox.list(2);
            assert.deepEqual(listed.map((d) => d.id), ["x", "y"]);
            assert.deepEqual(listed[0], {
              ...delivery("x", 5000),
              attempts: 2,
              nextAt: 2000,
              lastError: "HTTP 502",
            });
            assert.equal((await outbox.list(10)).length, 3);
            for (const id of ["x", "y", "z"]) await outbox.settle(id, done(200_000));
            assert.deepEqual(await outbox.list(10), []);
          },
        );

        await t.step(
          "history: each settled delivery once, newest first (ties by id), the body left out",
          async () => {
            const history = await outbox.history(4);
            assert.deepEqual(history.map((f) => f.id), ["z", "y", "x", "c"]);
            assert.deepEqual(await outbox.history(10).then((h) => h.map((f) => f.id)), [
              "z",
              "y",
              "x",
              "c",
              "b",
              "a",
            ], "settling a missing delivery records nothing");
            assert.deepEqual(history[2], {
              id: "x",
              kind: "http",
              event: "upload",
              url: "http://127.0.0.1:9/hook",
              createdAt: 5000,
              status: "delivered",
              attempts: 1,
              result: "HTTP 204",
              finishedAt: 200_000,
            });
            await outbox.enqueue([delivery("gone", 1)]);
            await outbox.settle("gone", {
              status: "failed",
              attempts: 6,
              result: "connection refused",
              finishedAt: 300_000,
            });
            const [failed] = await outbox.history(1);
            assert.deepEqual(
              [failed.id, failed.status, failed.attempts, failed.result],
              ["gone", "failed", 6, "connection refused"],
            );
          },
        );

        await t.step(
          `history keeps only the newest ${WEBHOOK_HISTORY_SIZE}`,
          async () => {
            const many = Array.from(
              { length: WEBHOOK_HISTORY_SIZE + 5 },
              (_, i) => delivery(`h${String(i).padStart(3, "0")}`, i),
            );
            await outbox.enqueue(many);
            for (const [i, d] of many.entries()) await outbox.settle(d.id, done(400_000 + i));
            const kept = await outbox.history(WEBHOOK_HISTORY_SIZE + 50);
            assert.equal(kept.length, WEBHOOK_HISTORY_SIZE);
            assert.equal(kept[0].id, many.at(-1)!.id);
            assert.equal(kept.at(-1)!.id, many[5].id);
            assert.equal(await outbox.pending(), 0);
          },
        );

        await t.step("concurrent claims never share a delivery", async () => {
          await outbox.enqueue(Array.from({ length: 20 }, (_, i) => delivery(`d${i}`, i)));
          const batches = await Promise.all(
            Array.from({ length: 5 }, () => outbox.claimDue(1000, 6, 60_000)),
          );
          const ids = batches.flat().map((d) => d.id);
          assert.equal(new Set(ids).size, ids.length);
          assert.equal(ids.length, 20);
        });
      } finally {
        await close();
      }
    },
  });
}
