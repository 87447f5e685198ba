/** The chunked-upload and lease stores' contract: one suite, run against Deno KV and PostgreSQL alike. */
import assert from "node:assert/strict";
import {
  type ChunkedUploadRecord,
  type ChunkPart,
  CLAIM_TERM_MS,
  receivedRanges,
} from "../../db/chunks.ts";
import { type FileLimits, QuotaError } from "../../db/files.ts";
import { type ContractSteps, contractSuite, fileRecord, storedUser } from "../helpers/stores.ts";

const NONE: FileLimits = { maxBytes: null, maxFiles: null };

const T0 = new Date(Date.UTC(2026, 0, 1));
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function upload(id: string, extra: Partial<ChunkedUploadRecord> = {}): ChunkedUploadRecord {
  return {
    id,
    userId: "u1",
    folderId: null,
    filename: "movie.mp4",
    type: "video/mp4",
    size: 2500,
    partSize: 1000,
    object: `.partial/${id}`,
    handle: "h",
    reservedBy: null,
    completing: false,
    createdAt: T0,
    updatedAt: T0,
    ...extra,
  };
}

const part = (number: number, size = 1000, tag = `t${number}`): ChunkPart => ({
  number,
  start: (number - 1) * 1000,
  end: (number - 1) * 1000 + size - 1,
  tag,
});

const steps: ContractSteps = {
  async "create, get, and parts recorded concurrently are all kept"(store) {
    await store.chunks.create(upload("a"), NONE);
    assert.deepEqual(await store.chunks.get("a"), upload("a"));
    assert.equal(await store.chunks.get("missing"), null);
    const added = await Promise.all([
      store.chunks.addPart("a", part(3, 500), at(3)),
      store.chunks.addPart("a", part(1), at(1)),
      store.chunks.addPart("a", part(2), at(2)),
    ]);
    assert.deepEqual(added, [true, true, true]);
    assert.deepEqual(await store.chunks.parts("a"), [part(1), part(2), part(3, 500)]);
    assert.deepEqual(receivedRanges(await store.chunks.parts("a")), [[0, 2499]]);
    assert.ok((await store.chunks.get("a"))!.updatedAt > T0);
  },

  async "a part sent again replaces the first copy"(store) {
    await store.chunks.create(upload("a"), NONE);
    await store.chunks.addPart("a", part(1, 1000, "old"), at(1));
    await store.chunks.addPart("a", part(1, 1000, "new"), at(2));
    assert.deepEqual(await store.chunks.parts("a"), [part(1, 1000, "new")]);
    assert.deepEqual((await store.chunks.get("a"))!.updatedAt, at(2));
  },

  async "exactly one of concurrent claims wins; no part lands while completing"(store) {
    await store.chunks.create(upload("a"), NONE);
    const claims = await Promise.all([1, 2, 3, 4].map(() => store.chunks.claim("a", at(1))));
    assert.equal(claims.filter((c) => c !== null).length, 1);
    assert.equal(claims.find((c) => c !== null)!.id, "a");
    assert.equal(await store.chunks.addPart("a", part(1), at(1)), false);
    assert.deepEqual(await store.chunks.parts("a"), []);
    await store.chunks.release("a");
    assert.equal(await store.chunks.addPart("a", part(1), at(1)), true);
    assert.equal(await store.chunks.claim("missing", at(1)), null);
    assert.equal(await store.chunks.addPart("missing", part(1), at(1)), false);
  },

  async "a claim holds for its term from the last renewal; then a claim or a part takes over"(
    store,
  ) {
    const term = CLAIM_TERM_MS / 1000;
    await store.chunks.create(upload("a"), NONE);
    assert.ok(await store.chunks.claim("a", at(0)));
    await store.chunks.renew("a", at(100));
    assert.equal(await store.chunks.claim("a", at(100 + term - 1)), null, "renewed: held");
    assert.equal(await store.chunks.addPart("a", part(1), at(100 + term - 1)), false);
    assert.ok(await store.chunks.claim("a", at(100 + term)), "lapsed: taken over");
    assert.equal(await store.chunks.claim("a", at(100 + term)), null, "held by the new claim");

    assert.equal(await store.chunks.addPart("a", part(1), at(100 + 2 * term)), true);
    const after = (await store.chunks.get("a"))!;
    assert.equal(after.completing, false, "a part ends a lapsed claim");
    assert.deepEqual(after.updatedAt, at(100 + 2 * term));
    await store.chunks.renew("a", at(500));
    assert.deepEqual((await store.chunks.get("a"))!.updatedAt, at(100 + 2 * term), "not claimed");
  },

  async "listByUser finds one user's uploads, oldest first"(store) {
    await store.chunks.create(upload("b", { createdAt: at(2) }), NONE);
    await store.chunks.create(upload("a", { createdAt: at(1) }), NONE);
    await store.chunks.create(upload("theirs", { userId: "u2" }), NONE);
    await store.chunks.create(upload("anonymous", { userId: null }), NONE);
    assert.deepEqual((await store.chunks.listByUser("u1")).map((u) => u.id), ["a", "b"]);
    assert.deepEqual(await store.chunks.listByUser("u1"), [
      upload("a", { createdAt: at(1) }),
      upload("b", { createdAt: at(2) }),
    ]);
    assert.deepEqual((await store.chunks.listByUser("u2")).map((u) => u.id), ["theirs"]);
    assert.deepEqual(await store.chunks.listByUser("nobody"), []);
  },

  async "delete removes the upload and its parts; listIdle finds old ones"(store) {
    await store.chunks.create(upload("old"), NONE);
    await store.chunks.create(upload("new", { updatedAt: at(100) }), NONE);
    await store.chunks.addPart("old", part(1), at(10));
    assert.deepEqual((await store.chunks.listIdle(at(50))).map((u) => u.id), ["old"]);
    assert.deepEqual((await store.chunks.listIdle(at(101))).map((u) => u.id), ["old", "new"]);
    await store.chunks.delete("old");
    assert.equal(await store.chunks.get("old"), null);
    assert.deepEqual(await store.chunks.parts("old"), []);
    assert.deepEqual((await store.chunks.listIdle(at(101))).map((u) => u.id), ["new"]);
  },

  async "security #7: a reservation counts against the quota at once; it is given back once"(
    store,
  ) {
    const u = await storedUser(store);
    const limits = { maxBytes: 5000, maxFiles: null };
    const mine = (id: string, size: number) => upload(id, { userId: u.id, reservedBy: u.id, size });
    const starts = await Promise.allSettled([
      store.chunks.create(mine("a", 3000), limits),
      store.chunks.create(mine("b", 3000), limits),
    ]);
    assert.deepEqual(starts.map((r) => r.status).sort(), ["fulfilled", "rejected"]);
    const refused = starts.find((r) => r.status === "rejected") as PromiseRejectedResult;
    assert.ok(refused.reason instanceof QuotaError);
    const won = starts[0].status === "fulfilled" ? "a" : "b";
    assert.equal(await store.chunks.get(won === "a" ? "b" : "a"), null, "nothing written");
    assert.deepEqual(await store.files.usage(u.id), { bytes: 3000, files: 1 });
    // Other uploads see the reservation; one without (anonymous) does not move the counters.
    await assert.rejects(store.files.create(fileRecord(u.id, { size: 2001 }), limits), QuotaError);
    await store.chunks.create(upload("anonymous", { size: 9000 }), limits);
    assert.deepEqual(await store.files.usage(u.id), { bytes: 3000, files: 1 });

    await store.chunks.unreserve(won);
    await store.chunks.unreserve(won);
    assert.equal((await store.chunks.get(won))?.reservedBy, null);
    assert.deepEqual(await store.files.usage(u.id), { bytes: 0, files: 0 });
    await store.chunks.delete(won);
    assert.deepEqual(await store.files.usage(u.id), { bytes: 0, files: 0 });

    await store.chunks.create(mine("c", 1000), { maxBytes: null, maxFiles: 1 });
    await assert.rejects(
      store.chunks.create(mine("d", 1), { maxBytes: null, maxFiles: 1 }),
      QuotaError,
    );
    await store.chunks.addPart("c", part(1), at(1));
    assert.deepEqual(await store.files.usage(u.id), { bytes: 1000, files: 1 });
    await store.chunks.delete("c");
    await store.chunks.delete("c");
    assert.deepEqual(await store.files.usage(u.id), { bytes: 0, files: 0 });
    assert.deepEqual(await store.chunks.parts("c"), []);
  },

  async "a tus upload's progress is saved with its part, keeping the claim"(store) {
    const tus = {
      offset: 0,
      tail: null,
      metadata: "filename bW92aWU=",
      options: { private: "true" },
    };
    await store.chunks.create(upload("t", { tus }), NONE);
    assert.deepEqual(await store.chunks.get("t"), upload("t", { tus }));
    assert.ok(await store.chunks.claim("t", at(1)));
    const next = { ...tus, offset: 1300, tail: { object: ".partial/t.tail-x", size: 300 } };
    assert.equal(await store.chunks.saveTus("t", part(1), next, at(2)), true);
    const saved = await store.chunks.get("t");
    assert.deepEqual(saved?.tus, next);
    assert.equal(saved?.completing, true);
    assert.deepEqual(saved?.updatedAt, at(2));
    assert.deepEqual(await store.chunks.parts("t"), [part(1)]);
    assert.equal(await store.chunks.saveTus("t", null, { ...next, offset: 1400 }, at(3)), true);
    assert.equal((await store.chunks.get("t"))?.tus?.offset, 1400);
    assert.deepEqual(await store.chunks.parts("t"), [part(1)]);
    await store.chunks.delete("t");
    assert.equal(await store.chunks.saveTus("t", part(2), next, at(4)), false);
    assert.deepEqual(await store.chunks.parts("t"), []);
  },

  async "a lease goes to one of concurrent takers, and again once its term passed"(store) {
    const term = 60_000;
    const takes = await Promise.all(
      ["p1", "p2", "p3"].map((p) => store.leases.acquire("task", p, at(0), term)),
    );
    assert.equal(takes.filter(Boolean).length, 1);
    assert.equal(await store.leases.acquire("task", "p1", at(59), term), false);
    assert.equal(await store.leases.acquire("other", "p1", at(59), term), true);
    assert.equal(await store.leases.acquire("task", "p2", at(60), term), true);
    // A shorter term frees a lease sooner.
    assert.equal(await store.leases.acquire("task", "p1", at(70), term), false);
    assert.equal(await store.leases.acquire("task", "p1", at(70), 10_000), true);
  },
};

Deno.test("receivedRanges merges touching and overlapping parts", () => {
  assert.deepEqual(receivedRanges([]), []);
  assert.deepEqual(
    receivedRanges([part(4), part(1), part(2)]),
    [[0, 1999], [3000, 3999]],
  );
});

contractSuite("chunk and lease store contract", steps);
