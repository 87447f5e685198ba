/** The upload request store contract, run against Deno KV and PostgreSQL. */
import assert from "node:assert/strict";
import type { Backend } from "../../db/store.ts";
import type { UploadRequestRecord } from "../../db/upload_requests.ts";
import { UniqueError } from "../../db/errors.ts";
import { type ContractSteps, contractSuite, storedUser } from "../helpers/stores.ts";

let n = 0;

/** A new request of `userId` with `fields`. */
function request(userId: string, fields: Partial<UploadRequestRecord> = {}): UploadRequestRecord {
  n++;
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, n));
  return {
    id: `r${n}`,
    code: `code${n}aaaaaaaaaaaaaaaaaa`,
    userId,
    name: `request ${n}`,
    message: null,
    folderId: null,
    maxFiles: null,
    maxBytes: null,
    maxFileSize: null,
    expiresAt: null,
    password: null,
    allowedTypes: [],
    files: 0,
    bytes: 0,
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
}

async function stored(store: Backend, r: UploadRequestRecord) {
  await store.uploadRequests.create(r);
  return r;
}

const steps: ContractSteps = {
  "a request is found by id and code, as stored, and listed by its owner": async (store) => {
    const a = await storedUser(store, "a");
    const r = await stored(
      store,
      request(a.id, {
        message: "hi",
        maxBytes: 5_000_000_000,
        expiresAt: new Date(Date.UTC(2027, 0, 1)),
        allowedTypes: ["image/*"],
      }),
    );
    const later = await stored(store, request(a.id));
    assert.deepEqual(await store.uploadRequests.get(r.id), r);
    assert.deepEqual(await store.uploadRequests.getByCode(r.code), r);
    assert.equal(await store.uploadRequests.getByCode("nope"), null);
    assert.deepEqual(
      (await store.uploadRequests.listByUser(a.id)).map((x) => x.id),
      [r.id, later.id],
    );
    await assert.rejects(
      store.uploadRequests.create(request(a.id, { code: r.code })),
      UniqueError,
    );
  },
  "update changes what it names; delete removes, and deleteByUser all": async (store) => {
    const a = await storedUser(store, "a");
    const r = await stored(store, request(a.id, { maxFiles: 3 }));
    const now = new Date(Date.UTC(2026, 5, 1));
    const changed = await store.uploadRequests.update(r.id, {
      name: "new",
      maxFiles: null,
      allowedTypes: [".pdf"],
    }, now);
    assert.deepEqual(changed, {
      ...r,
      name: "new",
      maxFiles: null,
      allowedTypes: [".pdf"],
      updatedAt: now,
    });
    assert.equal(await store.uploadRequests.update("nope", { name: "x" }, now), null);
    assert.deepEqual(await store.uploadRequests.delete(r.id), changed);
    assert.equal(await store.uploadRequests.getByCode(r.code), null);
    await stored(store, request(a.id));
    await stored(store, request(a.id));
    assert.equal(await store.uploadRequests.deleteByUser(a.id), 2);
    assert.deepEqual(await store.uploadRequests.listByUser(a.id), []);
  },
  "reserve counts what fits, and concurrent reservations never pass a limit": async (store) => {
    const a = await storedUser(store, "a");
    const r = await stored(store, request(a.id, { maxFiles: 10, maxBytes: 1000 }));
    const results = await Promise.all(
      Array.from({ length: 12 }, () => store.uploadRequests.reserve(r.id, 50)),
    );
    assert.equal(results.filter((x) => x.ok).length, 10);
    assert.ok(results.filter((x) => !x.ok).every((x) => x.reason === "files"));
    let now = await store.uploadRequests.get(r.id);
    assert.deepEqual([now!.files, now!.bytes], [10, 500]);
    await store.uploadRequests.release(r.id, 1, 50);
    const bytes = await store.uploadRequests.reserve(r.id, 600);
    assert.equal(bytes.ok, false);
    assert.equal(!bytes.ok && bytes.reason, "bytes");
    assert.equal((await store.uploadRequests.reserve(r.id, 550)).ok, true);
    // A stored file larger than it reserved is counted (a negative release).
    await store.uploadRequests.release(r.id, 0, -20);
    now = await store.uploadRequests.get(r.id);
    assert.deepEqual([now!.files, now!.bytes], [10, 1020]);
    await store.uploadRequests.release(r.id, 50, 5000);
    now = await store.uploadRequests.get(r.id);
    assert.deepEqual([now!.files, now!.bytes], [0, 0], "never below zero");
    await store.uploadRequests.delete(r.id);
    assert.deepEqual(await store.uploadRequests.reserve(r.id, 1), { ok: false, reason: "gone" });
  },
  "a grant opens its request until it expires, and goes with the request": async (store) => {
    const a = await storedUser(store, "a");
    const r = await stored(store, request(a.id));
    const now = new Date(Date.UTC(2026, 0, 2));
    const until = new Date(now.getTime() + 60_000);
    await store.uploadRequests.grantAccess(r.id, "k", until, now);
    assert.equal(await store.uploadRequests.hasAccess(r.id, "k", now), true);
    assert.equal(await store.uploadRequests.hasAccess(r.id, "other", now), false);
    assert.equal(await store.uploadRequests.hasAccess(r.id, "k", until), false);
    await store.uploadRequests.delete(r.id);
    assert.equal(await store.uploadRequests.hasAccess(r.id, "k", now), false);
  },
};

contractSuite("upload requests", steps);
