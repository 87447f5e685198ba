/**
 * The host of a returned link (upload, chunked upload, short URL; and so of
 * the webhooks and chat messages that carry it) is `coreDefaultDomain`, one
 * of `domains` or the request's own host: a client asking for any other with
 * `x-service-domain` (or `x-zipline-domain`) gets a 400 and nothing is stored.
 */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadFiles } from "../helpers/files.ts";
import { type Actor, actor } from "../helpers/users.ts";

const FOREIGN = "evil.example";
const refused = (domain: string) => ({
  error: `bad options[domain]: ${domain} is not a domain of this server`,
  statusCode: 400,
});

async function allow(app: TestApp, domains: string[], coreDefaultDomain: string | null = null) {
  await app.services.store.settings.update({ domains, coreDefaultDomain });
  await app.services.settings.reload();
}

const upload = (app: TestApp, who: Actor, headers: Record<string, string>) =>
  uploadFiles(app, [{ name: "a.txt", content: "x", type: "text/plain" }], {
    ...who.headers,
    ...headers,
  });

const shorten = (app: TestApp, who: Actor, headers: Record<string, string>) =>
  app.json("POST", "/api/user/urls", { destination: "https://example.com" }, {
    ...who.headers,
    ...headers,
  });

apiTest(
  "security #10: an upload asking for a foreign domain is refused, nothing stored",
  async (app) => {
    const a = await actor(app, "USER");
    await allow(app, ["files.example.com"], "dl.example.org");
    for (const header of ["x-service-domain", "x-zipline-domain"]) {
      for (const value of [FOREIGN, `files.example.com, ${FOREIGN}`, "ferry.test.evil.example"]) {
        const res = await upload(app, a, { [header]: value });
        const foreign = value.split(",").map((d) => d.trim()).find((d) =>
          d !== "files.example.com"
        );
        assert.deepEqual(res.body, refused(foreign!), `${header}: ${value}`);
      }
    }
    const chunk = new FormData();
    chunk.append("file", new Blob(["abc"]), "a.txt");
    const partial = await app.request("/api/upload/partial", {
      method: "POST",
      body: chunk,
      headers: {
        ...a.headers,
        "content-range": "bytes 0-2/3",
        "x-service-p-filename": "a.txt",
        "x-service-p-lastchunk": "true",
        "x-service-domain": FOREIGN,
      },
    });
    assert.deepEqual(await partial.json(), refused(FOREIGN));
    const files = await app.json("GET", "/api/user/files?page=1", undefined, a.headers);
    assert.equal(files.body.total, 0, "nothing was stored");
    assert.deepEqual(await app.storedObjects(), []);

    const listed = await upload(app, a, { "x-zipline-domain": "FILES.example.com" });
    assert.match(listed.body.files[0].url, /^http:\/\/FILES\.example\.com\/u\//);
    const own = await upload(app, a, { "x-service-domain": "ferry.test" });
    assert.match(own.body.files[0].url, /^http:\/\/ferry\.test\/u\//);
    const configured = await upload(app, a, { "x-service-domain": "dl.example.org" });
    assert.match(configured.body.files[0].url, /^http:\/\/dl\.example\.org\/u\//);
  },
);

apiTest(
  "security #10: a short URL asking for a foreign domain is refused, nothing stored",
  async (app) => {
    const a = await actor(app, "USER");
    await allow(app, ["s.example.com"]);
    for (const header of ["x-service-domain", "x-zipline-domain"]) {
      const res = await shorten(app, a, { [header]: `s.example.com,${FOREIGN}` });
      assert.deepEqual(res.body, refused(FOREIGN), header);
    }
    const urls = await app.json("GET", "/api/user/urls", undefined, a.headers);
    assert.deepEqual(urls.body, [], "nothing was stored");

    const listed = await shorten(app, a, { "x-zipline-domain": "s.example.com" });
    assert.equal(listed.body.url, `http://s.example.com/go/${listed.body.code}`);
    const own = await shorten(app, a, { "x-service-domain": "ferry.test" });
    assert.equal(own.body.url, `http://ferry.test/go/${own.body.code}`);
    const host = await shorten(app, a, {
      host: "alias.example",
      "x-service-domain": "alias.example",
    });
    assert.equal(host.body.url, `http://alias.example/go/${host.body.code}`);
  },
);
