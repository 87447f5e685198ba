/**
 * Two server processes on one PostgreSQL share one rate limit and see each
 * other's settings changes: the state several instances must share lives in
 * the store.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startServer } from "../helpers/process.ts";
import { freshDatabase, ignoreKind } from "../helpers/stores.ts";

Deno.test({
  name: "e2e: two processes on one Postgres share the login limit and the settings",
  ignore: ignoreKind("postgres"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const db = await freshDatabase();
    const dir = await Deno.makeTempDir({ prefix: "ferry-shared-" });
    const env = {
      DATABASE_URL: db.url,
      SERVICE_DATA_DIR: join(dir, "data"),
      SERVICE_SECRET: "shared-secret-shared-secret-shared-secret",
    };
    const a = await startServer({ env });
    const b = await startServer({ env });
    try {
      const setup = await a.json("POST", "/api/setup", {
        username: "admin",
        password: "password1",
      });
      assert.equal(setup.status, 200);
      const credentials = { username: "admin", password: "password1" };
      // Login allows one attempt per 2 s per client, across both processes. The
      // windows are fixed: start the pair just after one begins, so it cannot
      // straddle two.
      await new Promise((resolve) => setTimeout(resolve, 2000 - (Date.now() % 2000) + 50));
      const first = await a.json("POST", "/api/auth/login", credentials);
      const second = await b.json("POST", "/api/auth/login", credentials);
      assert.deepEqual([first.status, second.status].sort(), [200, 429]);

      // A settings change through A reaches B within a few seconds.
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const login = await fetch(`${a.origin}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(credentials),
      });
      const cookie = login.headers.getSetCookie()[0].split(";")[0];
      const patch = await fetch(`${a.origin}/api/server/settings`, {
        method: "PATCH",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify({ featuresHealthcheck: false }),
      });
      assert.equal(patch.status, 200);
      await patch.body?.cancel();
      const deadline = Date.now() + 5000;
      let status = 200;
      while (Date.now() < deadline && status === 200) {
        status = (await b.json("GET", "/api/healthcheck")).status;
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(status, 404);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await db.drop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
