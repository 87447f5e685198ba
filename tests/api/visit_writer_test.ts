/**
 * The visits worker's own writer (`db/visit_writer.ts`), on both stores kept
 * where another thread reaches them (a Deno KV file, a PostgreSQL server):
 * the worker writes each batch itself (the server thread's `VisitStore.write`
 * never called) and the API reads it back; a link deleted while a batch
 * holding its visits is being written keeps none (the delete waits for that
 * write); closing writes what waits, closes the writer and ends the worker.
 */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { type Actor, actor } from "../helpers/users.ts";
import { FLUSH_DELAY_MS, visitRecorder, visitWorkerStats } from "../../core/visits/recorder.ts";
import { closeVisits } from "../../core/visits/record.ts";

const START = Date.UTC(2027, 2, 10, 10, 0, 0);
const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0";

/** A test on a reachable store with analytics on and the server thread's writes refused. */
function writerTest(name: string, fn: (app: TestApp, alice: Actor) => Promise<void>) {
  apiTest(name, async (app) => {
    app.clock.set(START);
    await app.services.store.settings.update({ analyticsEnabled: true, coreTrustProxy: true });
    await app.services.settings.reload();
    const visits = app.services.store.visits;
    assert.notEqual(visits.address, null, "the store says where another thread reaches it");
    const write = visits.write;
    visits.write = () => Promise.reject(new Error("the server's thread wrote a batch"));
    try {
      await fn(app, await actor(app, "USER"));
    } finally {
      visits.write = write;
    }
  }, { reachable: true });
}

/** A short URL of `who`. */
async function shorten(app: TestApp, who: Actor) {
  const res = await app.json("POST", "/api/user/urls", { destination: "https://example.com/" }, {
    ...who.headers,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { id: res.body.id as string, path: new URL(res.body.url).pathname };
}

/** A visit of `path` from `ip` with `ua`; asserts the redirect. */
async function hit(app: TestApp, path: string, ip: string, ua = CHROME) {
  const res = await app.request(path, {
    redirect: "manual",
    headers: { "user-agent": ua, "x-forwarded-for": ip },
  });
  await res.body?.cancel();
  assert.equal(res.status, 302);
}

/** The visits the API counts at `path` for `who`. */
async function counted(app: TestApp, who: Actor, path: string): Promise<number> {
  const res = await app.json("GET", path, undefined, who.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body.series as { visits: number }[]).reduce((n, p) => n + p.visits, 0);
}

writerTest(
  "visit writer: the worker writes the batch, the API reads it back",
  async (app, alice) => {
    const url = await shorten(app, alice);
    for (let i = 0; i < 20; i++) await hit(app, url.path, `10.0.0.${i}`, i % 2 ? CHROME : FIREFOX);
    app.clock.advance(FLUSH_DELAY_MS);
    assert.equal(await counted(app, alice, `/api/user/urls/${url.id}/visits`), 20);
    const res = await app.json("GET", `/api/user/urls/${url.id}/visits`, undefined, alice.headers);
    assert.deepEqual(
      res.body.top.browsers.map((b: { value: string }) => b.value).sort(),
      ["Chrome", "Firefox"],
    );
    const raw = await Array.fromAsync(app.services.store.visits.list("url", url.id));
    assert.equal(raw.length, 20);
    assert.equal(new Set(raw.map((v) => v.visitor)).size, 20, "each visitor hashed");
    assert.equal(
      app.logger.lines.filter((l) => l.message === "could not record visits").length,
      0,
      "nothing refused",
    );
  },
);

writerTest(
  "visit writer: a link deleted while its visits are being written keeps none",
  async (app, alice) => {
    const kept = await shorten(app, alice);
    const gone = await shorten(app, alice);
    for (let i = 0; i < 50; i++) {
      await hit(app, kept.path, `10.1.0.${i}`);
      await hit(app, gone.path, `10.2.0.${i}`);
    }
    // The batch goes to the worker; the delete comes while it is on its way.
    const writing = visitRecorder(app.services).flush();
    await Promise.resolve();
    const del = await app.json("DELETE", `/api/user/urls/${gone.id}`, undefined, alice.headers);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    await writing;
    assert.deepEqual(await Array.fromAsync(app.services.store.visits.list("url", gone.id)), []);
    assert.equal(
      (await Array.fromAsync(app.services.store.visits.list("url", kept.id))).length,
      50,
    );
    assert.equal(await counted(app, alice, "/api/user/visits"), 50, "the owner's: the kept link's");
  },
);

writerTest("visit writer: closing writes what waits and ends the worker", async (app, alice) => {
  const url = await shorten(app, alice);
  await hit(app, url.path, "10.3.0.1");
  app.clock.advance(FLUSH_DELAY_MS);
  assert.equal(await counted(app, alice, `/api/user/urls/${url.id}/visits`), 1);
  await hit(app, url.path, "10.3.0.2");
  await hit(app, url.path, "10.3.0.3");
  await closeVisits(app.services);
  const stats = visitWorkerStats(app.services);
  assert.deepEqual([stats.workers, stats.ended], [0, 1], "the worker ended");
  const raw = await Array.fromAsync(app.services.store.visits.list("url", url.id));
  assert.equal(raw.length, 3, "what waited was written before");
});
