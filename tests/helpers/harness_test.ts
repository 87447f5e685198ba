/**
 * Checks the test task's own harness: the Postgres cluster and the s3rver that
 * `tests/run.ts` starts are reachable and usable by the suites.
 */

import { ok } from "node:assert/strict";
import postgres from "postgres";
import { serviceUrl, skipWithout } from "./services.ts";

Deno.test({
  name: "harness: the test Postgres runs queries and lets a suite create and drop a database",
  ignore: skipWithout("postgres"),
  async fn() {
    const sql = postgres(serviceUrl("postgres")!, { onnotice: () => {} });
    try {
      const [row] = await sql`select 1 as one`;
      ok(row.one === 1, `select 1 answered ${JSON.stringify(row)}`);
      const name = `harness_${crypto.randomUUID().replaceAll("-", "")}`;
      await sql`create database ${sql(name)}`;
      await sql`drop database ${sql(name)}`;
    } finally {
      await sql.end();
    }
  },
});

Deno.test({
  name: "harness: the test s3rver answers HTTP",
  ignore: skipWithout("s3"),
  async fn() {
    const response = await fetch(serviceUrl("s3")!);
    await response.body?.cancel();
    ok(response.status >= 200 && response.status < 600, `status ${response.status}`);
  },
});
