/** The healthcheck and the version route. */
import assert from "node:assert/strict";
import { apiTest } from "../helpers/app.ts";
import { PROBE_AHEAD_MS, PROBE_MS } from "../../core/health.ts";

apiTest("healthcheck passes while the store answers", async (app) => {
  const res = await app.json("GET", "/api/healthcheck");
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { pass: true });
});

apiTest("healthcheck is a 404 when featuresHealthcheck is off", async (app) => {
  await app.services.store.settings.update({ featuresHealthcheck: false });
  await app.services.settings.reload();
  const res = await app.json("GET", "/api/healthcheck");
  assert.equal(res.status, 404);
  assert.deepEqual(res.body, { error: "Not Found", statusCode: 404 });
});

apiTest("healthcheck is a 500 with the spec's message when the store is down", async (app) => {
  const store = app.services.store;
  const ping = store.ping;
  store.ping = () => Promise.reject(new Error("connection refused"));
  try {
    const res = await app.json("GET", "/api/healthcheck");
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, {
      error: "there was an error during a healthcheck",
      statusCode: 500,
    });
    assert.ok(app.logger.lines.some((l) => l.message === "healthcheck failed"));
  } finally {
    store.ping = ping;
  }
});

apiTest("healthcheck answers from a probe at most a second old, one at a time", async (app) => {
  const { store, datasource } = app.services;
  const [ping, size] = [store.ping, datasource.size];
  let pings = 0;
  let sizes = 0;
  store.ping = () => (pings++, ping.call(store));
  datasource.size = (name) => (sizes++, size.call(datasource, name));
  try {
    const together = await Promise.all([1, 2, 3].map(() => app.request("/api/healthcheck")));
    assert.deepEqual(together.map((r) => r.status), [200, 200, 200]);
    assert.deepEqual([pings, sizes], [1, 1], "one probe in flight for the three");
    const fast = await app.request("/api/healthcheck");
    const slow = together[0];
    for (const header of ["content-type", "access-control-allow-origin"]) {
      assert.equal(fast.headers.get(header), slow.headers.get(header), header);
    }
    assert.deepEqual(await fast.json(), await slow.json());
    assert.deepEqual([pings, sizes], [1, 1], "answered from the probe");

    store.ping = () => Promise.reject(new Error("connection refused"));
    assert.equal((await app.json("GET", "/api/healthcheck")).status, 200, "within the second");
    app.clock.advance(1000);
    const down = await app.json("GET", "/api/healthcheck");
    assert.equal(down.status, 500, "a second later, the store is probed again");
    assert.equal(sizes, 2);

    store.ping = ping;
    assert.equal((await app.json("GET", "/api/healthcheck")).status, 500, "the failure is kept");
    app.clock.advance(1000);
    assert.equal((await app.json("GET", "/api/healthcheck")).status, 200);
  } finally {
    store.ping = ping;
    datasource.size = size;
  }
});

apiTest(
  "healthcheck starts the next probe in its second's last half and answers without waiting for it",
  async (app) => {
    const { store } = app.services;
    const ping = store.ping;
    let pings = 0;
    let release = () => {};
    try {
      store.ping = () => (pings++, ping.call(store));
      assert.equal((await app.request("/api/healthcheck")).status, 200);
      assert.equal(pings, 1);
      app.clock.advance(PROBE_MS - PROBE_AHEAD_MS - 1);
      assert.equal((await app.request("/api/healthcheck")).status, 200);
      assert.equal(pings, 1, "not yet");

      // The store is slow now: the probe waits until released.
      const held = Promise.withResolvers<void>();
      release = held.resolve;
      store.ping = () => (pings++, held.promise.then(() => ping.call(store)));
      app.clock.advance(1);
      assert.equal((await app.request("/api/healthcheck")).status, 200, "answered at once");
      assert.equal(pings, 2, "the next probe started");
      assert.equal((await app.request("/api/healthcheck")).status, 200);
      assert.equal(pings, 2, "one probe in flight");
      // The first probe's second is over while the one started ahead is still out: the
      // healthcheck waits for it rather than probing again.
      app.clock.advance(PROBE_AHEAD_MS);
      const waiting = app.request("/api/healthcheck");
      release();
      assert.equal((await waiting).status, 200);
      assert.equal(pings, 2, "no second probe in flight");
      // Its answer, from 500, is used until 1500; in its last half it starts the next.
      store.ping = () => (pings++, new Promise<void>(() => {}));
      assert.equal((await app.request("/api/healthcheck")).status, 200, "answered at once");
      assert.equal(pings, 3);
    } finally {
      release();
      store.ping = ping;
    }
  },
);

apiTest("healthcheck is a 500 when the datasource does not answer", async (app) => {
  const { datasource } = app.services;
  const size = datasource.size;
  datasource.size = () => Promise.reject(new Error("bucket unreachable"));
  try {
    const res = await app.json("GET", "/api/healthcheck");
    assert.deepEqual(res.body, {
      error: "there was an error during a healthcheck",
      statusCode: 500,
    });
  } finally {
    datasource.size = size;
  }
});

apiTest("version needs a user and answers from the local build", async (app) => {
  const res = await app.json("GET", "/api/version");
  assert.equal(res.status, 401);
  assert.deepEqual(res.body, { error: "not logged in", statusCode: 401 });
});
