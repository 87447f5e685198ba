/**
 * The `/raw` fast path (`routes/fast_raw.ts`) as the server composes it: a
 * plain GET of a small file whose record the name cache holds is answered
 * without the app, exactly as the app answers it (status, headers, bytes, the
 * view counted); everything that needs more is left to the app, and a change
 * made through this instance is honoured on the very next request.
 */
import assert from "node:assert/strict";
import { createHandler } from "../../routes/mod.ts";
import { fastRaw } from "../../routes/fast_raw.ts";
import { finishing } from "../../routes/front_door.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadFiles, uploadOne } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";

const ORIGIN = "http://ferry.test";

/**
 * The fast path over `app`'s services, its GET of `path` (`null`: it leaves
 * the request to the app), and how often it handed a request back to the app.
 */
function fastPath(app: TestApp) {
  let handedBack = 0;
  const hono = createHandler(app.services).app;
  const raw = fastRaw(app.services, finishing(app.services, false), (request) => {
    handedBack++;
    return hono.fetch(request);
  });
  const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
    raw(
      new Request(new URL(path, ORIGIN), { method, headers: { "user-agent": "fast", ...headers } }),
    );
  return { get, handedBack: () => handedBack };
}

/** The app's own answer to `path`, past every fast path (it caches the record). */
function viaApp(app: TestApp, path: string, headers: Record<string, string> = {}) {
  const hono = createHandler(app.services).app;
  return hono.request(path, { headers: { "user-agent": "app", ...headers } });
}

/** Every header but `Date`, which the two answers may set a second apart. */
function headersOf(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].filter(([name]) => name !== "date"));
}

async function views(app: TestApp, headers: Record<string, string>, id: string): Promise<number> {
  const file = await app.json("GET", `/api/user/files/${id}`, undefined, headers);
  assert.equal(file.status, 200);
  return file.body.views;
}

apiTest("fast raw: a plain cached small file is answered as the app answers it", async (app) => {
  const alice = await actor(app, "USER");
  const file = await uploadOne(app, alice.headers, "small bytes", "small.txt", "text/plain");
  const { get, handedBack } = fastPath(app);
  assert.equal(get(`/raw/${file.name}`), null, "not cached yet: the app answers");

  const slow = await viaApp(app, `/raw/${file.name}`);
  const answer = get(`/raw/${file.name}`);
  assert.ok(answer instanceof Promise, "cached: the fast path answers");
  const fast = await answer;
  assert.equal(fast.status, 200);
  assert.deepEqual(headersOf(fast), headersOf(slow));
  assert.equal(fast.headers.get("access-control-allow-origin"), "*");
  assert.equal(fast.headers.get("content-length"), "11");
  assert.equal(await fast.text(), await slow.text());
  assert.equal(await fast.text().catch(() => "used"), "used");
  assert.equal(handedBack(), 0);
  assert.equal(await views(app, alice.headers, file.id), 2, "both viewers counted");

  const again = await get(`/raw/${file.name}`)!;
  await again.body?.cancel();
  assert.equal(await views(app, alice.headers, file.id), 2, "one view per viewer per 5 s");

  const etag = fast.headers.get("etag")!;
  const fresh = await get(`/raw/${file.name}`, { "if-none-match": etag })!;
  const freshApp = await viaApp(app, `/raw/${file.name}`, { "if-none-match": etag });
  assert.equal(fresh.status, 304);
  assert.deepEqual(headersOf(fresh), headersOf(freshApp));
});

apiTest("fast raw: leaves to the app what needs more than the cache", async (app) => {
  const alice = await actor(app, "USER");
  const { get, handedBack } = fastPath(app);
  const plain = await uploadOne(app, alice.headers, "plain", "plain.txt");
  const upload = async (headers: Record<string, string>, content = "x") => {
    const res = await uploadFiles(app, [{ name: "f.txt", content, type: "text/plain" }], {
      ...alice.headers,
      ...headers,
    });
    assert.equal(res.status, 200);
    return res.body.files[0].name as string;
  };
  const locked = await upload({ "x-zipline-password": "secret" });
  const capped = await upload({ "x-zipline-max-views": "5" });
  const large = await upload({}, "y".repeat(64 * 1024 + 1));
  const expiring = await upload({ "x-zipline-deletes-at": "1h" });
  for (const name of [plain.name, locked, capped, large, expiring]) {
    await (await viaApp(app, `/raw/${name}`)).body?.cancel();
  }
  app.clock.advance(2 * 60 * 60 * 1000);
  // Past the expiry, and so past the name cache's second too: cached again, as answered now.
  for (const name of [plain.name, locked, capped, large, expiring, "missing.txt"]) {
    await app.services.store.files.resolve(name);
  }
  for (const name of [locked, capped, large, expiring, "missing.txt"]) {
    assert.equal(get(`/raw/${name}`), null, `${name}: the app answers`);
  }
  assert.equal(get(`/raw/${plain.name}`, { range: "bytes=0-1" }), null, "a range");
  assert.equal(get(`/raw/${plain.name}?download`), null, "a query");
  assert.equal(get(`/raw/${plain.name}`, {}, "HEAD"), null, "HEAD");
  assert.equal(get(`/raw/.thumbnail.${plain.id}.jpg`), null, "a thumbnail");
  assert.equal(get(`/u/${plain.name}`), null, "the files route");
  assert.ok(get(`/raw/${plain.name}`) instanceof Promise);
  assert.equal(handedBack(), 0);
});

apiTest("fast raw: a change made here is honoured on the next request", async (app) => {
  const alice = await actor(app, "USER");
  const { get } = fastPath(app);
  const file = await uploadOne(app, alice.headers, "soon protected", "p.txt");
  await (await viaApp(app, `/raw/${file.name}`)).body?.cancel();
  assert.ok(get(`/raw/${file.name}`) instanceof Promise);
  const patched = await app.json("PATCH", `/api/user/files/${file.id}`, {
    password: "secret",
  }, alice.headers);
  assert.equal(patched.status, 200);
  assert.equal(get(`/raw/${file.name}`), null, "a new password goes to the app");
  const asked = await viaApp(app, `/raw/${file.name}`);
  assert.equal(asked.status, 403);
  await asked.body?.cancel();

  const other = await uploadOne(app, alice.headers, "soon gone", "g.txt");
  await (await viaApp(app, `/raw/${other.name}`)).body?.cancel();
  const deleted = await app.json("DELETE", `/api/user/files/${other.id}`, undefined, alice.headers);
  assert.equal(deleted.status, 200);
  assert.equal(get(`/raw/${other.name}`), null, "a deleted file goes to the app");
  assert.equal((await viaApp(app, `/raw/${other.name}`)).status, 404);
});

apiTest("fast raw: a cached file whose bytes are gone is the app's 404", async (app) => {
  const alice = await actor(app, "USER");
  const { get, handedBack } = fastPath(app);
  const file = await uploadOne(app, alice.headers, "vanishing", "v.txt");
  await (await viaApp(app, `/raw/${file.name}`)).body?.cancel();
  await app.services.datasource.delete(file.name);
  const answer = get(`/raw/${file.name}`);
  assert.ok(answer instanceof Promise);
  const res = await answer;
  assert.equal(res.status, 404);
  assert.equal((await res.json()).statusCode, 404);
  assert.equal(handedBack(), 1);
});

apiTest("fast raw: the server's handler serves a cached file through it", async (app) => {
  const alice = await actor(app, "USER");
  const file = await uploadOne(app, alice.headers, "handled", "h.txt");
  const { fetch } = createHandler(app.services);
  const get = () => fetch(new Request(new URL(`/raw/${file.name}`, ORIGIN)));
  const first = await get();
  assert.equal(await first.text(), "handled");
  const second = await get();
  assert.equal(second.status, 200);
  assert.equal(await second.text(), "handled");
});
