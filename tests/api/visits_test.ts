/**
 * Per-visit analytics (issue #35 part 2), on both stores: visits of short
 * URLs, files (`/raw`, `/u`, `/view`) and share links recorded in batches (seen once the manual
 * clock passes the flush delay), user agents parsed, bots and Do Not Track,
 * unique visitors per hour and day (estimates; hours counted exactly before
 * sketches keep their counts) and the daily salt, ranges and buckets,
 * who may read them, deletion, the retention task, export and import, and
 * the country from a GeoLite2-Country-shaped database written by the test.
 */
import assert from "node:assert/strict";
import { apiTest, startTestApp, type TestApp } from "../helpers/app.ts";
import { importDoc, importIntoFresh } from "../helpers/transfer.ts";
import { pruneVisits } from "../../core/tasks/visits.ts";
import { ERROR_BOUND } from "../../db/hll.ts";
import { uploadOne } from "../helpers/files.ts";
import { countryMmdb } from "../helpers/mmdb.ts";
import { type Actor, actor } from "../helpers/users.ts";
import { FLUSH_DELAY_MS, VisitRecorder, visitWorkerStats } from "../../core/visits/recorder.ts";
import { closeVisits } from "../../core/visits/record.ts";
import type { Settings } from "../../core/settings/registry.ts";
import type { VisitBatchWriter, VisitStoreAddress } from "../../db/visit_batch.ts";

/** A fixed start, ahead of the test app's clock, at the top of an hour. */
const START = Date.UTC(2027, 2, 10, 10, 0, 0);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const CHROME_WINDOWS =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const IPAD =
  "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

async function settings(app: TestApp, values: Partial<Settings>) {
  await app.services.store.settings.update(values);
  await app.services.settings.reload();
}

/** A short URL of `who`: its id and path. */
async function shorten(app: TestApp, who: Actor) {
  const res = await app.json("POST", "/api/user/urls", { destination: "https://example.com/" }, {
    ...who.headers,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { id: res.body.id as string, path: new URL(res.body.url).pathname };
}

/** A GET of a public `path` by `ua` with `headers`, redirects not followed; its status. */
async function hit(app: TestApp, path: string, ua: string, headers: Record<string, string> = {}) {
  const res = await app.request(path, {
    redirect: "manual",
    headers: { "user-agent": ua, ...headers },
  });
  await res.body?.cancel();
  return res.status;
}

/** Lets the flush delay pass on the manual clock. */
const flushDelay = (app: TestApp) => app.clock.advance(FLUSH_DELAY_MS);

/** The visits report at `path` (query added) for `who`, asserting 200. */
async function report(app: TestApp, who: Actor, path: string, query = "") {
  const res = await app.json("GET", `${path}${query ? `?${query}` : ""}`, undefined, who.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/**
 * {@link apiTest} with analytics turned on first (they are off by default:
 * recording costs the redirect's fast path, `bench/results/visits.md`).
 */
function visitsTest(
  name: string,
  fn: (app: TestApp) => Promise<void>,
  options?: Parameters<typeof apiTest>[2],
) {
  apiTest(name, async (app) => {
    await settings(app, { analyticsEnabled: true });
    await fn(app);
  }, options);
}

const total = (body: { series: { visits: number }[] }) =>
  body.series.reduce((n, p) => n + p.visits, 0);
const uniques = (body: { series: { unique: number }[] }) =>
  body.series.reduce((n, p) => n + p.unique, 0);

apiTest("visits: off by default, a visit records nothing", async (app) => {
  const alice = await actor(app, "USER");
  const url = await shorten(app, alice);
  assert.equal(await hit(app, url.path, CHROME_WINDOWS), 302);
  flushDelay(app);
  const body = await report(app, alice, `/api/user/urls/${url.id}/visits`);
  assert.equal(total(body), 0);
  assert.equal(body.recording, false, "the dashboard says what to do");
});

visitsTest(
  "visits: a redirect, a /raw file and a share link's file are recorded once the batch is written",
  async (app) => {
    app.clock.set(START);
    const alice = await actor(app, "USER");
    const url = await shorten(app, alice);
    const file = await uploadOne(app, alice.headers);
    const shared = await app.json("POST", `/api/user/files/${file.id}/shares`, {}, alice.headers);
    assert.equal(shared.status, 200);
    const referer = { referer: "https://news.example.org/item?id=7" };

    assert.equal(await hit(app, url.path, CHROME_WINDOWS, referer), 302);
    assert.equal(await hit(app, url.path, CHROME_WINDOWS, referer), 302); // the fast path
    assert.equal(await hit(app, `/raw/${file.name}`, IPHONE), 200);
    assert.equal(await hit(app, `/s/${shared.body.code}/raw`, FIREFOX_LINUX), 200);

    const urlVisits = `/api/user/urls/${url.id}/visits`;
    const before = await report(app, alice, urlVisits, "bucket=hour");
    assert.equal(total(before), 0, "nothing is written before the flush delay");

    flushDelay(app);
    const after = await report(app, alice, urlVisits, "bucket=hour");
    assert.equal(total(after), 2);
    assert.deepEqual(after.top.referrers, [{ value: "news.example.org", visits: 2 }]);
    assert.deepEqual(after.top.browsers, [{ value: "Chrome", visits: 2 }]);
    assert.deepEqual(after.top.os, [{ value: "Windows", visits: 2 }]);
    assert.deepEqual(after.top.devices, [{ value: "desktop", visits: 2 }]);
    assert.deepEqual(after.top.countries, []);

    const fileReport = await report(app, alice, `/api/user/files/${file.id}/visits`);
    assert.equal(total(fileReport), 2, "the /raw visit and the share link's");
    assert.deepEqual(
      fileReport.top.browsers.map((b: { value: string }) => b.value).sort(),
      ["Firefox", "Mobile Safari"],
    );
    const mine = await report(app, alice, "/api/user/visits", "bucket=day");
    assert.equal(total(mine), 4, "the owner's roll-up holds both");
    assert.equal(mine.recording, true);
  },
);

visitsTest(
  "visits: a file's /u and /view, and a folder link's file, are recorded as /raw is",
  async (app) => {
    app.clock.set(START);
    const alice = await actor(app, "USER");
    const folder = await app.json("POST", "/api/user/folders", { name: "Trip" }, alice.headers);
    assert.equal(folder.status, 200, JSON.stringify(folder.body));
    const into = { ...alice.headers, "x-service-folder": folder.body.id };
    // Not text: `/u` serves its bytes (a text file's `/u` leads to its `/view` page).
    const file = await uploadOne(
      app,
      into,
      "\x00\x01 data",
      "data.bin",
      "application/octet-stream",
    );
    const link = await app.json(
      "POST",
      `/api/user/folders/${folder.body.id}/shares`,
      {},
      alice.headers,
    );
    assert.equal(link.status, 200, JSON.stringify(link.body));

    const from = (host: string) => ({ referer: `https://${host}/page` });
    assert.equal(await hit(app, `/u/${file.name}`, CHROME_WINDOWS, from("a.example")), 200);
    assert.equal(await hit(app, `/view/${file.name}`, IPHONE, from("b.example")), 200);
    assert.equal(await hit(app, `/s/${link.body.code}`, IPAD), 200, "the folder's page");
    assert.equal(await hit(app, `/s/${link.body.code}/files/${file.id}`, FIREFOX_LINUX), 200);
    flushDelay(app);

    const body = await report(app, alice, `/api/user/files/${file.id}/visits`);
    assert.equal(total(body), 3, "/u, /view and the link's file; the folder's page is no file's");
    const values = (list: { value: string; visits: number }[]) =>
      Object.fromEntries(list.map((e) => [e.value, e.visits]));
    assert.deepEqual(values(body.top.browsers), { Chrome: 1, "Mobile Safari": 1, Firefox: 1 });
    assert.deepEqual(values(body.top.referrers), { "a.example": 1, "b.example": 1 });
    const mine = await report(app, alice, "/api/user/visits");
    assert.equal(total(mine), 3, "the owner's roll-up has them");
  },
);

visitsTest("visits: user agents become browser, OS and device class", async (app) => {
  app.clock.set(START);
  const alice = await actor(app, "USER");
  const url = await shorten(app, alice);
  for (const ua of [IPHONE, IPAD, CHROME_WINDOWS, FIREFOX_LINUX, ""]) {
    assert.equal(await hit(app, url.path, ua), 302);
  }
  flushDelay(app);
  const body = await report(app, alice, `/api/user/urls/${url.id}/visits`);
  const counts = (list: { value: string; visits: number }[]) =>
    Object.fromEntries(list.map((e) => [e.value, e.visits]));
  assert.deepEqual(counts(body.top.devices), { desktop: 3, mobile: 1, tablet: 1 });
  assert.deepEqual(counts(body.top.os), { iOS: 2, Windows: 1, Linux: 1 });
  assert.deepEqual(counts(body.top.browsers), { "Mobile Safari": 2, Chrome: 1, Firefox: 1 });
});

visitsTest("visits: bots are left out unless analyticsCountBots, then flagged", async (app) => {
  app.clock.set(START);
  const alice = await actor(app, "USER");
  const url = await shorten(app, alice);
  const path = `/api/user/urls/${url.id}/visits`;
  await hit(app, url.path, GOOGLEBOT);
  flushDelay(app);
  assert.equal(total(await report(app, alice, path)), 0);

  await settings(app, { analyticsCountBots: true });
  await hit(app, url.path, GOOGLEBOT);
  flushDelay(app);
  const counted = await report(app, alice, path);
  assert.equal(total(counted), 1);
  assert.deepEqual(counted.top.devices, [{ value: "bot", visits: 1 }]);
  const [raw] = await Array.fromAsync(app.services.store.visits.list("url", url.id));
  assert.equal(raw.bot, true);
});

visitsTest(
  "visits: DNT and Sec-GPC are honoured unless analyticsHonorDoNotTrack is off",
  async (app) => {
    app.clock.set(START);
    const alice = await actor(app, "USER");
    const url = await shorten(app, alice);
    const path = `/api/user/urls/${url.id}/visits`;
    assert.equal(await hit(app, url.path, CHROME_WINDOWS, { dnt: "1" }), 302, "still redirected");
    assert.equal(await hit(app, url.path, CHROME_WINDOWS, { "sec-gpc": "1" }), 302);
    flushDelay(app);
    assert.equal(total(await report(app, alice, path)), 0);

    await settings(app, { analyticsHonorDoNotTrack: false });
    await hit(app, url.path, CHROME_WINDOWS, { dnt: "1" });
    flushDelay(app);
    assert.equal(total(await report(app, alice, path)), 1);

    await settings(app, { analyticsEnabled: false });
    await hit(app, url.path, CHROME_WINDOWS);
    flushDelay(app);
    assert.equal(total(await report(app, alice, path)), 1, "analytics off: nothing recorded");
  },
);

visitsTest(
  "visits: a visitor counts once per hour and per day, however many visits",
  async (app) => {
    app.clock.set(START);
    const alice = await actor(app, "USER");
    const url = await shorten(app, alice);
    const other = await shorten(app, alice);
    for (let i = 0; i < 3; i++) await hit(app, url.path, CHROME_WINDOWS);
    await hit(app, other.path, CHROME_WINDOWS);
    await hit(app, url.path, IPHONE);
    flushDelay(app);
    app.clock.advance(HOUR); // a later batch, a later hour, the same visitor
    await hit(app, url.path, CHROME_WINDOWS);
    flushDelay(app);

    const path = `/api/user/urls/${url.id}/visits`;
    const hourly = await report(app, alice, path, "bucket=hour");
    const busy = hourly.series.filter((p: { visits: number }) => p.visits > 0);
    assert.deepEqual(busy.map((p: { visits: number; unique: number }) => [p.visits, p.unique]), [
      [4, 2],
      [1, 1],
    ]);
    const daily = await report(app, alice, path, "bucket=day");
    assert.deepEqual([total(daily), uniques(daily)], [5, 2], "one day: two visitors");
    const owner = await report(app, alice, "/api/user/visits", "bucket=day");
    assert.deepEqual([total(owner), uniques(owner)], [6, 2], "across links, still two");
  },
);

visitsTest(
  "visits: the salt is new every day, so a visitor of two days counts twice",
  async (app) => {
    app.clock.set(START);
    const alice = await actor(app, "USER");
    const url = await shorten(app, alice);
    await hit(app, url.path, CHROME_WINDOWS);
    flushDelay(app);
    app.clock.advance(DAY);
    await hit(app, url.path, CHROME_WINDOWS);
    flushDelay(app);
    const path = `/api/user/urls/${url.id}/visits`;
    const daily = await report(app, alice, path, "bucket=day");
    assert.deepEqual([total(daily), uniques(daily)], [2, 2]);
    const monthly = await report(app, alice, path, "bucket=month");
    assert.deepEqual([total(monthly), uniques(monthly)], [2, 2], "a month sums visitor-days");
    const raw = await Array.fromAsync(app.services.store.visits.list("url", url.id));
    assert.equal(raw.length, 2);
    assert.notEqual(raw[0].visitor, raw[1].visitor, "the hash differs from day to day");
    assert.match(raw[0].visitor, /^[0-9a-f]{16}$/);
    for (const visit of raw) {
      assert.ok(!Object.values(visit).includes("unknown"), "no address is stored");
    }
  },
);

visitsTest("visits: ranges and buckets; bad ranges are 400", async (app) => {
  app.clock.set(START + 30 * 60_000);
  const alice = await actor(app, "USER");
  const url = await shorten(app, alice);
  await hit(app, url.path, CHROME_WINDOWS);
  flushDelay(app);
  const path = `/api/user/urls/${url.id}/visits`;

  const byDay = await report(app, alice, path);
  assert.equal(byDay.bucket, "day");
  assert.equal(byDay.series.length, 31, "30 days back by default, widened to whole days");
  assert.equal(byDay.series.at(-1).visits, 1);

  const from = new Date(START - 2 * HOUR).toISOString();
  const to = new Date(START + 2 * HOUR).toISOString();
  const byHour = await report(app, alice, path, `bucket=hour&from=${from}&to=${to}`);
  assert.deepEqual(byHour.series.map((p: { visits: number }) => p.visits), [0, 0, 1, 0]);
  assert.equal(byHour.series[2].t, new Date(START).toISOString());
  assert.equal(byHour.from, from);
  assert.equal(byHour.to, to);

  const ms = await report(app, alice, path, `bucket=hour&from=${START}&to=${START + HOUR}`);
  assert.deepEqual(ms.series.map((p: { visits: number }) => p.visits), [1]);

  const byMonth = await report(app, alice, path, `bucket=month&from=2027-01-15&to=2027-04-01`);
  assert.deepEqual(byMonth.series.map((p: { t: string }) => p.t.slice(0, 7)), [
    "2027-01",
    "2027-02",
    "2027-03",
  ]);

  for (
    const query of [
      `from=${to}&to=${from}`,
      `from=${from}&to=${from}`,
      "from=yesterday",
      "bucket=hour&from=2027-01-01&to=2027-03-01",
      "bucket=day&from=2020-01-01&to=2027-03-01",
      "bucket=week",
    ]
  ) {
    const res = await app.json("GET", `${path}?${query}`, undefined, alice.headers);
    assert.equal(res.status, 400, query);
    assert.equal(res.body.statusCode, 400);
  }
});

visitsTest("visits: only the owner or an administrator reads a link's or a file's", async (app) => {
  app.clock.set(START);
  const alice = await actor(app, "USER");
  const eve = await actor(app, "USER");
  const admin = await actor(app, "ADMIN");
  const url = await shorten(app, alice);
  const file = await uploadOne(app, alice.headers);
  await hit(app, url.path, CHROME_WINDOWS);
  flushDelay(app);

  for (const path of [`/api/user/urls/${url.id}/visits`, `/api/user/files/${file.id}/visits`]) {
    const res = await app.json("GET", path, undefined, eve.headers);
    assert.equal(res.status, 404, path);
    assert.equal((await app.json("GET", path, undefined, admin.headers)).status, 200);
  }
  const missing = await app.json("GET", "/api/user/urls/nope/visits", undefined, alice.headers);
  assert.deepEqual(missing.body, { error: "URL not found", statusCode: 404 });
  assert.equal(total(await report(app, eve, "/api/user/visits")), 0, "eve's own: none");

  const server = await app.json("GET", "/api/server/visits", undefined, eve.headers);
  assert.equal(server.status, 403);
  assert.equal(total(await report(app, admin, "/api/server/visits")), 1);
});

visitsTest("visits: deleting a link or a file deletes its visits", async (app) => {
  app.clock.set(START);
  const alice = await actor(app, "USER");
  const url = await shorten(app, alice);
  const kept = await shorten(app, alice);
  const file = await uploadOne(app, alice.headers);
  await hit(app, url.path, CHROME_WINDOWS);
  await hit(app, url.path, IPHONE);
  await hit(app, kept.path, FIREFOX_LINUX);
  await hit(app, `/raw/${file.name}`, CHROME_WINDOWS);
  flushDelay(app);
  assert.equal(total(await report(app, alice, "/api/user/visits")), 4);

  assert.equal(
    (await app.json("DELETE", `/api/user/urls/${url.id}`, undefined, alice.headers))
      .status,
    200,
  );
  const deleted = await app.json("DELETE", `/api/user/files/${file.id}`, undefined, alice.headers);
  assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
  const store = app.services.store.visits;
  assert.deepEqual(await Array.fromAsync(store.list("url", url.id)), []);
  assert.deepEqual(await Array.fromAsync(store.list("file", file.id)), []);
  const after = await report(app, alice, "/api/user/visits");
  assert.equal(total(after), 1, "the owner's roll-up lost them");
  // Unique counts lose the deleted targets' own (db/visits.ts): at most the one left.
  assert.ok(uniques(after) <= 1);
  assert.deepEqual(after.top.browsers, [{ value: "Firefox", visits: 1 }]);
  const left = await store.hours({ kind: "url", id: url.id }, new Date(0), new Date(START + DAY));
  assert.deepEqual(left, []);
});

visitsTest(
  "visits: the retention task removes visits, hours and salts past their time",
  async (app) => {
    app.clock.set(START);
    await settings(app, { analyticsRetentionDays: 30 });
    const alice = await actor(app, "USER");
    const url = await shorten(app, alice);
    await hit(app, url.path, CHROME_WINDOWS);
    flushDelay(app);
    await report(app, alice, `/api/user/urls/${url.id}/visits`); // written
    app.clock.advance(20 * DAY);
    await hit(app, url.path, IPHONE);
    flushDelay(app);
    await report(app, alice, `/api/user/urls/${url.id}/visits`);

    app.clock.advance(15 * DAY); // the first visit is 35 days old, the second 15
    const controller = new AbortController();
    const removed = await pruneVisits(app.services, controller.signal);
    assert.ok(removed > 0);
    const raw = await Array.fromAsync(app.services.store.visits.list("url", url.id));
    assert.deepEqual(raw.map((v) => v.browser), ["Mobile Safari"]);
    const body = await report(app, alice, `/api/user/urls/${url.id}/visits`, "bucket=month");
    assert.equal(total(body), 1);
    const salt = await app.services.store.visits.salt("2027-03-10", "fresh");
    assert.equal(salt, "fresh", "the first day's salt was deleted");
    assert.equal(await pruneVisits(app.services, controller.signal), 1, "then only that salt");

    controller.abort();
    assert.equal(await pruneVisits(app.services, controller.signal), 0, "an aborted pass stops");
  },
);

visitsTest(
  "visits: the v4 export carries them and an import rebuilds their totals",
  async (app) => {
    app.clock.set(START);
    const root = await actor(app, "SUPERADMIN", "root");
    const bob = await actor(app, "USER", "bob");
    const url = await shorten(app, bob);
    const file = await uploadOne(app, bob.headers);
    await hit(app, url.path, CHROME_WINDOWS, { referer: "https://a.example/" });
    await hit(app, url.path, IPHONE);
    await hit(app, `/raw/${file.name}`, FIREFOX_LINUX);
    // Not flushed: the export writes what waits first.
    const exported = await app.request("/api/server/export", {
      method: "POST",
      headers: root.headers,
    });
    assert.equal(exported.status, 200);
    const doc = JSON.parse(await exported.text());
    assert.equal(doc.data.ferryVisits.length, 3);
    assert.ok(!JSON.stringify(doc.data.ferryVisits).includes("unknown"), "no address");

    const target = await startTestApp(app.kind);
    try {
      target.clock.set(app.clock.now());
      const admin = await actor(target, "SUPERADMIN", "admin");
      const res = await importDoc(target, "v4", doc, admin.headers);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.imported.visits, 3);
      const imported = await target.services.store.urls.getByName(url.path.split("/").pop()!);
      assert.ok(imported);
      const visits = await target.json(
        "GET",
        `/api/user/urls/${imported.id}/visits`,
        undefined,
        admin.headers,
      );
      assert.equal(visits.status, 200);
      assert.equal(total(visits.body), 2);
      assert.deepEqual(visits.body.top.referrers, [{ value: "a.example", visits: 1 }]);
      const server = await target.json("GET", "/api/server/visits", undefined, admin.headers);
      assert.deepEqual([total(server.body), uniques(server.body)], [3, 3]);

      delete doc.data.ferryVisits;
      const plain = await importIntoFresh(app.kind, doc);
      assert.equal(plain.imported.visits, 0, "a document without visits imports none");
    } finally {
      await target.close();
    }
  },
);

visitsTest(
  "visits: the country comes from a GeoLite2-Country database when one is set",
  async (app) => {
    app.clock.set(START);
    const dir = await Deno.makeTempDir({ prefix: "ferry-geo-" });
    try {
      const good = `${dir}/countries.mmdb`;
      await Deno.writeFile(
        good,
        countryMmdb([
          { network: "81.2.69.0/24", isoCode: "GB" },
          { network: "175.16.199.0/24", isoCode: "CN" },
        ]),
      );
      const broken = `${dir}/broken.mmdb`;
      await Deno.writeTextFile(broken, "not a database");
      await settings(app, { coreTrustProxy: true });
      const alice = await actor(app, "USER");
      const url = await shorten(app, alice);
      const path = `/api/user/urls/${url.id}/visits`;
      const from = (ip: string) => ({ "x-forwarded-for": ip });

      await hit(app, url.path, CHROME_WINDOWS, from("81.2.69.160"));
      flushDelay(app);
      assert.deepEqual(
        (await report(app, alice, path)).top.countries,
        [],
        "no setting, no country",
      );

      await settings(app, { analyticsGeoLite2Path: good });
      await hit(app, url.path, CHROME_WINDOWS, from("81.2.69.160"));
      await hit(app, url.path, IPHONE, from("81.2.69.7"));
      await hit(app, url.path, IPHONE, from("175.16.199.1"));
      await hit(app, url.path, IPHONE, from("192.0.2.1"));
      flushDelay(app);
      const body = await report(app, alice, path);
      assert.deepEqual(body.top.countries, [{ value: "GB", visits: 2 }, {
        value: "CN",
        visits: 1,
      }]);
      assert.equal(total(body), 5);

      await settings(app, { analyticsGeoLite2Path: broken });
      await hit(app, url.path, CHROME_WINDOWS, from("81.2.69.160"));
      flushDelay(app);
      await report(app, alice, path);
      await hit(app, url.path, IPHONE, from("81.2.69.160"));
      flushDelay(app);
      const after = await report(app, alice, path);
      assert.equal(total(after), 7, "visits are still recorded");
      assert.deepEqual(after.top.countries, [{ value: "GB", visits: 2 }, {
        value: "CN",
        visits: 1,
      }]);
      const warnings = app.logger.lines.filter((l) => l.message.includes("GeoLite2"));
      assert.equal(warnings.length, 1, "a bad file is logged once");
      assert.equal(warnings[0].level, "warn");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

visitsTest(
  "visits: a full buffer drops later visits, counts them and logs how many",
  async (app) => {
    app.clock.set(START);
    const alice = await actor(app, "USER");
    const url = await shorten(app, alice);
    const idle = {
      now: () => app.clock.now(),
      every: () => () => {},
      sleep: () => Promise.resolve(),
    };
    const recorder = new VisitRecorder(app.services, idle, 3);
    const target = { kind: "url" as const, id: url.id, ownerId: alice.user.id };
    for (let i = 0; i < 5; i++) recorder.record(target, "192.0.2.1", CHROME_WINDOWS, null);
    await recorder.flush();
    const raw = await Array.fromAsync(app.services.store.visits.list("url", url.id));
    assert.equal(raw.length, 3, "the buffer held three");
    const dropped = app.logger.lines.filter((l) => l.message.startsWith("visits dropped"));
    assert.equal(dropped.length, 1);
    assert.deepEqual(dropped[0].fields, { visits: 2 });
    recorder.record(target, "192.0.2.1", CHROME_WINDOWS, null);
    await recorder.flush();
    assert.equal(app.logger.lines.filter((l) => l.message.startsWith("visits dropped")).length, 1);
    assert.equal(total(await report(app, alice, `/api/user/urls/${url.id}/visits`)), 4);
  },
);

visitsTest(
  "visits: many distinct visitors count within the estimate's bound, hours counted before as they were",
  async (app) => {
    app.clock.set(START);
    await settings(app, { coreTrustProxy: true });
    const alice = await actor(app, "USER");
    const url = await shorten(app, alice);
    const path = `/api/user/urls/${url.id}/visits`;
    // An hour counted exactly before sketches (an upgraded store): 40 visits of 25 visitors.
    await app.services.store.visits.addHours([{
      scope: { kind: "url", id: url.id },
      hour: new Date(START - 2 * HOUR),
      visits: 40,
      hourUniques: 25,
      dayUniques: 25,
      dimensions: [],
    }]);
    const before = await report(app, alice, path, "bucket=day");
    assert.deepEqual([total(before), uniques(before)], [40, 25], "the stored totals, unchanged");

    const n = 1500;
    for (let i = 0; i < n; i++) {
      const ip = `10.1.${i >> 8}.${i & 255}`;
      assert.equal(
        await hit(app, url.path, i % 2 ? IPHONE : CHROME_WINDOWS, { "x-forwarded-for": ip }),
        302,
      );
    }
    flushDelay(app);
    const hourly = await report(app, alice, path, "bucket=hour");
    const [counted] = hourly.series.filter((p: { t: string }) =>
      p.t === new Date(START).toISOString()
    );
    assert.equal(counted.visits, n);
    assert.ok(Math.abs(counted.unique - n) <= n * ERROR_BOUND, `${counted.unique} of ${n}`);
    const daily = await report(app, alice, path, "bucket=day");
    assert.deepEqual(
      [total(daily), uniques(daily)],
      [40 + n, 25 + counted.unique],
      "the day: the old hour's exact count and the new hour's estimate",
    );
  },
);

visitsTest(
  "visits: one worker prepares the batches, and closing the recorder ends it",
  async (app) => {
    app.clock.set(START);
    const alice = await actor(app, "USER");
    const url = await shorten(app, alice);
    assert.equal(visitWorkerStats(app.services).started, 0, "no worker before a batch");
    for (let i = 0; i < 3; i++) assert.equal(await hit(app, url.path, CHROME_WINDOWS), 302);
    flushDelay(app);
    assert.equal(total(await report(app, alice, `/api/user/urls/${url.id}/visits`)), 3);
    assert.equal(await hit(app, url.path, IPHONE), 302);
    flushDelay(app);
    assert.equal(total(await report(app, alice, `/api/user/urls/${url.id}/visits`)), 4);
    assert.deepEqual(
      [visitWorkerStats(app.services).started, visitWorkerStats(app.services).workers],
      [1, 1],
      "one worker, kept between batches",
    );
    assert.equal(await hit(app, url.path, IPHONE), 302);
    await closeVisits(app.services);
    const after = visitWorkerStats(app.services);
    assert.deepEqual([after.workers, after.ended], [0, 1], "ended on close");
    const raw = await Array.fromAsync(app.services.store.visits.list("url", url.id));
    assert.equal(raw.length, 5, "what waited was written first");
  },
);

visitsTest(
  "visits: a batch the store refused is written with the next, a deleted link's visits left out",
  async (app) => {
    app.clock.set(START);
    const alice = await actor(app, "USER");
    const kept = await shorten(app, alice);
    const gone = await shorten(app, alice);
    const visits = app.services.store.visits;
    const write = visits.write;
    const address = visits.address;
    let refusals = 1;
    visits.write = (batch) =>
      refusals-- > 0 ? Promise.reject(new Error("down")) : write.call(visits, batch);
    // A store the worker writes to itself: a file it cannot open refuses it.
    unreachable(visits, address);
    try {
      assert.equal(await hit(app, kept.path, CHROME_WINDOWS), 302);
      assert.equal(await hit(app, gone.path, CHROME_WINDOWS), 302);
      flushDelay(app);
      await report(app, alice, "/api/user/visits");
      reachable(visits, address);
      assert.equal(
        app.logger.lines.filter((l) => l.message === "could not record visits").length,
        1,
        "the refusal is logged",
      );
      const del = await app.json("DELETE", `/api/user/urls/${gone.id}`, undefined, alice.headers);
      assert.equal(del.status, 200, JSON.stringify(del.body));
      assert.equal(await hit(app, kept.path, IPHONE), 302);
      flushDelay(app);
      assert.equal(total(await report(app, alice, `/api/user/urls/${kept.id}/visits`)), 2);
      assert.equal(
        total(await report(app, alice, "/api/user/visits")),
        2,
        "the owner's: no deleted link's",
      );
    } finally {
      visits.write = write;
      reachable(visits, address);
    }
  },
);

/** Points the worker's writer of a reachable store at a file it cannot open. */
function unreachable(visits: VisitBatchWriter, address: VisitStoreAddress | null) {
  if (address === null) return;
  Object.defineProperty(visits, "address", {
    value: { kind: "kv", path: "/nonexistent/ferry-visits/ferry.kv" },
    configurable: true,
  });
}

/** Points it back at its store. */
function reachable(visits: VisitBatchWriter, address: VisitStoreAddress | null) {
  Object.defineProperty(visits, "address", { value: address, configurable: true });
}
