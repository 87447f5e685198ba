/**
 * The self-healing postgres.js client (`db/postgres/client.ts`). Restarting
 * PostgreSQL under load, the soak saw an instance die of an uncaught
 * `TypeError` thrown by postgres.js writing to a connection it had closed
 * (a timing race, postgres.js #1208 / Deno #34667). The race cannot be
 * provoked on demand, so the test throws the same error from a timer, with
 * the stack it has: the process lives on and the client moves to a new pool.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { selfHealingClient } from "../../db/postgres/client.ts";
import { serviceUrl, skipWithout } from "../helpers/services.ts";

Deno.test({
  name: "the postgres.js write to a closed connection neither ends the process nor the client",
  ignore: skipWithout("postgres"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const url = serviceUrl("postgres")!;
    let pools = 0;
    const sql = selfHealingClient(() => {
      pools++;
      return postgres(url, { max: 1, onnotice: () => {} });
    });
    try {
      const [before] = await sql`SELECT pg_backend_pid() AS pid`;
      const race = new TypeError("Cannot read properties of null (reading 'write')");
      race.stack = `${race.message}\n    at nextWrite (file:///cache/npm/registry.npmjs.org/` +
        "postgres/3.4.9/src/connection.js:255:22)";
      setTimeout(() => {
        throw race;
      }, 0);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(pools, 2, "a new pool replaced the old one");
      const [after] = await sql`SELECT pg_backend_pid() AS pid`;
      assert.notEqual(after.pid, before.pid, "queries go to the new pool's connection");
    } finally {
      await sql.end({ timeout: 1 });
    }
  },
});
