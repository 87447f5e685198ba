/**
 * The public fast path (`routes/fast_public.ts`) as the server composes it
 * (`createHandler`): it answers a plain cached redirect itself, at once (a
 * `Response`, not a `Promise`), and leaves every other request to the app.
 */
import assert from "node:assert/strict";
import { URL_RULE_DEFAULTS } from "../../db/urls.ts";
import { createHandler } from "../../routes/mod.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { actor } from "../helpers/users.ts";

/** The server's handler over `app`'s services, and a GET of `path` through it. */
function handler(app: TestApp) {
  const { app: hono, fetch } = createHandler(app.services);
  const get = (path: string, init?: RequestInit) =>
    fetch(new Request(new URL(path, "http://ferry.test"), { redirect: "manual", ...init }));
  return { routes: hono.routes, get };
}

/** Stores a URL named `name` directly (as an import might, past the route checks); its id. */
async function storedUrl(app: TestApp, name: string, extra: Record<string, unknown> = {}) {
  const now = new Date(app.clock.now());
  const id = crypto.randomUUID();
  await app.services.store.urls.create({
    id,
    code: name,
    vanity: null,
    destination: "https://a.example/日本",
    views: 0,
    maxViews: null,
    password: null,
    enabled: true,
    userId: null,
    createdAt: now,
    updatedAt: now,
    ...URL_RULE_DEFAULTS,
    ...extra,
  }, null);
  return id;
}

async function useUrlsRoute(app: TestApp, urlsRoute: string) {
  await app.services.store.settings.update({ urlsRoute });
  await app.services.settings.reload();
}

apiTest("fast path: a plain cached redirect is answered at once, as the app would", async (app) => {
  const alice = await actor(app, "USER");
  const made = await app.json("POST", "/api/user/urls", {
    destination: "https://a.example/日本",
  }, alice.headers);
  assert.equal(made.status, 200);
  const { get } = handler(app);
  const first = await get(`/go/${made.body.code}`); // the app answers, and caches the record
  const fast = get(`/go/${made.body.code}`);
  assert.ok(fast instanceof Response, "the fast path answered a plain cached redirect");
  for (const answer of [first, fast]) {
    assert.equal(answer.status, 302);
    assert.equal(answer.headers.get("location"), "https://a.example/%E6%97%A5%E6%9C%AC");
    assert.equal(answer.headers.get("access-control-allow-origin"), "*");
  }
  const url = await app.json("GET", `/api/user/urls/${made.body.id}`, undefined, alice.headers);
  assert.equal(url.body.views, 2, "both redirects counted their view");
});

apiTest("fast path: leaves to the app what needs more than the cache", async (app) => {
  const { get } = handler(app);
  await storedUrl(app, "locked", { password: "$argon2id$hash" });
  await storedUrl(app, "capped", { maxViews: 5 });
  await storedUrl(app, "off", { enabled: false });
  await storedUrl(app, "cold");
  await storedUrl(app, "hot");
  for (const name of ["locked", "capped", "off", "hot"]) {
    await app.services.store.urls.resolve(name);
  }
  for (const path of ["/go/locked", "/go/capped", "/go/off", "/go/cold", "/invite/hot"]) {
    assert.ok(get(path) instanceof Promise, `${path}: the app answers`);
  }
  assert.ok(get("/go/hot", { method: "HEAD" }) instanceof Promise, "HEAD: the app answers");
  assert.ok(get("/go/hot") instanceof Response);
});

apiTest("fast path: never answers a path the app routes elsewhere", async (app) => {
  const { routes, get } = handler(app);
  const pages = routes.filter((r) =>
    r.method === "GET" && r.path !== "/*" && r.path !== "/" && !r.path.startsWith("/api")
  );
  assert.ok(pages.length > 10, "the app's own GET routes are listed");
  let n = 0;
  for (const page of pages) {
    // The route's path with each parameter filled, under a urlsRoute of its parent.
    const path = page.path.replace(/:[^/]+/g, `x${n++}`);
    const cut = path.lastIndexOf("/");
    await useUrlsRoute(app, cut === 0 ? "/" : path.slice(0, cut));
    const id = await storedUrl(app, path.slice(cut + 1));
    await app.services.store.urls.resolve(path.slice(cut + 1));
    const answer = get(path);
    assert.ok(answer instanceof Promise, `GET ${path} (route ${page.path}) is the app's`);
    await (await answer).body?.cancel();
    await app.services.store.urls.delete(id);
  }
});
