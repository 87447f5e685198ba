/**
 * PostgreSQL stopped under a running server (found by the soak): requests that
 * need the store answer 503 in the spec's error body at once, the healthcheck
 * reports the outage, and both recover by themselves within seconds of the
 * database's return. (Deno KV runs in-process: it has no outage to test.)
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startPostgres } from "../helpers/postgres_cluster.ts";
import { startServer } from "../helpers/process.ts";
import { skipWithout } from "../helpers/services.ts";

Deno.test({
  name: "e2e: with PostgreSQL down the API answers 503 and the healthcheck 500; both recover",
  ignore: skipWithout("postgres"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const pg = await startPostgres({ durable: true });
    const dir = await Deno.makeTempDir({ prefix: "ferry-outage-" });
    const server = await startServer({
      env: {
        DATABASE_URL: pg.url,
        SERVICE_DATA_DIR: join(dir, "data"),
        SERVICE_SECRET: "outage-secret-outage-secret-outage-secret",
      },
    });
    try {
      const credentials = { username: "admin", password: "password1" };
      assert.equal((await server.json("POST", "/api/setup", credentials)).status, 200);
      const login = await fetch(`${server.origin}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(credentials),
      });
      await login.body?.cancel();
      const cookie = login.headers.getSetCookie()[0].split(";")[0];
      const me = () =>
        fetch(`${server.origin}/api/user`, {
          headers: { cookie },
          signal: AbortSignal.timeout(5000),
        });

      await pg.halt();
      // Several failures in a row, as under load: the reconnect delay must not grow with them.
      for (let i = 0; i < 20; i++) await (await me()).body?.cancel();
      const down = await me();
      assert.equal(down.status, 503);
      assert.equal(down.headers.get("retry-after"), "5");
      assert.deepEqual(await down.json(), { error: "Service Unavailable", statusCode: 503 });
      const health = await server.json("GET", "/api/healthcheck");
      assert.deepEqual(health, {
        status: 500,
        body: { error: "there was an error during a healthcheck", statusCode: 500 },
      });
      assert.doesNotMatch(server.output(), /ERROR unhandled error/);

      await pg.resume();
      const deadline = Date.now() + 5000;
      let status = 0;
      while (Date.now() < deadline && status !== 200) {
        status = (await server.json("GET", "/api/healthcheck")).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(status, 200, "the healthcheck recovers within 5 s of the database");
      const back = await me();
      assert.equal(back.status, 200);
      assert.equal((await back.json()).user.username, "admin");
    } finally {
      await server.stop();
      await pg.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
