/**
 * Cross-site request forgery (issue #30, item 5): a change asked with the
 * session cookie is refused when the browser tells that another site made
 * it (`Sec-Fetch-Site`, else `Origin`), on every route, those that read the
 * cookie themselves included; scripts (no such header) and API tokens are not
 * checked; and an import takes only JSON, which no HTML form can send.
 */
import assert from "node:assert/strict";
import { apiTest, sessionCookie, type TestApp } from "../helpers/app.ts";
import { uploadFiles, uploadOne } from "../helpers/files.ts";
import { fixture } from "../helpers/transfer.ts";
import { type Actor, actor } from "../helpers/users.ts";

const REFUSED = {
  error: "Cross-site request refused: the session cookie is accepted only from this server's " +
    "own pages; send an API token instead",
  statusCode: 403,
};

/** What browsers send on a request that another site's page made. */
const FROM_ANOTHER_SITE: Record<string, string>[] = [
  { "sec-fetch-site": "cross-site" },
  { "sec-fetch-site": "same-site" },
  { "sec-fetch-site": "cross-site", origin: "http://ferry.test" },
  { origin: "http://evil.example" },
  { origin: "http://ferry.test.evil.example" },
  { origin: "https://ferry.test:8443" },
  { origin: "null" },
];

/** What the service's own pages, an address bar and scripts send. */
const FROM_OWN_PAGES: Record<string, string>[] = [
  { "sec-fetch-site": "same-origin" },
  { "sec-fetch-site": "none" },
  { origin: "http://ferry.test" },
  { origin: "http://FERRY.test" },
  {},
];

/** Signs `who` in with its password; its session cookie. */
async function signIn(app: TestApp, who: Actor): Promise<string> {
  const res = await app.json("POST", "/api/auth/login", {
    username: who.user.username,
    password: "password",
  });
  assert.equal(res.status, 200);
  return sessionCookie(res.headers);
}

/** The caller's short URLs, read by token. */
async function urlCount(app: TestApp, who: Actor): Promise<number> {
  return (await app.json("GET", "/api/user/urls", undefined, who.headers)).body.length;
}

/** The caller's files, read by token. */
async function fileCount(app: TestApp, who: Actor): Promise<number> {
  return (await app.json("GET", "/api/user/files?page=1", undefined, who.headers)).body.total;
}

/**
 * Sends five changes with `headers`, one of each unsafe method, and a route
 * with auth `none` that reads the cookie itself (an upload); each answer's
 * status and body.
 */
let folders = 0;

async function changes(app: TestApp, who: Actor, headers: Record<string, string>) {
  const file = await uploadOne(app, who.headers);
  const name = `folder ${++folders}`;
  const folder = await app.json("POST", "/api/user/folders", { name }, who.headers);
  assert.equal(folder.status, 200);
  const answers = [
    await app.json("POST", "/api/user/urls", { destination: "https://example.com" }, headers),
    await app.json("PATCH", `/api/user/files/${file.id}`, { favorite: true }, headers),
    await app.json("PUT", `/api/user/folders/${folder.body.id}`, { id: file.id }, headers),
    await app.json("DELETE", `/api/user/files/${file.id}`, undefined, headers),
    await uploadFiles(app, [{ name: "a.txt", content: "x", type: "text/plain" }], headers),
  ];
  return { file, folder: folder.body.id as string, answers };
}

apiTest(
  "security #30.5: a change asked with the session cookie by another site is 403 and changes nothing",
  async (app) => {
    const alice = await actor(app, "USER", "alice");
    const cookie = await signIn(app, alice);
    for (const from of FROM_ANOTHER_SITE) {
      const what = JSON.stringify(from);
      const files = await fileCount(app, alice);
      const { file, folder, answers } = await changes(app, alice, { cookie, ...from });
      for (const answer of answers) {
        assert.equal(answer.status, 403, what);
        assert.deepEqual(answer.body, REFUSED, what);
      }
      // Nothing changed: seen by token.
      assert.equal(await urlCount(app, alice), 0, what);
      const kept = await app.json("GET", `/api/user/files/${file.id}`, undefined, alice.headers);
      assert.equal(kept.status, 200, what);
      assert.equal(kept.body.favorite, false, what);
      const inFolder = await app.json(
        "GET",
        `/api/user/folders/${folder}`,
        undefined,
        alice.headers,
      );
      assert.equal(inFolder.body._count.files, 0, what);
      assert.equal(await fileCount(app, alice), files + 1, `${what}: only the token's upload`);
      // Logging out is a change too; the session lives on.
      const out = await app.json("POST", "/api/auth/logout", undefined, { cookie, ...from });
      assert.deepEqual(out.body, REFUSED, what);
      assert.equal((await app.json("GET", "/api/user", undefined, { cookie })).status, 200, what);
    }
  },
);

apiTest(
  "security #30.5: the cookie works from this server's own pages and from scripts that send no origin",
  async (app) => {
    const alice = await actor(app, "USER", "alice");
    const cookie = await signIn(app, alice);
    for (const from of FROM_OWN_PAGES) {
      const what = JSON.stringify(from);
      const { file, folder, answers } = await changes(app, alice, { cookie, ...from });
      assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200, 200], what);
      assert.equal(
        (await app.json("GET", `/api/user/files/${file.id}`, undefined, alice.headers)).status,
        404,
        `${what}: deleted`,
      );
      const inFolder = await app.json(
        "GET",
        `/api/user/folders/${folder}`,
        undefined,
        alice.headers,
      );
      assert.equal(inFolder.status, 200, what);
    }
    assert.equal(await urlCount(app, alice), FROM_OWN_PAGES.length);
  },
);

apiTest(
  "security #30.5: the configured domains are the server's own, and so is a trusted proxy's host",
  async (app) => {
    const alice = await actor(app, "USER", "alice");
    const cookie = await signIn(app, alice);
    const shorten = (headers: Record<string, string>) =>
      app.json("POST", "/api/user/urls", { destination: "https://example.com" }, {
        cookie,
        ...headers,
      });
    await app.services.store.settings.update({
      coreDefaultDomain: "files.example:8080",
      domains: ["share.example"],
    });
    await app.services.settings.reload();
    assert.equal((await shorten({ origin: "https://files.example:8080" })).status, 200);
    assert.equal((await shorten({ origin: "https://share.example" })).status, 200);
    assert.equal((await shorten({ origin: "https://files.example" })).status, 403);
    assert.equal((await shorten({ origin: "https://share.example:8080" })).status, 403);

    // Behind a proxy that rewrites Host, the browser's `same-origin` is believed.
    const proxied = { origin: "https://public.example", "x-forwarded-host": "public.example" };
    assert.deepEqual((await shorten(proxied)).body, REFUSED, "the proxy is not trusted");
    assert.equal(
      (await shorten({ ...proxied, "sec-fetch-site": "same-origin" })).status,
      200,
      "Sec-Fetch-Site decides when it is sent",
    );
    await app.services.store.settings.update({ coreTrustProxy: true });
    await app.services.settings.reload();
    assert.equal((await shorten(proxied)).status, 200, "a trusted proxy names the host");
    assert.equal((await shorten({ origin: "https://public.example" })).status, 403);
    assert.equal(await urlCount(app, alice), 4);
  },
);

apiTest(
  "security #30.5: a request with an API token is not checked, even with the cookie as well",
  async (app) => {
    const alice = await actor(app, "USER", "alice");
    const cookie = await signIn(app, alice);
    for (const from of FROM_ANOTHER_SITE) {
      const what = JSON.stringify(from);
      for (const credentials of [alice.headers, { ...alice.headers, cookie }]) {
        const { answers } = await changes(app, alice, { ...credentials, ...from });
        assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200, 200], what);
      }
      const out = await app.json("POST", "/api/auth/logout", undefined, {
        ...alice.headers,
        cookie,
        ...from,
      });
      assert.equal(out.status, 200, what);
    }
    assert.equal((await app.json("GET", "/api/user", undefined, { cookie })).status, 200);
    // Safe methods are never checked: a cross-site GET with the cookie reads.
    const read = await app.json("GET", "/api/user", undefined, {
      cookie,
      "sec-fetch-site": "cross-site",
    });
    assert.equal(read.status, 200);
  },
);

apiTest(
  "security #30.5: an import accepts only JSON, so no HTML form can post one (415)",
  async (app) => {
    const admin = await actor(app, "SUPERADMIN", "admin");
    const cookie = await signIn(app, admin);
    const document = await fixture("v4");
    const users = async () => (await app.json("GET", "/api/users", undefined, admin.headers)).body;
    const before = (await users()).length;
    const formTypes = [
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "text/plain",
      "text/plain; charset=utf-8",
      "application/json-seq",
      "",
    ];
    for (const version of ["v3", "v4"]) {
      for (const type of formTypes) {
        for (const credentials of [admin.headers, { cookie, "sec-fetch-site": "same-origin" }]) {
          const res = await app.request(`/api/server/import/${version}`, {
            method: "POST",
            headers: { ...credentials, ...(type ? { "content-type": type } : {}) },
            body: document,
          });
          assert.equal(res.status, 415, `${version} ${type}`);
          assert.deepEqual(await res.json(), {
            error: "The export document must be sent as application/json",
            statusCode: 415,
          });
        }
      }
    }
    assert.equal((await users()).length, before, "nothing was imported");
    const json = await app.request("/api/server/import/v4", {
      method: "POST",
      headers: { ...admin.headers, "content-type": "Application/JSON; charset=utf-8" },
      body: document,
    });
    assert.equal(json.status, 200, await json.clone().text());
    assert.ok((await users()).length > before);
  },
);
