/** The healthcheck and the version route. */
import assert from "node:assert/strict";
import { apiTest } from "../helpers/app.ts";

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
