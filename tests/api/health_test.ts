/** The healthcheck and the version route. */
import assert from "node:assert/strict";
import { apiTest } from "../helpers/app.ts";

apiTest("healthcheck passes while the store answers", async (app) => {
  const res = await app.json("GET", "/api/healthcheck");
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { pass: true });
});

apiTest("healthcheck is a 404 when featuresHealthcheck is off", async (app) => {
  await app.services.store.updateSettings({ featuresHealthcheck: false });
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

apiTest("version needs a user and answers from the local build", async (app) => {
  const res = await app.json("GET", "/api/version");
  assert.equal(res.status, 401);
  assert.deepEqual(res.body, { error: "not logged in", statusCode: 401 });
});
