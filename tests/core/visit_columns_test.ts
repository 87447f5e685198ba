/**
 * The request path's columns of visits (`core/visits/columns.ts`) and the
 * batch's grouping of them (`core/visits/batch.ts`), which the visits worker
 * runs (`visit_worker.ts`): what a batch of rows becomes, alike visits
 * gathered, forgotten targets left out, the newest rows kept.
 */
import assert from "node:assert/strict";
import {
  addressOf,
  forgetIn,
  ipv4Of,
  ipv4Text,
  newestOf,
  VisitColumns,
  visitsIn,
} from "../../core/visits/columns.ts";
import { type Enrichment, groupsOf } from "../../core/visits/batch.ts";
import { runVisitJob } from "../../core/visits/visit_worker.ts";
import { agentFacts, referrerHost } from "../../core/visits/agent.ts";
import { visitorHasher } from "../../core/visits/salt.ts";
import { DAY_MS, dayOf } from "../../db/visit_rollup.ts";
import { prepareBatch } from "../../db/visit_batch.ts";
import { unpackVisits } from "../../db/visit_pack.ts";

const AT = Date.UTC(2027, 2, 10, 10);
const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0";
const BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const LINK = { kind: "url" as const, id: "link", ownerId: "alice" };
const FILE = { kind: "file" as const, id: "file", ownerId: "alice" };
const SALT = "ab".repeat(32);

function enrichment(countBots = false): Enrichment {
  const hash = visitorHasher(SALT);
  return {
    agentFacts,
    referrerHost,
    country: (ip) => ip.startsWith("81.") ? "GB" : null,
    hasher: () => hash,
    countBots,
  };
}

Deno.test("visit columns: rows keep their facts, agents and Referers interned, and grow", () => {
  const columns = new VisitColumns();
  for (let i = 0; i < 3000; i++) {
    columns.add(
      AT + i,
      i % 2 ? LINK : FILE,
      `10.0.${i >> 8}.${i & 255}`,
      i % 3 ? CHROME : FIREFOX,
      i % 5 ? null : "https://a.example/x",
    );
  }
  assert.equal(columns.oldest(), AT);
  const raw = columns.take();
  assert.equal(raw.count, 3000);
  assert.deepEqual(raw.strings.toSorted(), [FIREFOX, CHROME, "https://a.example/x"].toSorted());
  assert.equal(raw.targets.length, 2, "each target once");
  assert.equal(raw.times[2999], AT + 2999);
  assert.equal(addressOf(raw, raw.address[258]), "10.0.1.2");
  assert.equal(raw.strings[raw.agent[1]], CHROME);
  assert.equal(raw.strings[raw.agent[3]], FIREFOX);
  assert.equal(raw.referer[1], -1);
  assert.equal(raw.strings[raw.referer[0]], "https://a.example/x");
  assert.deepEqual(raw.targets[raw.target[1]], LINK);
  assert.equal(columns.length, 0, "taken: empty again");
  assert.equal(columns.oldest(), undefined);
  columns.add(AT, LINK, "10.0.0.1", CHROME, null);
  assert.equal(columns.take().strings.length, 1, "a new batch, new tables");
});

Deno.test("visit columns: a target whose owner changed is a target of its own", () => {
  const columns = new VisitColumns();
  columns.add(AT, LINK, "10.0.0.1", CHROME, null);
  columns.add(AT + 1, { ...LINK, ownerId: "bob" }, "10.0.0.1", CHROME, null);
  columns.add(AT + 2, LINK, "10.0.0.1", CHROME, null);
  const groups = groupsOf(columns.take(), enrichment());
  assert.deepEqual(groups.map((g) => [g.ownerId, g.times.length]), [["alice", 1], ["bob", 1], [
    "alice",
    1,
  ]]);
});

Deno.test("visit batch: alike visits make one group, each fact worked out once", () => {
  const columns = new VisitColumns();
  const visits: [number, typeof LINK | typeof FILE, string, string, string | null][] = [
    [AT, LINK, "81.2.69.160", CHROME, "https://news.example/a"],
    [AT + 1, LINK, "10.0.0.2", FIREFOX, null],
    [AT + 2, LINK, "81.2.69.160", CHROME, "https://news.example/a"],
    [AT + 3, FILE, "81.2.69.160", CHROME, "https://news.example/a"],
    [AT + 4, LINK, "81.2.69.160", CHROME, null],
    [AT + 5, LINK, "81.2.69.160", FIREFOX, "https://news.example/a"],
    [AT + 6, LINK, "10.0.0.2", FIREFOX, null],
    [AT + DAY_MS, LINK, "10.0.0.2", FIREFOX, null],
  ];
  for (const [at, target, ip, ua, referer] of visits) columns.add(at, target, ip, ua, referer);
  const groups = groupsOf(columns.take(), enrichment());
  const hash = visitorHasher(SALT);
  assert.deepEqual(groups, [
    {
      targetKind: "url",
      targetId: "link",
      ownerId: "alice",
      referrer: "news.example",
      country: "GB",
      browser: "Chrome",
      os: "Windows",
      device: "desktop",
      bot: false,
      visitor: hash("81.2.69.160", CHROME),
      times: [AT, AT + 2],
    },
    {
      targetKind: "url",
      targetId: "link",
      ownerId: "alice",
      referrer: null,
      country: null,
      browser: "Firefox",
      os: "Linux",
      device: "desktop",
      bot: false,
      visitor: hash("10.0.0.2", FIREFOX),
      times: [AT + 1, AT + 6],
    },
    {
      targetKind: "file",
      targetId: "file",
      ownerId: "alice",
      referrer: "news.example",
      country: "GB",
      browser: "Chrome",
      os: "Windows",
      device: "desktop",
      bot: false,
      visitor: hash("81.2.69.160", CHROME),
      times: [AT + 3],
    },
    {
      targetKind: "url",
      targetId: "link",
      ownerId: "alice",
      referrer: null,
      country: "GB",
      browser: "Chrome",
      os: "Windows",
      device: "desktop",
      bot: false,
      visitor: hash("81.2.69.160", CHROME),
      times: [AT + 4],
    },
    {
      targetKind: "url",
      targetId: "link",
      ownerId: "alice",
      referrer: "news.example",
      country: "GB",
      browser: "Firefox",
      os: "Linux",
      device: "desktop",
      bot: false,
      visitor: hash("81.2.69.160", FIREFOX),
      times: [AT + 5],
    },
    {
      targetKind: "url",
      targetId: "link",
      ownerId: "alice",
      referrer: null,
      country: null,
      browser: "Firefox",
      os: "Linux",
      device: "desktop",
      bot: false,
      visitor: hash("10.0.0.2", FIREFOX),
      times: [AT + DAY_MS],
    },
  ]);
});

Deno.test("visit batch: bots are left out unless counted", () => {
  const raw = () => {
    const columns = new VisitColumns();
    columns.add(AT, LINK, "10.0.0.1", BOT, null);
    columns.add(AT + 1, LINK, "10.0.0.2", CHROME, null);
    return columns.take();
  };
  assert.deepEqual(groupsOf(raw(), enrichment()).map((g) => g.bot), [false]);
  assert.deepEqual(groupsOf(raw(), enrichment(true)).map((g) => [g.bot, g.device]), [
    [true, "bot"],
    [false, "desktop"],
  ]);
});

Deno.test("visit columns: a forgotten target's visits are left out, in the columns and taken", () => {
  const columns = new VisitColumns();
  columns.add(AT, LINK, "10.0.0.1", CHROME, null);
  columns.add(AT + 1, FILE, "10.0.0.1", CHROME, null);
  columns.add(AT + 2, LINK, "10.0.0.2", CHROME, null);
  assert.equal(columns.forget("url", "link"), 2);
  columns.add(AT + 3, LINK, "10.0.0.3", CHROME, null);
  const raw = columns.take();
  assert.equal(visitsIn(raw), 2, "the file's and the later visit of the link");
  assert.deepEqual(groupsOf(raw, enrichment()).map((g) => [g.targetId, g.times]), [
    ["file", [AT + 1]],
    ["link", [AT + 3]],
  ]);
  assert.equal(forgetIn(raw, "file", "file"), 1);
  assert.deepEqual(groupsOf(raw, enrichment()).map((g) => g.targetId), ["link"]);
});

Deno.test("visit columns: the newest rows of a batch", () => {
  const columns = new VisitColumns();
  for (let i = 0; i < 5; i++) columns.add(AT + i, LINK, `10.0.0.${i}`, CHROME, null);
  const newest = newestOf(columns.take(), 2);
  assert.equal(newest.count, 2);
  assert.deepEqual([...newest.times], [AT + 3, AT + 4]);
  assert.deepEqual([...newest.address].map((a) => addressOf(newest, a)), [
    "10.0.0.3",
    "10.0.0.4",
  ]);
});

Deno.test("visits worker's job: the batch the store writes, as the groups would make it", async () => {
  const columns = new VisitColumns();
  for (let i = 0; i < 500; i++) {
    columns.add(
      AT + i * 10_000,
      i % 3 ? LINK : FILE,
      `10.0.${i >> 8}.${i & 255}`,
      i % 2 ? CHROME : FIREFOX,
      null,
    );
  }
  const raw = columns.take();
  const expected = prepareBatch(groupsOf(raw, { ...enrichment(), country: () => null }));
  const { batch, geoError } = await runVisitJob({
    raws: [raw],
    salts: [[dayOf(AT), SALT]],
    countBots: false,
    geoPath: null,
    writeTo: null,
  });
  assert.equal(geoError, null);
  assert.deepEqual(batch, expected);
  assert.equal(
    batch!.packs.flatMap((p) => unpackVisits(p.bytes)).reduce((n, g) => n + g.times.length, 0),
    500,
  );
  const missing = await runVisitJob({
    raws: [raw],
    salts: [],
    countBots: false,
    geoPath: null,
    writeTo: null,
  })
    .then(() => "answered", (error) => String(error));
  assert.match(missing, /no salt/);
  const broken = await runVisitJob({
    raws: [],
    salts: [],
    countBots: false,
    geoPath: "/nonexistent/countries.mmdb",
    writeTo: null,
  });
  assert.notEqual(broken.geoError, null, "an unreadable database is said, not thrown");
});

Deno.test("visit columns: an IPv4 address in its usual form is a number, any other a string", () => {
  for (const ip of ["0.0.0.0", "10.0.1.2", "192.168.100.255", "255.255.255.255"]) {
    assert.ok(ipv4Of(ip) >= 0, ip);
    assert.equal(ipv4Text(ipv4Of(ip)), ip);
  }
  assert.equal(ipv4Of("1.2.3.4"), 0x01020304);
  for (
    const ip of [
      "01.2.3.4",
      "1.2.3",
      "1.2.3.4.5",
      "1.2.3.256",
      "1..3.4",
      "1.2.3.4 ",
      "::1",
      "",
      "a.b.c.d",
    ]
  ) assert.equal(ipv4Of(ip), -1, ip);
  const columns = new VisitColumns();
  columns.add(AT, LINK, "2001:db8::1", CHROME, null);
  columns.add(AT + 1, LINK, "010.0.0.1", CHROME, null);
  columns.add(AT + 2, LINK, "2001:db8::1", CHROME, null);
  columns.add(AT + 3, LINK, "10.0.0.1", CHROME, null);
  const raw = columns.take();
  assert.deepEqual([...raw.address].map((a) => addressOf(raw, a)), [
    "2001:db8::1",
    "010.0.0.1",
    "2001:db8::1",
    "10.0.0.1",
  ]);
  const hash = visitorHasher(SALT);
  assert.deepEqual(groupsOf(raw, enrichment()).map((g) => [g.visitor, g.times]), [
    [hash("2001:db8::1", CHROME), [AT, AT + 2]],
    [hash("010.0.0.1", CHROME), [AT + 1]],
    [hash("10.0.0.1", CHROME), [AT + 3]],
  ]);
});

Deno.test("visit batch: thousands of addresses on two targets group by target and address", () => {
  const columns = new VisitColumns();
  for (let i = 0; i < 3000; i++) {
    const ip = `10.0.${i % 1500 >> 8}.${i % 1500 & 255}`;
    columns.add(AT + i, i % 3 === 0 ? FILE : LINK, ip, CHROME, null);
  }
  columns.add(AT + 3000, LINK, "2001:db8::1", CHROME, null);
  columns.add(AT + 3001, LINK, "2001:db8::1", CHROME, null);
  const groups = groupsOf(columns.take(), enrichment());
  const expected = new Map<string, number>();
  for (let i = 0; i < 3000; i++) {
    const key = `${i % 3 === 0 ? "file" : "link"} 10.0.${i % 1500 >> 8}.${i % 1500 & 255}`;
    expected.set(key, (expected.get(key) ?? 0) + 1);
  }
  assert.equal(groups.length, expected.size + 1);
  assert.deepEqual(groups.at(-1)!.times, [AT + 3000, AT + 3001]);
  assert.deepEqual(
    groups.slice(0, -1).map((g) => g.times.length),
    [...expected.values()],
  );
});
