/** Rate limiting (spec §8.1) with an injected clock, on both stores. */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { bytes, chunk } from "../helpers/chunks.ts";
import { actor } from "../helpers/users.ts";

const limited = { rateLimits: true };

/** A file sent in chunks of 1000 bytes. */
const file = bytes(2500);

async function configure(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.settings.update(values);
  await app.services.settings.reload();
}

/** Puts the clock at the start of a minute, so a window does not end mid-test. */
function startOfWindow(app: TestApp, windowMs = 60_000) {
  app.clock.set(Math.ceil(app.clock.now() / windowMs) * windowMs);
}

apiTest("the default limit: headers, the 429, and the next window", async (app) => {
  await configure(app, { ratelimitMax: 3, ratelimitWindow: 60_000 });
  startOfWindow(app);
  const reset = String(app.clock.now() / 1000 + 60);
  const bob = await actor(app, "USER");
  for (const remaining of ["2", "1", "0"]) {
    const res = await app.json("GET", "/api/user", undefined, bob.headers);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-ratelimit-limit"), "3");
    assert.equal(res.headers.get("x-ratelimit-remaining"), remaining);
    assert.equal(res.headers.get("x-ratelimit-reset"), reset);
  }
  app.clock.advance(59_000);
  const over = await app.json("GET", "/api/user", undefined, bob.headers);
  assert.equal(over.status, 429);
  assert.deepEqual(over.body, { error: "Rate limit exceeded, retry in 1 second", statusCode: 429 });
  assert.equal(over.headers.get("retry-after"), "1");
  assert.equal(over.headers.get("x-ratelimit-remaining"), "0");
  assert.equal(over.headers.get("x-ratelimit-reset"), reset);

  // Another route and another user count separately.
  assert.equal((await app.json("GET", "/api/user/token", undefined, bob.headers)).status, 200);
  const eve = await actor(app, "USER");
  assert.equal((await app.json("GET", "/api/user", undefined, eve.headers)).status, 200);

  app.clock.advance(1000);
  assert.equal((await app.json("GET", "/api/user", undefined, bob.headers)).status, 200);
}, limited);

apiTest("login: one attempt per 2 seconds, good or bad", async (app) => {
  await actor(app, "USER", "alice");
  startOfWindow(app, 2000);
  const first = await app.json("POST", "/api/auth/login", { username: "alice", password: "bad" });
  assert.equal(first.status, 400);
  assert.equal(first.headers.get("x-ratelimit-limit"), "1");
  const second = await app.json("POST", "/api/auth/login", {
    username: "alice",
    password: "password",
  });
  assert.equal(second.status, 429);
  assert.equal(second.body.error, "Rate limit exceeded, retry in 2 seconds");
  app.clock.advance(2000);
  const third = await app.json("POST", "/api/auth/login", {
    username: "alice",
    password: "password",
  });
  assert.equal(third.status, 200);
}, limited);

apiTest("admins bypass every limit when ratelimitAdminBypass, per-route ones too", async (app) => {
  const root = await actor(app, "SUPERADMIN");
  startOfWindow(app);
  for (let i = 0; i < 3; i++) {
    const res = await app.json(
      "POST",
      "/api/users",
      { username: `u${i}`, password: "password1" },
      root.headers,
    );
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-ratelimit-limit"), null);
  }
  await configure(app, { ratelimitAdminBypass: false });
  const one = await app.json(
    "POST",
    "/api/users",
    { username: "v1", password: "password1" },
    root.headers,
  );
  assert.equal(one.status, 200);
  const two = await app.json(
    "POST",
    "/api/users",
    { username: "v2", password: "password1" },
    root.headers,
  );
  assert.equal(two.status, 429);
  assert.equal(await app.services.store.users.getByUsername("v2"), null);
}, limited);

apiTest("the allow list (IP or user id) and the switch", async (app) => {
  await configure(app, { ratelimitMax: 1, coreTrustProxy: true });
  startOfWindow(app);
  const bob = await actor(app, "USER");
  // The proxy appends the address it saw; what is left of it the client wrote.
  const from = (ip: string) => ({ ...bob.headers, "x-forwarded-for": `203.0.113.7, ${ip}` });
  assert.equal((await app.json("GET", "/api/user", undefined, from("192.0.2.1"))).status, 200);
  assert.equal((await app.json("GET", "/api/user", undefined, from("192.0.2.1"))).status, 429);

  await configure(app, { ratelimitAllowList: ["192.0.2.9"] });
  for (let i = 0; i < 3; i++) {
    assert.equal((await app.json("GET", "/api/user", undefined, from("192.0.2.9"))).status, 200);
  }
  await configure(app, { ratelimitAllowList: [bob.user.id] });
  assert.equal((await app.json("GET", "/api/user", undefined, from("192.0.2.1"))).status, 200);

  await configure(app, { ratelimitAllowList: [], ratelimitEnabled: false });
  const off = await app.json("GET", "/api/user", undefined, from("192.0.2.1"));
  assert.equal(off.status, 200);
  assert.equal(off.headers.get("x-ratelimit-limit"), null);
}, limited);

apiTest(
  "anonymous clients are keyed by IP, trusted from X-Forwarded-For only with coreTrustProxy",
  async (app) => {
    await actor(app, "USER", "alice");
    startOfWindow(app, 2000);
    const login = (ip: string) =>
      app.json("POST", "/api/auth/login", { username: "alice", password: "password" }, {
        "x-forwarded-for": ip,
      });
    assert.equal((await login("192.0.2.1")).status, 200);
    assert.equal((await login("192.0.2.2")).status, 429, "the header is ignored by default");
    await configure(app, { coreTrustProxy: true });
    app.clock.advance(2000);
    assert.equal((await login("192.0.2.1")).status, 200);
    assert.equal((await login("192.0.2.2")).status, 200);
  },
  limited,
);

apiTest("healthcheck and version are not limited", async (app) => {
  await configure(app, { ratelimitMax: 1 });
  const bob = await actor(app, "USER");
  for (let i = 0; i < 3; i++) {
    const health = await app.json("GET", "/api/healthcheck");
    assert.equal(health.status, 200);
    assert.equal(health.headers.get("x-ratelimit-limit"), null);
    assert.equal((await app.json("GET", "/api/version", undefined, bob.headers)).status, 200);
  }
}, limited);

apiTest("concurrent requests racing for the last slot: exactly one wins", async (app) => {
  await configure(app, { ratelimitMax: 5 });
  startOfWindow(app);
  const bob = await actor(app, "USER");
  for (let i = 0; i < 4; i++) {
    assert.equal((await app.json("GET", "/api/user", undefined, bob.headers)).status, 200);
  }
  const racers = await Promise.all(
    Array.from({ length: 8 }, () => app.json("GET", "/api/user", undefined, bob.headers)),
  );
  assert.deepEqual(racers.map((r) => r.status).sort(), [200, 429, 429, 429, 429, 429, 429, 429]);
}, limited);

apiTest(
  "security #2: x-service-p-filename bypasses the chunk route's limit only, never a strict one",
  async (app) => {
    await configure(app, { ratelimitMax: 1 });
    await actor(app, "USER", "alice");
    startOfWindow(app);
    for (const header of ["x-service-p-filename", "x-zipline-p-filename"]) {
      const chunked = { [header]: "big.bin" };
      const login = () =>
        app.json("POST", "/api/auth/login", { username: "alice", password: "bad" }, chunked);
      assert.equal((await login()).status, 400);
      const again = await login();
      assert.equal(again.status, 429, `${header} does not bypass the login's limit`);
      assert.equal(again.body.error, "Rate limit exceeded, retry in 2 seconds");
      app.clock.advance(2000);
    }
    // Nor a default-limited route's.
    const bob = await actor(app, "USER");
    const named = { ...bob.headers, "x-service-p-filename": "big.bin" };
    assert.equal((await app.json("GET", "/api/user", undefined, named)).status, 200);
    assert.equal((await app.json("GET", "/api/user", undefined, named)).status, 429);

    // Later chunks of bob's own upload, on their own route, are not counted (#30.4 below);
    // the same route without the header is.
    const started = await chunk(app, file, 0, 999, bob.headers);
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const later = { ...bob.headers, "x-service-p-identifier": started.body.partialIdentifier };
    for (let i = 0; i < 3; i++) {
      const resent = await chunk(app, file, 1000, 1999, later);
      assert.equal(resent.status, 200, JSON.stringify(resent.body));
      assert.equal(resent.headers.get("x-ratelimit-limit"), null);
    }
    const plain = () =>
      app.json("POST", "/api/upload/partial", "x", {
        ...later,
        "content-type": "text/plain",
      });
    assert.equal((await plain()).status, 429);
  },
  limited,
);

apiTest(
  "security #30.4: every first chunk is counted by the upload limit, authenticated or not",
  async (app) => {
    await configure(app, { ratelimitMax: 2 });
    const bob = await actor(app, "USER");
    startOfWindow(app);
    for (const header of ["x-service-p-filename", "x-zipline-p-filename"]) {
      const first = () => chunk(app, file, 0, 999, { ...bob.headers, [header]: "movie.mp4" });
      const one = await first();
      assert.equal(one.status, 200, JSON.stringify(one.body));
      assert.equal(one.headers.get("x-ratelimit-limit"), "2");
      assert.equal((await first()).status, 200);
      const third = await first();
      assert.equal(third.status, 429, `${header} does not let a first chunk pass uncounted`);
      assert.match(third.body.error, /^Rate limit exceeded/);
      app.clock.advance(60_000);
    }
  },
  limited,
);

apiTest(
  "security #30.4: every anonymous chunk is counted, the later ones of its upload too",
  async (app) => {
    await configure(app, { ratelimitMax: 3 });
    const owner = await actor(app, "USER");
    const made = await app.json("POST", "/api/user/folders", { name: "drop" }, owner.headers);
    const drop = made.body.id;
    await app.json("PATCH", `/api/user/folders/${drop}`, { allowUploads: true }, owner.headers);
    startOfWindow(app);
    const into = { "x-service-folder": drop };
    const started = await chunk(app, file, 0, 999, into);
    assert.equal(started.status, 200, JSON.stringify(started.body));
    assert.equal(started.headers.get("x-ratelimit-remaining"), "2");
    const later = { ...into, "x-zipline-p-identifier": started.body.partialIdentifier };
    const second = await chunk(app, file, 1000, 1999, later);
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal(second.headers.get("x-ratelimit-remaining"), "1");
    assert.equal((await chunk(app, file, 1000, 1999, later)).status, 200);
    const over = await chunk(app, file, 2000, 2499, later);
    assert.equal(over.status, 429, "the anonymous uploader's later chunk is counted");
    // The next window lets it finish.
    app.clock.advance(60_000);
    const done = await chunk(app, file, 2000, 2499, later);
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.files.length, 1);
  },
  limited,
);

apiTest(
  "security #30.4: later chunks bypass only for the user who started the upload",
  async (app) => {
    await configure(app, { ratelimitMax: 1 });
    const alice = await actor(app, "USER");
    const mallory = await actor(app, "USER");
    startOfWindow(app);
    const started = await chunk(app, file, 0, 999, alice.headers);
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const id = { "x-service-p-identifier": started.body.partialIdentifier };
    // Her window is spent by that first chunk: another first chunk waits, her later ones pass.
    assert.equal((await chunk(app, file, 0, 999, alice.headers)).status, 429);
    const second = await chunk(app, file, 1000, 1999, { ...alice.headers, ...id });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal(second.headers.get("x-ratelimit-limit"), null);

    // Mallory naming alice's upload, or no upload at all, is counted (and refused).
    for (const identifier of [id, { "x-service-p-identifier": "nope" }]) {
      app.clock.advance(60_000);
      const named = { ...mallory.headers, ...identifier };
      assert.equal((await chunk(app, file, 2000, 2499, named)).status, 400);
      assert.equal((await chunk(app, file, 2000, 2499, named)).status, 429);
    }
    const done = await chunk(app, file, 2000, 2499, { ...alice.headers, ...id });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.files.length, 1);
    assert.equal(done.headers.get("x-ratelimit-limit"), null);
  },
  limited,
);

apiTest(
  "security #6: X-Forwarded-For is read from the right, coreTrustProxyHops entries in",
  async (app) => {
    await actor(app, "USER", "alice");
    await configure(app, { coreTrustProxy: true });
    startOfWindow(app, 2000);
    const login = (forwarded: string) =>
      app.json("POST", "/api/auth/login", { username: "alice", password: "bad" }, {
        "x-forwarded-for": forwarded,
      });
    // One hop (the default): the client is the rightmost entry, whatever it wrote to its left.
    assert.equal((await login("1.2.3.4, 5.6.7.8")).status, 400);
    assert.equal((await login("9.9.9.9, 5.6.7.8")).status, 429, "the same client, 5.6.7.8");
    assert.equal((await login("1.2.3.4, 5.6.7.9")).status, 400, "another client");
    // Seen through the allow list too.
    await configure(app, { ratelimitAllowList: ["5.6.7.8"] });
    assert.equal((await login("1.2.3.4, 5.6.7.8")).status, 400);
    await configure(app, { ratelimitAllowList: [] });

    // Two hops: the entry the outer proxy wrote.
    const patched = await app.json("PATCH", "/api/server/settings", { coreTrustProxyHops: 2 }, {
      ...(await actor(app, "SUPERADMIN")).headers,
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.settings.coreTrustProxyHops, 2);
    app.clock.advance(2000);
    assert.equal((await login("1.2.3.4, 5.6.7.8")).status, 400);
    assert.equal((await login("1.2.3.4, 6.6.6.6")).status, 429, "the same client, 1.2.3.4");
    assert.equal((await login("7.7.7.7, 1.2.3.4, 6.6.6.6")).status, 429, "still 1.2.3.4");
    // Shorter than the hops: the leftmost entry, which a trusted proxy wrote.
    assert.equal((await login("4.4.4.4")).status, 400);
    assert.equal((await login("4.4.4.4")).status, 429);
    assert.equal((await login("8.8.8.8, 4.4.4.4")).status, 400, "8.8.8.8 is a client of its own");
  },
  limited,
);
