/**
 * Visits in the real process (`deno task start`), on Deno KV and on
 * PostgreSQL: visits still waiting in the recorder when SIGTERM comes are
 * written before the store closes, and the visits worker that prepared them
 * is ended, so the process exits cleanly and at once.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ServerProcess, startServer } from "../helpers/process.ts";
import { ignoreKind, openTestStore, STORE_KINDS, userRecord } from "../helpers/stores.ts";
import { clientToken, newStoredToken } from "../../core/tokens.ts";
import { newId, systemRandom } from "../../core/clock.ts";

/** A browser's agent (a bot's visit would not count). */
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.";
const SECRET = "ferry-e2e-secret-ferry-e2e-secret-ferry-e2e-secret-0123456789ab";

/** A request with `token` to the server's `path`; its status and JSON body. */
async function api(
  server: ServerProcess,
  token: string,
  method: string,
  path: string,
  body?: unknown,
) {
  const res = await fetch(new URL(path, server.origin), {
    method,
    headers: { authorization: token, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

for (const kind of STORE_KINDS) {
  Deno.test({
    name: `e2e: visits waiting at SIGTERM are written and the visits worker ends: ${kind}`,
    ignore: ignoreKind(kind),
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const dir = await Deno.makeTempDir({ prefix: "ferry-e2e-visits-" });
      const { store, url, drop } = await openTestStore(kind, join(dir, "ferry.kv"));
      try {
        const id = newId(systemRandom, Date.now());
        const user = userRecord("visited", {
          id,
          token: newStoredToken(Date.now(), systemRandom, id),
        });
        await store.users.create(user);
        await store.close();
        const env = {
          SERVICE_DATA_DIR: dir,
          SERVICE_SECRET: SECRET,
          SERVICE_ANALYTICS_ENABLED: "true",
          ...(url ? { DATABASE_URL: url } : {}),
        };
        const token = clientToken(user.token, Date.now(), SECRET, systemRandom);
        let link = { id: "", url: "" };
        const first = await startServer({ env });
        try {
          const made = await api(first, token, "POST", "/api/user/urls", {
            destination: "https://example.com/",
          });
          assert.equal(made.status, 200, JSON.stringify(made.body));
          link = made.body;
          for (let i = 0; i < 3; i++) {
            const res = await fetch(new URL(new URL(link.url).pathname, first.origin), {
              redirect: "manual",
              headers: { "user-agent": `${FIREFOX}${i}` },
            });
            await res.body?.cancel();
            assert.equal(res.status, 302);
          }
          // At once: the batch waits a second before it is written on its own.
          const asked = Date.now();
          const status = await first.stop("SIGTERM", 5_000);
          assert.equal(status.code, 0, first.output());
          assert.match(first.output(), /INFO stopped/);
          assert.ok(Date.now() - asked < 5_000, `${Date.now() - asked} ms`);
          assert.doesNotMatch(first.output(), /could not record visits/);
        } finally {
          await first.stop();
        }
        const second = await startServer({ env });
        try {
          const read = await api(second, token, "GET", `/api/user/urls/${link.id}/visits`);
          assert.equal(read.status, 200, JSON.stringify(read.body));
          const visits = (read.body.series as { visits: number }[]).reduce(
            (n, p) => n + p.visits,
            0,
          );
          assert.equal(visits, 3, "the three visits were written at the shutdown");
        } finally {
          await second.stop();
        }
      } finally {
        await drop();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
