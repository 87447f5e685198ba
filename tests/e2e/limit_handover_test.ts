/**
 * Server processes on one store hand the rate-limit counting to each other
 * without losing a count (`db/rate_limit_owner.ts`): a process alone counts
 * in memory; a newcomer gets the counts before it counts; a process stopped
 * gracefully hands back; one killed outright loses only its last second.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ServerProcess, startServer } from "../helpers/process.ts";
import { freshDatabase, ignoreKind, STORE_KINDS } from "../helpers/stores.ts";

/** What `X-RateLimit-Remaining` says after one more anonymous request to a limited route. */
async function remaining(server: ServerProcess): Promise<number> {
  const response = await fetch(`${server.origin}/api/server/public`);
  await response.body?.cancel();
  assert.equal(response.status, 200);
  return Number(response.headers.get("x-ratelimit-remaining"));
}

for (const kind of STORE_KINDS) {
  Deno.test({
    name: `e2e: processes on one ${kind} store hand the rate-limit counts over exactly`,
    ignore: ignoreKind(kind),
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const db = kind === "postgres" ? await freshDatabase() : undefined;
      const dir = await Deno.makeTempDir({ prefix: "ferry-handover-" });
      const env = {
        ...(db ? { DATABASE_URL: db.url } : {}),
        SERVICE_DATA_DIR: join(dir, "data"),
        SERVICE_SECRET: "handover-secret-handover-secret-handover",
        SERVICE_RATELIMIT_MAX: "1000",
        SERVICE_RATELIMIT_WINDOW: "3600000",
      };
      const servers: ServerProcess[] = [];
      const start = async () => {
        const server = await startServer({ env });
        servers.push(server);
        return server;
      };
      try {
        // A window that cannot end during the test: start early in the hour.
        const intoHour = Date.now() % 3_600_000;
        if (intoHour > 3_540_000) {
          await new Promise((resolve) => setTimeout(resolve, 3_600_000 - intoHour + 100));
        }
        const [a, b] = [await start(), await start()];
        assert.deepEqual([await remaining(a), await remaining(a), await remaining(a)], [
          999,
          998,
          997,
        ]);
        // B's first request waits for A to hand over its three.
        assert.equal(await remaining(b), 996);
        assert.equal(await remaining(a), 995);
        assert.equal(await remaining(b), 994);

        // B stops gracefully; A, alone again, counts on.
        await b.stop();
        assert.equal(await remaining(a), 993);
        await new Promise((resolve) => setTimeout(resolve, 1500));
        assert.equal(await remaining(a), 992);

        // A is killed; its counts were written within a second, so C goes on from them
        // once A's claim has run out.
        await new Promise((resolve) => setTimeout(resolve, 2500));
        await a.stop("SIGKILL", 0);
        const c = await start();
        assert.equal(await remaining(c), 991);
      } finally {
        await Promise.all(servers.map((server) => server.stop()));
        await db?.drop();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
