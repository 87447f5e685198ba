/** The lease store's claim records (`db/leases.ts`): one suite, run against Deno KV and PostgreSQL alike. */
import assert from "node:assert/strict";
import { contractSuite } from "../helpers/stores.ts";

contractSuite("lease claim records", {
  async "a claim is replaced only while its version is the one read"(store) {
    assert.deepEqual(await store.leases.readClaim("c"), { value: null, version: null });
    const first = await Promise.all(
      ["p1", "p2", "p3"].map((p) => store.leases.swapClaim("c", null, { owner: p })),
    );
    assert.equal(first.filter(Boolean).length, 1);
    const read = await store.leases.readClaim<{ owner: string }>("c");
    assert.equal(read.value?.owner, ["p1", "p2", "p3"][first.indexOf(true)]);
    assert.equal(await store.leases.swapClaim("c", null, { owner: "late" }), false);

    const again = await Promise.all(
      ["q1", "q2"].map((p) => store.leases.swapClaim("c", read.version, { owner: p })),
    );
    assert.equal(again.filter(Boolean).length, 1);
    assert.equal(await store.leases.swapClaim("c", read.version, { owner: "stale" }), false);
    const now = await store.leases.readClaim<{ owner: string }>("c");
    assert.equal(now.value?.owner, ["q1", "q2"][again.indexOf(true)]);
    assert.notEqual(now.version, read.version);
    // Claims are separate by name.
    assert.deepEqual(await store.leases.readClaim("other"), { value: null, version: null });
  },
});
