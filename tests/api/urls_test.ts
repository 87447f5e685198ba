/** Short URLs: the API (spec §2.7, Zipline §4.6), the public redirect (§6.5) and their races. */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { type Actor, actor } from "../helpers/users.ts";

async function shorten(
  app: TestApp,
  who: Actor,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return await app.json("POST", "/api/user/urls", body, { ...who.headers, ...headers });
}

/** A GET of a public path, redirects not followed. */
async function visit(app: TestApp, path: string, cookie?: string) {
  return await app.request(path, {
    redirect: "manual",
    headers: cookie ? { cookie } : {},
  });
}

apiTest("shorten: the URL's fields and its short link; the redirect counts a view", async (app) => {
  const alice = await actor(app, "USER");
  const res = await shorten(app, alice, { destination: "https://example.com/some/page" });
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body).sort(), [
    "code",
    "createdAt",
    "destination",
    "deviceDestinations",
    "enabled",
    "expiresAt",
    "forwardQuery",
    "id",
    "maxViews",
    "password",
    "updatedAt",
    "url",
    "userId",
    "vanity",
    "views",
  ]);
  assert.match(res.body.code, /^[A-Za-z0-9]{6}$/);
  assert.equal(res.body.url, `http://ferry.test/go/${res.body.code}`);
  assert.deepEqual(
    [res.body.vanity, res.body.views, res.body.maxViews, res.body.enabled, res.body.password],
    [null, 0, null, true, false],
  );
  assert.equal(res.body.userId, alice.user.id);

  const go = await visit(app, `/go/${res.body.code}`);
  assert.equal(go.status, 302);
  assert.equal(go.headers.get("location"), "https://example.com/some/page");
  const after = await app.json("GET", `/api/user/urls/${res.body.id}`, undefined, alice.headers);
  assert.equal(after.body.views, 1);
});

apiTest("shorten: urlsLength, coreDefaultDomain, https and the domain header", async (app) => {
  const alice = await actor(app, "USER");
  await app.services.store.settings.update({
    urlsLength: 10,
    coreDefaultDomain: "short.example",
    coreReturnHttpsUrls: true,
    urlsRoute: "/",
    domains: ["a.example"],
  });
  await app.services.settings.reload();
  const res = await shorten(app, alice, { destination: "http://example.com" });
  assert.match(res.body.code, /^[A-Za-z0-9]{10}$/);
  assert.equal(res.body.url, `https://short.example/${res.body.code}`);
  const picked = await shorten(app, alice, { destination: "http://example.com", vanity: "v1" }, {
    "x-zipline-domain": " a.example , a.example",
  });
  assert.equal(picked.body.url, "https://a.example/v1");
});

apiTest("shorten: vanity taken, names shared with codes, reserved and bad input", async (app) => {
  const alice = await actor(app, "USER");
  const bob = await actor(app, "USER");
  const first = await shorten(app, alice, { destination: "https://a.example", vanity: "mine" });
  assert.equal(first.status, 200);
  assert.equal(first.body.url, "http://ferry.test/go/mine");
  const dup = await shorten(app, bob, { destination: "https://b.example", vanity: "mine" });
  assert.deepEqual(dup.body, { error: "Vanity already taken", statusCode: 400 });
  const onCode = await shorten(app, bob, {
    destination: "https://b.example",
    vanity: first.body.code,
  });
  assert.deepEqual(onCode.body, { error: "Vanity already taken", statusCode: 400 });

  for (const vanity of ["api", "Dashboard", "robots.txt", "a/b", "has space"]) {
    const bad = await shorten(app, alice, { destination: "https://a.example", vanity });
    assert.equal(bad.status, 400, vanity);
    assert.deepEqual(bad.body.issues[0].path, ["vanity"]);
  }
  for (const body of [{}, { destination: "ftp://a.example" }, { destination: "not a url" }]) {
    const bad = await shorten(app, alice, body);
    assert.equal(bad.status, 400, JSON.stringify(body));
    assert.deepEqual(bad.body.issues[0].path, ["destination"]);
  }
  const badViews = await shorten(app, alice, { destination: "https://a.example" }, {
    "x-service-max-views": "zero",
  });
  assert.equal(badViews.status, 400);
  assert.equal((await app.services.store.urls.listByUser(alice.user.id)).length, 1);
  const anonymous = await app.json("POST", "/api/user/urls", { destination: "https://a.example" });
  assert.equal(anonymous.status, 401);
});

apiTest("shorten: options from headers, and x-service-no-json answers text", async (app) => {
  const alice = await actor(app, "USER");
  const res = await shorten(app, alice, { destination: "https://a.example", enabled: false }, {
    "x-service-max-views": "3",
    "x-zipline-password": "secret",
  });
  assert.equal(res.status, 200);
  assert.deepEqual([res.body.maxViews, res.body.password, res.body.enabled], [3, true, false]);
  const stored = await app.services.store.urls.get(res.body.id);
  assert.match(stored!.password!, /^\$argon2id\$/);

  const text = await app.request("/api/user/urls", {
    method: "POST",
    headers: { ...alice.headers, "content-type": "application/json", "x-service-no-json": "true" },
    body: JSON.stringify({ destination: "https://a.example", vanity: "plain" }),
  });
  assert.equal(text.status, 200);
  assert.match(text.headers.get("content-type") ?? "", /^text\/plain/);
  assert.equal(await text.text(), "http://ferry.test/go/plain");
});

apiTest("list, search, get, patch and delete: only the owner's URLs", async (app) => {
  const alice = await actor(app, "USER");
  const bob = await actor(app, "USER");
  const a = (await shorten(app, alice, { destination: "https://Docs.example/x" })).body;
  app.clock.advance(1000);
  const b = (await shorten(app, alice, { destination: "https://blog.example", vanity: "Blog" }))
    .body;
  await shorten(app, bob, { destination: "https://docs.example/bob" });

  const all = await app.json("GET", "/api/user/urls", undefined, alice.headers);
  assert.deepEqual(all.body.map((u: { id: string }) => u.id), [a.id, b.id]);
  const docs = await app.json("GET", "/api/user/urls?searchQuery=DOCS", undefined, alice.headers);
  assert.deepEqual(docs.body.map((u: { id: string }) => u.id), [a.id]);
  const vanity = await app.json(
    "GET",
    "/api/user/urls?searchField=vanity&searchQuery=blo",
    undefined,
    alice.headers,
  );
  assert.deepEqual(vanity.body.map((u: { id: string }) => u.id), [b.id]);

  assert.equal(
    (await app.json("GET", `/api/user/urls/${a.id}`, undefined, bob.headers)).status,
    404,
  );
  const theirs = await app.json("PATCH", `/api/user/urls/${a.id}`, { enabled: false }, bob.headers);
  assert.equal(theirs.status, 404);
  assert.equal(
    (await app.json("DELETE", `/api/user/urls/${a.id}`, undefined, bob.headers)).status,
    404,
  );

  app.clock.advance(1000);
  const patched = await app.json("PATCH", `/api/user/urls/${a.id}`, {
    destination: "https://new.example",
    vanity: "fresh",
    maxViews: 5,
    password: "pw",
  }, alice.headers);
  assert.equal(patched.status, 200);
  assert.deepEqual(
    [patched.body.destination, patched.body.vanity, patched.body.maxViews, patched.body.password],
    ["https://new.example", "fresh", 5, true],
  );
  assert.notEqual(patched.body.updatedAt, a.updatedAt);
  const clash = await app.json(
    "PATCH",
    `/api/user/urls/${a.id}`,
    { vanity: "Blog" },
    alice.headers,
  );
  assert.deepEqual(clash.body, { error: "Vanity already exists", statusCode: 400 });
  const cleared = await app.json("PATCH", `/api/user/urls/${a.id}`, {
    vanity: null,
    password: "",
  }, alice.headers);
  assert.deepEqual([cleared.body.vanity, cleared.body.password], [null, false]);
  // The old vanity is free again; the code still redirects.
  assert.equal((await visit(app, "/go/fresh")).status, 404);
  assert.equal((await visit(app, `/go/${a.code}`)).status, 302);

  const deleted = await app.json("DELETE", `/api/user/urls/${a.id}`, undefined, alice.headers);
  assert.equal(deleted.status, 200);
  assert.equal(deleted.body.id, a.id);
  assert.equal(
    (await app.json("GET", `/api/user/urls/${a.id}`, undefined, alice.headers)).status,
    404,
  );
  assert.equal((await visit(app, `/go/${a.code}`)).status, 404);
});

apiTest("redirects: by code and vanity, disabled, unknown, and the live urlsRoute", async (app) => {
  const alice = await actor(app, "USER");
  const url = (await shorten(app, alice, { destination: "https://a.example/", vanity: "va" })).body;
  assert.equal((await visit(app, `/go/${url.code}`)).headers.get("location"), "https://a.example/");
  assert.equal((await visit(app, "/go/va")).headers.get("location"), "https://a.example/");
  assert.equal((await visit(app, "/go/nope")).status, 404);
  assert.equal((await visit(app, "/go/va/extra")).status, 404);

  await app.json("PATCH", `/api/user/urls/${url.id}`, { enabled: false }, alice.headers);
  assert.equal((await visit(app, "/go/va")).status, 404);
  await app.json("PATCH", `/api/user/urls/${url.id}`, { enabled: true }, alice.headers);

  await app.services.store.settings.update({ urlsRoute: "/x" });
  await app.services.settings.reload();
  assert.equal((await visit(app, "/go/va")).status, 404);
  assert.equal((await visit(app, "/x/va")).status, 302);
  const stored = await app.services.store.urls.get(url.id);
  assert.equal(stored!.views, 3);
  // Unknown API paths keep their JSON 404.
  const api = await app.json("GET", "/api/nope");
  assert.equal(api.body.message, "Route GET:/api/nope not found");
});

apiTest(
  "redirects: a cached name answers alike, and never in place of another route",
  async (app) => {
    const alice = await actor(app, "USER");
    const url = (await shorten(app, alice, { destination: "https://a.example/x" })).body;
    // The first visit reads the store; the next ones reuse its answer (the fast path).
    for (let i = 0; i < 3; i++) {
      const res = await visit(app, `/go/${url.code}`);
      assert.equal(res.status, 302);
      assert.equal(res.headers.get("location"), "https://a.example/x");
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.equal(await res.text(), "");
    }
    assert.equal(
      (await app.json("GET", `/api/user/urls/${url.id}`, undefined, alice.headers)).body
        .views,
      3,
    );
    assert.equal((await app.request(`/go/${url.code}`, { method: "HEAD" })).status, 302);

    // A name that is also a page's path (stored before the name was reserved): the page wins.
    await app.services.store.settings.update({ urlsRoute: "/" });
    await app.services.settings.reload();
    const now = new Date(app.clock.now());
    await app.services.store.urls.create({
      ...(await app.services.store.urls.get(url.id))!,
      id: `${url.id}-dash`,
      code: "dashboard",
      views: 0,
      createdAt: now,
      updatedAt: now,
    }, null);
    await app.services.store.urls.resolve("dashboard"); // cached now
    for (let i = 0; i < 2; i++) {
      const res = await visit(app, "/dashboard");
      assert.notEqual(res.headers.get("location"), "https://a.example/x");
    }
    assert.equal(
      (await app.services.store.urls.get(`${url.id}-dash`))!.views,
      0,
      "the page answered, no view counted",
    );
  },
);

apiTest("redirects: maxViews N allows N redirects, then 404 and deletion", async (app) => {
  const alice = await actor(app, "USER");
  const url = (await shorten(app, alice, { destination: "https://a.example" }, {
    "x-service-max-views": "2",
  })).body;
  assert.equal((await visit(app, `/go/${url.code}`)).status, 302);
  assert.equal((await visit(app, `/go/${url.code}`)).status, 302);
  assert.equal((await visit(app, `/go/${url.code}`)).status, 404);
  assert.equal(await app.services.store.urls.get(url.id), null);

  await app.services.store.settings.update({ featuresDeleteOnMaxViews: false });
  await app.services.settings.reload();
  const kept = (await shorten(app, alice, { destination: "https://a.example" }, {
    "x-service-max-views": "1",
  })).body;
  assert.equal((await visit(app, `/go/${kept.code}`)).status, 302);
  assert.equal((await visit(app, `/go/${kept.code}`)).status, 404);
  assert.equal((await app.services.store.urls.get(kept.id))!.views, 1);
});

apiTest(
  "redirects: concurrent visits of a maxViews URL redirect exactly maxViews times",
  async (app) => {
    const alice = await actor(app, "USER");
    await app.services.store.settings.update({ featuresDeleteOnMaxViews: false });
    await app.services.settings.reload();
    const url = (await shorten(app, alice, { destination: "https://a.example" }, {
      "x-service-max-views": "5",
    })).body;
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => visit(app, `/go/${url.code}`)),
    );
    assert.equal(replies.filter((r) => r.status === 302).length, 5);
    assert.equal(replies.filter((r) => r.status === 404).length, 15);
    assert.equal((await app.services.store.urls.get(url.id))!.views, 5);
  },
);

apiTest(
  "redirects: a password is verified once, then a 60-second cookie lets it through",
  async (app) => {
    const alice = await actor(app, "USER");
    const url = (await shorten(app, alice, { destination: "https://a.example", vanity: "pw" }, {
      "x-service-password": "open sesame",
    })).body;
    const asked = await visit(app, "/go/pw");
    assert.equal(asked.status, 302);
    assert.equal(asked.headers.get("location"), `/view/url/${url.id}`);

    const wrong = await app.json("POST", "/api/user/urls/pw/password", { password: "nope" });
    assert.deepEqual(wrong.body, { error: "Incorrect password", statusCode: 403 });
    const unknown = await app.json("POST", "/api/user/urls/zzz/password", { password: "x" });
    assert.equal(unknown.status, 404);
    const plain = (await shorten(app, alice, { destination: "https://b.example" })).body;
    const none = await app.json("POST", `/api/user/urls/${plain.id}/password`, { password: "x" });
    assert.equal(none.status, 404);

    const right = await app.json("POST", `/api/user/urls/${url.id}/password`, {
      password: "  open sesame ",
    });
    assert.deepEqual(right.body, { success: true });
    const cookie = right.headers.getSetCookie().find((c) => c.startsWith(`url_pw_${url.id}=`));
    assert.ok(cookie);
    assert.match(cookie, /Max-Age=60/);
    assert.match(cookie, /Path=\//);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, /HttpOnly/, "security #30.11: a grant no script reads");
    const pair = cookie.split(";")[0];
    const through = await visit(app, "/go/pw", pair);
    assert.equal(through.status, 302);
    assert.equal(through.headers.get("location"), "https://a.example");
    // A cookie with another value does not open it.
    assert.equal(
      (await visit(app, "/go/pw", `url_pw_${url.id}=guess`)).headers.get("location"),
      `/view/url/${url.id}`,
    );
    const attempts = app.logger.lines.filter((l) => l.message === "url password attempt");
    assert.deepEqual(attempts.map((l) => l.fields?.success), [false, true, false]);
    assert.equal((await app.services.store.urls.get(url.id))!.views, 1);
  },
);

apiTest(
  "/view/url/:id: the password page, then one counted view and the destination",
  async (app) => {
    const alice = await actor(app, "USER");
    const url =
      (await shorten(app, alice, { destination: "https://secret.example/x", vanity: "pv" }, {
        "x-service-password": "open sesame",
      })).body;
    const asked = await visit(app, `/view/url/${url.id}`);
    assert.equal(asked.status, 200);
    assert.match(asked.headers.get("content-type")!, /^text\/html/);
    const csp = asked.headers.get("content-security-policy")!;
    assert.match(csp, /script-src 'nonce-[\w-]{22}' 'strict-dynamic'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.equal(asked.headers.get("cache-control"), "no-store");
    const html = await asked.text();
    assert.match(html, new RegExp(`<form id="url-password-form"[^>]*data-url-id="${url.id}"`));
    assert.match(html, /<script src="\/assets\/ferry\.[0-9a-f]{12}\.js"/);
    assert.doesNotMatch(html, /secret\.example|<script>/, "no destination, no inline script");
    // The code and the vanity name the same page.
    assert.equal((await visit(app, "/view/url/pv")).status, 200);
    assert.equal((await visit(app, `/view/url/${url.code}`)).status, 200);

    const wrong = `url_pw_${url.id}=nope`;
    assert.equal((await visit(app, `/view/url/${url.id}`, wrong)).status, 200);
    const right = await app.json("POST", `/api/user/urls/${url.id}/password`, {
      password: "open sesame",
    });
    assert.equal(right.status, 200);
    const cookie = right.headers.getSetCookie()[0].split(";")[0];
    assert.equal((await app.services.store.urls.get(url.id))!.views, 0, "verifying counts nothing");
    const through = await visit(app, `/view/url/${url.id}`, cookie);
    assert.equal(through.status, 302);
    assert.equal(through.headers.get("location"), "https://secret.example/x");
    const got = await app.json("GET", `/api/user/urls/${url.id}`, undefined, alice.headers);
    assert.equal(got.body.views, 1);
  },
);

apiTest("/view/url/:id: unknown, disabled, used up and unprotected URLs", async (app) => {
  const alice = await actor(app, "USER");
  const pw = { "x-service-password": "pw" };
  assert.equal((await visit(app, "/view/url/nothing-here")).status, 404);
  const off = (await shorten(app, alice, { destination: "https://a.example", enabled: false }, pw))
    .body;
  assert.equal((await visit(app, `/view/url/${off.id}`)).status, 404);
  const once = (await shorten(app, alice, { destination: "https://b.example" }, {
    ...pw,
    "x-service-max-views": "1",
  })).body;
  const verified = await app.json("POST", `/api/user/urls/${once.id}/password`, { password: "pw" });
  const cookie = verified.headers.getSetCookie()[0].split(";")[0];
  assert.equal((await visit(app, `/view/url/${once.id}`, cookie)).status, 302);
  assert.equal((await visit(app, `/view/url/${once.id}`)).status, 404, "no password asked");
  assert.equal(await app.services.store.urls.get(once.id), null, "deleted at its max views");
  assert.equal((await visit(app, `/view/url/${once.id}`, cookie)).status, 404);
  const plain = (await shorten(app, alice, { destination: "https://c.example" })).body;
  const go = await visit(app, `/view/url/${plain.id}`);
  assert.equal(go.status, 302);
  assert.equal(go.headers.get("location"), "https://c.example");
  assert.equal((await app.services.store.urls.get(plain.id))!.views, 1);
});

apiTest("the password route allows 2 attempts per second", async (app) => {
  const alice = await actor(app, "USER");
  const url = (await shorten(app, alice, { destination: "https://a.example" }, {
    "x-service-password": "pw",
  })).body;
  const statuses = [];
  for (let i = 0; i < 3; i++) {
    statuses.push(
      (await app.json("POST", `/api/user/urls/${url.id}/password`, { password: "x" })).status,
    );
  }
  assert.deepEqual(statuses, [403, 403, 429]);
}, { rateLimits: true });

apiTest("shared route `/`: URLs are looked up first, unknown names fall through", async (app) => {
  const alice = await actor(app, "USER");
  await app.services.store.settings.update({ urlsRoute: "/", filesRoute: "/" });
  await app.services.settings.reload();
  const url = (await shorten(app, alice, { destination: "https://a.example", vanity: "hello" }))
    .body;
  assert.equal(url.url, "http://ferry.test/hello");
  const go = await visit(app, "/hello");
  assert.equal(go.status, 302);
  assert.equal(go.headers.get("location"), "https://a.example");
  assert.equal((await visit(app, `/${url.code}`)).status, 302);
  assert.equal((await visit(app, "/no-such-name")).status, 404);
  // The invite link keeps its own route.
  assert.equal(
    (await visit(app, "/invite/abc")).headers.get("location"),
    "/auth/register?code=abc",
  );
});

apiTest("maxUrls: the quota is enforced, also against concurrent creates", async (app) => {
  const root = await actor(app, "SUPERADMIN");
  const alice = await actor(app, "USER");
  const quota = await app.json("PATCH", `/api/users/${alice.user.id}`, {
    quota: { filesType: "NONE", maxUrls: 3 },
  }, root.headers);
  assert.equal(quota.status, 200);
  const replies = await Promise.all(
    Array.from({ length: 8 }, () => shorten(app, alice, { destination: "https://a.example" })),
  );
  assert.equal(replies.filter((r) => r.status === 200).length, 3);
  const refused = replies.find((r) => r.status === 403);
  assert.deepEqual(refused?.body, {
    error: "Shortening this URL would exceed your quota of 3 URLs.",
    statusCode: 403,
  });
  assert.equal(await app.services.store.urls.countByUser(alice.user.id), 3);

  const first = replies.find((r) => r.status === 200)!.body;
  await app.json("DELETE", `/api/user/urls/${first.id}`, undefined, alice.headers);
  assert.equal((await shorten(app, alice, { destination: "https://a.example" })).status, 200);
  assert.equal((await shorten(app, alice, { destination: "https://a.example" })).status, 403);
});

apiTest("deleting a user removes its URLs with `delete: true`, else orphans them", async (app) => {
  const root = await actor(app, "SUPERADMIN");
  const keep = await actor(app, "USER");
  const drop = await actor(app, "USER");
  const kept = (await shorten(app, keep, { destination: "https://a.example" })).body;
  const dropped = (await shorten(app, drop, { destination: "https://b.example" })).body;

  await app.json("DELETE", `/api/users/${keep.user.id}`, { delete: false }, root.headers);
  const orphan = await app.services.store.urls.get(kept.id);
  assert.equal(orphan?.userId, null);
  assert.equal((await visit(app, `/go/${kept.code}`)).status, 302);

  await app.json("DELETE", `/api/users/${drop.user.id}`, { delete: true }, root.headers);
  assert.equal(await app.services.store.urls.get(dropped.id), null);
  assert.equal((await visit(app, `/go/${dropped.code}`)).status, 404);
});

apiTest(
  "list with page and perpage: a page oldest first with the totals; without page, every URL as Zipline answers",
  async (app) => {
    const alice = await actor(app, "USER");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await shorten(app, alice, { destination: `https://example.com/${i}` })).body.id);
      app.clock.advance(1000);
    }
    const all = await app.json("GET", "/api/user/urls", undefined, alice.headers);
    assert.deepEqual(all.body.map((u: { id: string }) => u.id), ids, "a plain array");
    const page = (n: number, query = "") =>
      app.json("GET", `/api/user/urls?page=${n}&perpage=2${query}`, undefined, alice.headers);
    const second = await page(2);
    assert.equal(second.status, 200);
    assert.deepEqual(second.body.page, all.body.slice(2, 4), "the same URLs, shaped the same");
    assert.deepEqual([second.body.total, second.body.pages], [5, 3]);
    assert.deepEqual((await page(3)).body.page.map((u: { id: string }) => u.id), [ids[4]]);
    assert.deepEqual((await page(4)).body, { page: [], total: 5, pages: 3 });
    const searched = await page(1, "&searchQuery=example.com/3");
    assert.deepEqual(
      [searched.body.page.map((u: { id: string }) => u.id), searched.body.total],
      [[ids[3]], 1],
    );
    const deleted = await app.json("DELETE", `/api/user/urls/${ids[0]}`, undefined, alice.headers);
    assert.equal(deleted.status, 200);
    assert.deepEqual((await page(1)).body.page.map((u: { id: string }) => u.id), ids.slice(1, 3));
    const bad = await app.json("GET", "/api/user/urls?page=0", undefined, alice.headers);
    assert.equal(bad.status, 400);
    assert.equal(
      (await app.json("GET", "/api/user/urls?page=1&perpage=1001", undefined, alice.headers))
        .status,
      400,
    );
  },
);
