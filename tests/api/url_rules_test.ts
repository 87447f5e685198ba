/**
 * Short links that end and route (issue #35, part 3): `expiresAt` (the body,
 * or the `deletes-at` header on shorten), the 410 and its page after it, the
 * task that removes them after `urlsExpiredRetention`; a destination per
 * device class and the visit's query string forwarded, by the app and by the
 * redirect's fast path alike. A v4 export and import carry them: the round
 * trip of `export_test.ts`.
 */
import assert from "node:assert/strict";
import { deleteExpiredUrls } from "../../core/tasks/cleanup.ts";
import { createHandler } from "../../routes/mod.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { type Actor, actor } from "../helpers/users.ts";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 " +
  "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
const ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like " +
  "Gecko) Chrome/124.0.0.0 Mobile Safari/537.36";
const DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) " +
  "Chrome/124.0.0.0 Safari/537.36";
const OTHER_PHONE = "Mozilla/5.0 (Mobile; rv:48.0) Gecko/48.0 Firefox/48.0 KAIOS/2.5";

async function shorten(
  app: TestApp,
  who: Actor,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return await app.json("POST", "/api/user/urls", body, { ...who.headers, ...headers });
}

/**
 * A GET of `path` through the server's own handler (the fast path first, then
 * the app), redirects not followed.
 */
function visitor(app: TestApp) {
  const { fetch } = createHandler(app.services);
  return async (path: string, headers: Record<string, string> = {}) =>
    await fetch(new Request(new URL(path, "http://ferry.test"), { redirect: "manual", headers }));
}

apiTest("url rules: expiresAt is shown, redirects until it, then 410 with a page", async (app) => {
  const alice = await actor(app, "USER");
  const at = new Date(app.clock.now() + HOUR);
  const made = await shorten(app, alice, {
    destination: "https://example.com/a",
    expiresAt: at.toISOString(),
  });
  assert.equal(made.status, 200);
  assert.equal(made.body.expiresAt, at.toISOString());
  assert.equal(made.body.forwardQuery, false);
  assert.equal(made.body.deviceDestinations, null);

  const visit = visitor(app);
  const before = await visit(`/go/${made.body.code}`);
  assert.equal(before.status, 302);
  // Cached now: the fast path must not outlive the expiry either.
  assert.equal((await visit(`/go/${made.body.code}`)).status, 302);

  app.clock.advance(HOUR);
  const json = await visit(`/go/${made.body.code}`);
  assert.equal(json.status, 410);
  assert.deepEqual(await json.json(), { error: "This link has expired", statusCode: 410 });
  const page = await visit(`/go/${made.body.code}`, { accept: "text/html" });
  assert.equal(page.status, 410);
  const html = await page.text();
  assert.match(html, /This link has expired/);
  assert.doesNotMatch(html, /example\.com\/a/, "the page does not give the destination away");
  const passwordPage = await visit(`/view/url/${made.body.id}`, { accept: "text/html" });
  assert.equal(passwordPage.status, 410);

  const after = await app.json("GET", `/api/user/urls/${made.body.id}`, undefined, alice.headers);
  assert.equal(after.body.views, 2, "the 410s counted no view");
});

apiTest("url rules: the deletes-at header on shorten, and bad expiries are 400s", async (app) => {
  const alice = await actor(app, "USER");
  const now = app.clock.now();
  const inADay = await shorten(app, alice, { destination: "https://example.com/" }, {
    "x-zipline-deletes-at": "1d",
  });
  assert.equal(inADay.status, 200);
  assert.equal(inADay.body.expiresAt, new Date(now + DAY).toISOString());

  const dated = await shorten(app, alice, { destination: "https://example.com/" }, {
    "x-service-deletes-at": "date=2030-05-01T00:00:00Z",
  });
  assert.equal(dated.body.expiresAt, "2030-05-01T00:00:00.000Z");

  const never = await shorten(app, alice, { destination: "https://example.com/" }, {
    "x-zipline-deletes-at": "never",
  });
  assert.equal(never.body.expiresAt, null);

  const bodyWins = await shorten(app, alice, {
    destination: "https://example.com/",
    expiresAt: new Date(now + 2 * HOUR).toISOString(),
  }, { "x-zipline-deletes-at": "1d" });
  assert.equal(bodyWins.body.expiresAt, new Date(now + 2 * HOUR).toISOString());

  for (const header of ["soon", "-1h", "date=2001-01-01"]) {
    const bad = await shorten(app, alice, { destination: "https://example.com/" }, {
      "x-zipline-deletes-at": header,
    });
    assert.equal(bad.status, 400, header);
    assert.equal(bad.body.error, "bad options[deletes-at]: Invalid expiry date");
  }
  const past = await shorten(app, alice, {
    destination: "https://example.com/",
    expiresAt: new Date(now - 1000).toISOString(),
  });
  assert.equal(past.status, 400);
  assert.equal(past.body.error, "The expiry must be in the future");
  const notADate = await shorten(app, alice, {
    destination: "https://example.com/",
    expiresAt: "tomorrow",
  });
  assert.equal(notADate.status, 400);

  const list = await app.json("GET", "/api/user/urls", undefined, alice.headers);
  assert.equal(list.body.length, 4, "no refused shorten stored anything");
});

apiTest("url rules: PATCH sets, moves and clears the expiry", async (app) => {
  const alice = await actor(app, "USER");
  const made = await shorten(app, alice, { destination: "https://example.com/" });
  const path = `/api/user/urls/${made.body.id}`;
  const later = new Date(app.clock.now() + HOUR).toISOString();
  const set = await app.json("PATCH", path, { expiresAt: later }, alice.headers);
  assert.equal(set.status, 200);
  assert.equal(set.body.expiresAt, later);
  const past = await app.json("PATCH", path, {
    expiresAt: new Date(app.clock.now() - 1).toISOString(),
  }, alice.headers);
  assert.equal(past.status, 400);
  assert.equal((await app.json("GET", path, undefined, alice.headers)).body.expiresAt, later);

  app.clock.advance(2 * HOUR);
  const visit = visitor(app);
  assert.equal((await visit(`/go/${made.body.code}`)).status, 410);
  const cleared = await app.json("PATCH", path, { expiresAt: null }, alice.headers);
  assert.equal(cleared.body.expiresAt, null);
  assert.equal((await visit(`/go/${made.body.code}`)).status, 302, "alive again");
});

apiTest("url rules: a destination per device class, by the app and the fast path", async (app) => {
  const alice = await actor(app, "USER");
  const made = await shorten(app, alice, {
    destination: "https://example.com/web",
    deviceDestinations: {
      ios: "https://apps.apple.example/app",
      android: "https://play.example/app",
      desktop: "https://example.com/desktop",
    },
  });
  assert.equal(made.status, 200);
  assert.deepEqual(made.body.deviceDestinations, {
    ios: "https://apps.apple.example/app",
    android: "https://play.example/app",
    desktop: "https://example.com/desktop",
  });
  const visit = visitor(app);
  const where = async (agent?: string) =>
    (await visit(`/go/${made.body.code}`, agent ? { "user-agent": agent } : {}))
      .headers.get("location");
  // Twice each: the first through the app, the second from the fast path's cache.
  for (let round = 0; round < 2; round++) {
    assert.equal(await where(IPHONE), "https://apps.apple.example/app");
    assert.equal(await where(ANDROID), "https://play.example/app");
    assert.equal(await where(DESKTOP), "https://example.com/desktop");
    assert.equal(await where(OTHER_PHONE), "https://example.com/web");
    assert.equal(await where(), "https://example.com/web");
  }

  const onlyIos = await app.json("PATCH", `/api/user/urls/${made.body.id}`, {
    deviceDestinations: { ios: "https://apps.apple.example/app" },
  }, alice.headers);
  assert.deepEqual(onlyIos.body.deviceDestinations, { ios: "https://apps.apple.example/app" });
  assert.equal(await where(DESKTOP), "https://example.com/web");
  const none = await app.json("PATCH", `/api/user/urls/${made.body.id}`, {
    deviceDestinations: {},
  }, alice.headers);
  assert.equal(none.body.deviceDestinations, null);
  assert.equal(await where(IPHONE), "https://example.com/web");

  const bad = await app.json("PATCH", `/api/user/urls/${made.body.id}`, {
    deviceDestinations: { ios: "javascript:alert(1)" },
  }, alice.headers);
  assert.equal(bad.status, 400);
  const unknown = await app.json("PATCH", `/api/user/urls/${made.body.id}`, {
    deviceDestinations: { fridge: "https://example.com/" },
  }, alice.headers);
  assert.equal(unknown.status, 400);
  const stats = await app.json("GET", `/api/user/urls/${made.body.id}`, undefined, alice.headers);
  assert.equal(stats.body.views, 12, "every redirect counted, whichever destination");
});

apiTest("url rules: the visit's query string is forwarded when asked", async (app) => {
  const alice = await actor(app, "USER");
  const visit = visitor(app);
  const cases: [string, string, string][] = [
    ["https://example.com/p", "?utm_source=x&a=1", "https://example.com/p?utm_source=x&a=1"],
    ["https://example.com/p?k=v", "?a=1", "https://example.com/p?k=v&a=1"],
    ["https://example.com/p?", "?a=1", "https://example.com/p?a=1"],
    ["https://example.com/p#top", "?a=1", "https://example.com/p?a=1#top"],
    ["https://example.com/p?k=v", "", "https://example.com/p?k=v"],
  ];
  for (const [destination, query, expected] of cases) {
    const made = await shorten(app, alice, { destination, forwardQuery: true });
    assert.equal(made.body.forwardQuery, true);
    for (let round = 0; round < 2; round++) {
      const res = await visit(`/go/${made.body.code}${query}`);
      assert.equal(res.headers.get("location"), expected, `${destination} + ${query}`);
    }
  }
  const plain = await shorten(app, alice, { destination: "https://example.com/p" });
  const res = await visit(`/go/${plain.body.code}?a=1`);
  assert.equal(res.headers.get("location"), "https://example.com/p", "not forwarded by default");
});

apiTest("url rules: a locked or limited URL applies its rules once it redirects", async (app) => {
  const alice = await actor(app, "USER");
  const visit = visitor(app);
  const limited = await shorten(app, alice, {
    destination: "https://example.com/web",
    deviceDestinations: { android: "https://play.example/app" },
    forwardQuery: true,
  }, { "x-zipline-max-views": "1" });
  const first = await visit(`/go/${limited.body.code}?ref=1`, { "user-agent": ANDROID });
  assert.equal(first.headers.get("location"), "https://play.example/app?ref=1");
  assert.equal((await visit(`/go/${limited.body.code}`)).status, 404, "its one view used");

  const locked = await shorten(app, alice, {
    destination: "https://example.com/web",
    deviceDestinations: { ios: "https://apps.apple.example/app" },
  }, { "x-zipline-password": "hunter22" });
  const asked = await visit(`/go/${locked.body.code}`, { "user-agent": IPHONE });
  assert.equal(asked.headers.get("location"), `/view/url/${locked.body.id}`);
  const ok = await app.json("POST", `/api/user/urls/${locked.body.id}/password`, {
    password: "hunter22",
  });
  assert.equal(ok.status, 200);
  const cookie = ok.headers.get("set-cookie")!.split(";")[0];
  const opened = await visit(`/go/${locked.body.code}`, { "user-agent": IPHONE, cookie });
  assert.equal(opened.headers.get("location"), "https://apps.apple.example/app");
});

apiTest("url rules: the task removes URLs expired past urlsExpiredRetention", async (app) => {
  const alice = await actor(app, "USER");
  const made = async (hours: number) =>
    (await shorten(app, alice, {
      destination: "https://example.com/",
      expiresAt: new Date(app.clock.now() + hours * HOUR).toISOString(),
    })).body;
  const early = await made(1);
  const late = await made(48);
  const forever = (await shorten(app, alice, { destination: "https://example.com/" })).body;
  const codes = async () =>
    (await app.json("GET", "/api/user/urls", undefined, alice.headers)).body
      .map((u: { code: string }) => u.code).sort();

  app.clock.advance(2 * HOUR);
  assert.equal(await deleteExpiredUrls(app.services), 0, "within the default 7 days");
  assert.equal((await visitor(app)(`/go/${early.code}`)).status, 410);

  app.clock.advance(7 * DAY);
  assert.equal(await deleteExpiredUrls(app.services), 1, "a week after its expiry");
  assert.deepEqual(await codes(), [late.code, forever.code].sort());
  assert.equal((await visitor(app)(`/go/${early.code}`)).status, 404, "gone once removed");
  assert.equal((await visitor(app)(`/go/${late.code}`)).status, 410, "expired a day ago");
  app.clock.advance(2 * DAY);
  assert.equal(await deleteExpiredUrls(app.services), 1);
  assert.deepEqual(await codes(), [forever.code]);

  await app.services.store.settings.update({ urlsExpiredRetention: null });
  await app.services.settings.reload();
  const kept = await made(1);
  app.clock.advance(365 * DAY);
  assert.equal(await deleteExpiredUrls(app.services), 0, "null keeps them");
  assert.deepEqual(await codes(), [forever.code, kept.code].sort());
});
