/**
 * Guessing a file's or a short URL's password (spec §4.5, §8.1): every way of
 * presenting one shares a limit of 2 attempts a second per client and target,
 * every attempt is logged, and a URL's cookie holds a grant, not the password.
 */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadOne } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";

const limited = { rateLimits: true };
const LIMITED = { error: "Rate limit exceeded, retry in 1 second", statusCode: 429 };

/** Trusts X-Forwarded-For and puts the clock at the start of a second. */
async function prepare(app: TestApp) {
  await app.services.store.settings.update({ coreTrustProxy: true });
  await app.services.settings.reload();
  app.clock.set(Math.ceil(app.clock.now() / 1000) * 1000 + 1000);
}

/** The headers of a client at `ip`, with a cookie when given. */
function from(ip: string, cookie?: string): Record<string, string> {
  return { "x-forwarded-for": ip, "user-agent": "guesser/1", ...(cookie ? { cookie } : {}) };
}

/** The logged attempts of a kind, as `[name, ip, success]`. */
function attempts(app: TestApp, kind: "file" | "url") {
  return app.logger.lines
    .filter((l) => l.message === `${kind} password attempt`)
    .map((l) => [l.fields?.[kind], l.fields?.ip, l.fields?.success]);
}

async function protectedFile(app: TestApp, password: string) {
  const owner = await actor(app, "USER");
  const file = await uploadOne(app, { ...owner.headers, "x-service-password": password });
  return { owner, file };
}

async function protectedUrl(app: TestApp, vanity: string, password: string) {
  const owner = await actor(app, "USER");
  const res = await app.json("POST", "/api/user/urls", {
    destination: "https://secret.example/",
    vanity,
  }, { ...owner.headers, "x-service-password": password });
  assert.equal(res.status, 200);
  return { owner, url: res.body as { id: string; code: string } };
}

apiTest(
  "security #3: a third ?pw= guess within a second is 429, and the right password waits too",
  async (app) => {
    await prepare(app);
    const { file } = await protectedFile(app, "hunter2");
    const raw = (pw: string, ip = "192.0.2.1") =>
      app.json("GET", `/raw/${file.name}?pw=${pw}`, undefined, from(ip));
    assert.deepEqual((await raw("guess1")).body, { error: "Incorrect password", statusCode: 403 });
    assert.equal((await raw("guess2")).status, 403);
    const third = await raw("hunter2");
    assert.deepEqual(third.body, LIMITED);
    assert.equal(third.headers.get("retry-after"), "1");
    assert.equal(third.headers.get("x-ratelimit-limit"), "2");
    assert.deepEqual(attempts(app, "file"), [
      [file.name, "192.0.2.1", false],
      [file.name, "192.0.2.1", false],
    ], "past the limit nothing was checked");

    // Another client is counted on its own; the limited one waits for the next second.
    const other = await app.request(`/raw/${file.name}?pw=hunter2`, { headers: from("192.0.2.2") });
    assert.equal(other.status, 200);
    assert.equal(await other.text(), "hello ferry");
    app.clock.advance(1000);
    assert.equal((await raw("hunter2")).status, 200);
    assert.deepEqual(attempts(app, "file").map((a) => a[2]), [false, false, true, true]);
  },
  limited,
);

apiTest(
  "security #3: ?pw=, the verify route, the file_pw cookie and the view page share one limit",
  async (app) => {
    await prepare(app);
    const { owner, file } = await protectedFile(app, "hunter2");
    const cookieGuess = `file_pw_${file.id}=guess`;
    const verify = (password: string) =>
      app.json("POST", `/api/user/files/${file.id}/password`, { password }, from("192.0.2.1"));

    // A second: a ?pw= guess, a guessed cookie, then the right password on the verify route.
    assert.equal(
      (await app.json("GET", `/raw/${file.name}?pw=x`, undefined, from("192.0.2.1")))
        .status,
      403,
    );
    const byCookie = await app.json(
      "GET",
      `/raw/${file.name}`,
      undefined,
      from("192.0.2.1", cookieGuess),
    );
    assert.deepEqual(byCookie.body, { error: "Password protected", statusCode: 403 });
    const refused = await verify("hunter2");
    assert.deepEqual(refused.body, LIMITED);
    assert.equal(refused.headers.getSetCookie().length, 0, "no access granted");

    // The next: the view page with a guessed cookie, the owner's raw route with ?pw=, then ?pw=.
    app.clock.advance(1000);
    const page = await app.request(`/view/${file.name}`, {
      headers: from("192.0.2.1", cookieGuess),
    });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /id="file-password-form"/, "still locked");
    const owned = await app.json(
      "GET",
      `/api/user/files/${file.id}/raw?pw=x`,
      undefined,
      { ...owner.headers, ...from("192.0.2.1") },
    );
    assert.equal(owned.status, 403);
    assert.deepEqual(
      (await app.json("GET", `/raw/${file.name}?pw=hunter2`, undefined, from("192.0.2.1"))).body,
      LIMITED,
    );
    assert.deepEqual(attempts(app, "file").map((a) => a[2]), [false, false, false, false]);

    // The third: the right password opens it, and its cookie serves without another attempt.
    app.clock.advance(1000);
    const right = await verify("hunter2");
    assert.equal(right.status, 200);
    const cookie = right.headers.getSetCookie()[0].split(";")[0];
    for (let i = 0; i < 3; i++) {
      const served = await app.request(`/raw/${file.name}`, { headers: from("192.0.2.1", cookie) });
      assert.equal(served.status, 200);
      await served.body?.cancel();
    }
    // The cookie is no proof from another address.
    assert.equal(
      (await app.json("GET", `/raw/${file.name}`, undefined, from("192.0.2.9", cookie))).status,
      403,
    );
    assert.deepEqual(attempts(app, "file").map((a) => a.slice(1)), [
      ["192.0.2.1", false],
      ["192.0.2.1", false],
      ["192.0.2.1", false],
      ["192.0.2.1", false],
      ["192.0.2.1", true],
      ["192.0.2.9", false],
    ]);
  },
  limited,
);

apiTest(
  "security #3: the verify route, the url_pw cookie and the password page share one limit",
  async (app) => {
    await prepare(app);
    const { url } = await protectedUrl(app, "pw", "open sesame");
    const forged = `url_pw_${url.id}=${Math.floor(app.clock.now() / 1000) + 60}.${"A".repeat(43)}`;
    const verify = (password: string) =>
      app.json("POST", `/api/user/urls/${url.id}/password`, { password }, from("192.0.2.1"));
    const go = (cookie?: string) =>
      app.request("/go/pw", { redirect: "manual", headers: from("192.0.2.1", cookie) });

    // A second: a wrong password on the route, a forged grant on the link, then the right one.
    assert.equal((await verify("nope")).status, 403);
    const asked = await go(forged);
    assert.equal(asked.status, 302);
    assert.equal(asked.headers.get("location"), `/view/url/${url.id}`);
    const refused = await verify("open sesame");
    assert.deepEqual(refused.body, LIMITED);
    assert.equal(refused.headers.getSetCookie().length, 0, "no grant");

    // The next: the password page and the link, each with the forged grant; the third is 429.
    app.clock.advance(1000);
    const page = await app.request(`/view/url/${url.id}`, { headers: from("192.0.2.1", forged) });
    assert.equal(page.status, 200);
    await page.body?.cancel();
    assert.equal((await go(forged)).headers.get("location"), `/view/url/${url.id}`);
    const third = await app.json("GET", "/go/pw", undefined, from("192.0.2.1", forged));
    assert.deepEqual(third.body, LIMITED);
    assert.deepEqual(attempts(app, "url"), [
      ["pw", "192.0.2.1", false],
      ["pw", "192.0.2.1", false],
      ["pw", "192.0.2.1", false],
      ["pw", "192.0.2.1", false],
    ]);
    assert.equal((await app.services.store.urls.get(url.id))!.views, 0);
  },
  limited,
);

apiTest(
  "security #3: the url_pw cookie holds a grant for one client, URL and password, not the password",
  async (app) => {
    await prepare(app);
    const { owner, url } = await protectedUrl(app, "pw", "open sesame");
    const { url: other } = await protectedUrl(app, "pw2", "open sesame");
    const go = (name: string, cookie: string, ip = "192.0.2.1") =>
      app.request(`/go/${name}`, { redirect: "manual", headers: from(ip, cookie) });
    const opens = async (name: string, cookie: string, ip?: string) =>
      (await go(name, cookie, ip)).headers.get("location") === "https://secret.example/";

    const right = await app.json("POST", `/api/user/urls/pw/password`, {
      password: "open sesame",
    }, from("192.0.2.1"));
    assert.equal(right.status, 200);
    const pair = right.headers.getSetCookie()[0].split(";")[0];
    const grant = pair.slice(`url_pw_${url.id}=`.length);
    assert.ok(pair.startsWith(`url_pw_${url.id}=`));
    assert.doesNotMatch(decodeURIComponent(grant), /open|sesame/);
    assert.ok(await opens("pw", pair));
    assert.ok(await opens("pw", pair), "a grant opens the link again within its minute");

    // Each refusal in a second of its own: two a second is the limit, the grant's use not counted.
    app.clock.advance(1000);
    assert.ok(!(await opens("pw", `url_pw_${url.id}=open sesame`)), "the plain password");
    app.clock.advance(1000);
    assert.ok(!(await opens("pw", `url_pw_${url.id}=${grant.slice(0, -2)}xx`)), "forged");
    assert.ok(await opens("pw", pair), "still open to the client it was given to");
    assert.ok(!(await opens("pw", pair, "192.0.2.7")), "from another client");
    assert.ok(!(await opens("pw2", `url_pw_${other.id}=${grant}`)), "for another URL");
    const refusals = attempts(app, "url").filter((a) => a[2] === false);
    assert.deepEqual(refusals, [
      ["pw", "192.0.2.1", false],
      ["pw", "192.0.2.1", false],
      ["pw", "192.0.2.7", false],
      ["pw2", "192.0.2.1", false],
    ], "each refused grant is a logged attempt");
    const line = app.logger.lines.find((l) => l.message === "url password attempt")!;
    assert.equal(line.fields?.ua, "guesser/1");
    assert.match(String(line.fields?.at), /^\d{4}-\d{2}-\d{2}T/);
    assert.ok(!JSON.stringify(app.logger.lines).includes("sesame"), "no password logged");

    // A minute after it was given the grant has lapsed; a new password voids one at once.
    app.clock.advance(58_000);
    assert.ok(!(await opens("pw", pair)));
    const again = await app.json("POST", `/api/user/urls/pw/password`, {
      password: "open sesame",
    }, from("192.0.2.1"));
    const fresh = again.headers.getSetCookie()[0].split(";")[0];
    assert.ok(await opens("pw", fresh));
    const patched = await app.json("PATCH", `/api/user/urls/${url.id}`, {
      password: "open sesame",
    }, owner.headers);
    assert.equal(patched.status, 200);
    assert.ok(!(await opens("pw", fresh)), "setting the password again voids the grant");
  },
  limited,
);
