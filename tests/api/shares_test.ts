/**
 * Share links (issue #34 part 2), on both stores: making, listing and
 * revoking them; `/s/<code>` (the page), `/s/<code>/raw` (bytes with ranges,
 * on local disk and S3), a folder link's gallery, files and zip; a link on a
 * private file; password (a page, attempts limited and logged), expiry, view
 * limit and revocation, each at once; links going with their file, folder
 * or user; API key scopes.
 */
import assert from "node:assert/strict";
import { apiTest, startTestApp, type TestApp } from "../helpers/app.ts";
import { importDoc, importIntoFresh } from "../helpers/transfer.ts";
import { uploadFiles, uploadOne } from "../helpers/files.ts";
import { type Actor, actor } from "../helpers/users.ts";
import { readZip, sha256 } from "../helpers/zip.ts";

const HTML = { accept: "text/html" };

/** Makes a link to `kind` `id` of `who` with `body`, asserting success. */
async function share(
  app: TestApp,
  who: Actor,
  id: string,
  body: Record<string, unknown> = {},
  kind: "files" | "folders" = "files",
) {
  app.clock.advance(1); // lists are oldest first
  const res = await app.json("POST", `/api/user/${kind}/${id}/shares`, body, who.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** GETs `path` as viewer `ua` (with `headers`): the status and the body's text. */
async function get(app: TestApp, path: string, headers: Record<string, string> = {}, ua = "v1") {
  const res = await app.request(path, { headers: { "user-agent": ua, ...headers } });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

apiTest(
  "shares: a file link opens its page and bytes, is listed, and is revoked at once",
  async (app) => {
    const bob = await actor(app, "USER", "bob");
    const file = await uploadOne(app, bob.headers, "shared bytes", "notes.txt");
    const made = await share(app, bob, file.id);
    assert.match(made.code, /^[A-Za-z0-9_-]{22,}$/, "128 bits, base64url");
    assert.deepEqual(made, {
      id: made.id,
      code: made.code,
      url: `http://ferry.test/s/${made.code}`,
      createdAt: new Date(app.clock.now()).toISOString(),
      expiresAt: null,
      maxViews: null,
      views: 0,
      password: false,
      target: { kind: "file", id: file.id, name: file.name },
    });
    const other = await share(app, bob, file.id);
    assert.notEqual(other.code, made.code);

    const page = await get(app, `/s/${made.code}`, HTML);
    assert.equal(page.status, 200);
    assert.match(page.text, new RegExp(`/s/${made.code}/raw`));
    const raw = await get(app, `/s/${made.code}/raw`);
    assert.deepEqual([raw.status, raw.text], [200, "shared bytes"]);

    const list = await app.json("GET", "/api/user/shares", undefined, bob.headers);
    assert.deepEqual(list.body.map((s: { id: string; views: number }) => [s.id, s.views]), [
      [made.id, 1],
      [other.id, 0],
    ]);
    const mine = await app.json(
      "GET",
      `/api/user/shares?fileId=${file.id}`,
      undefined,
      bob.headers,
    );
    assert.equal(mine.body.length, 2);

    const revoked = await app.json("DELETE", `/api/user/shares/${made.id}`, undefined, bob.headers);
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.id, made.id);
    for (const path of [`/s/${made.code}`, `/s/${made.code}/raw`]) {
      assert.equal((await get(app, path, HTML)).status, 404, path);
    }
    assert.equal((await get(app, `/s/${other.code}/raw`)).status, 200, "the other link stays");
    const after = await app.json("GET", "/api/user/shares", undefined, bob.headers);
    assert.deepEqual(after.body.map((s: { id: string }) => s.id), [other.id]);
    const again = await app.json("DELETE", `/api/user/shares/${made.id}`, undefined, bob.headers);
    assert.equal(again.status, 404);
  },
);

apiTest(
  "shares: a link on a private file works while the file's own paths are 404",
  async (app) => {
    const bob = await actor(app, "USER", "bob");
    const file = await uploadOne(app, { ...bob.headers, "x-service-private": "true" }, "hidden");
    const made = await share(app, bob, file.id);
    assert.equal((await get(app, `/raw/${file.name}`)).status, 404);
    assert.equal((await get(app, `/view/${file.name}`, HTML)).status, 404);
    assert.equal((await get(app, `/s/${made.code}`, HTML)).status, 200);
    assert.deepEqual((await get(app, `/s/${made.code}/raw`)).text, "hidden");
  },
);

apiTest("shares: only the owner's own files and folders; only the owner's links", async (app) => {
  const bob = await actor(app, "USER", "bob");
  const eve = await actor(app, "USER", "eve");
  const admin = await actor(app, "ADMIN", "admin");
  const file = await uploadOne(app, bob.headers, "x");
  for (const who of [eve, admin]) {
    const res = await app.json("POST", `/api/user/files/${file.id}/shares`, {}, who.headers);
    assert.deepEqual(res.body, { error: "Not Found", statusCode: 404 });
  }
  const none = await app.json("POST", "/api/user/folders/nope/shares", {}, bob.headers);
  assert.equal(none.status, 404);
  const made = await share(app, bob, file.id);
  const del = await app.json("DELETE", `/api/user/shares/${made.id}`, undefined, eve.headers);
  assert.equal(del.status, 404);
  assert.deepEqual((await app.json("GET", "/api/user/shares", undefined, eve.headers)).body, []);
  assert.equal((await get(app, `/s/${made.code}/raw`)).status, 200);
  assert.equal((await get(app, `/s/nope/raw`)).status, 404);

  const bad = [
    { maxViews: -1 },
    { expiresAt: "tomorrow" },
    { expiresAt: new Date(app.clock.now() - 1000).toISOString() },
  ];
  for (const body of bad) {
    const res = await app.json("POST", `/api/user/files/${file.id}/shares`, body, bob.headers);
    assert.equal(res.status, 400, JSON.stringify(body));
  }
});

apiTest(
  "shares: a password is asked on the page, limited and logged, and opens with its cookie",
  async (app) => {
    const bob = await actor(app, "USER", "bob");
    const file = await uploadOne(app, bob.headers, "behind a password");
    const made = await share(app, bob, file.id, { password: "open sesame" });
    assert.equal(made.password, true);
    const page = await get(app, `/s/${made.code}`, HTML);
    assert.equal(page.status, 200);
    assert.match(page.text, /share-password-form/);
    assert.doesNotMatch(page.text, /behind a password/);
    assert.deepEqual(JSON.parse((await get(app, `/s/${made.code}/raw`)).text), {
      error: "Password protected",
      statusCode: 403,
    });
    const wrong = await app.json("POST", `/api/shares/${made.code}/password`, { password: "nope" });
    assert.deepEqual(wrong.body, { error: "Incorrect password", statusCode: 403 });
    const right = await app.json("POST", `/api/shares/${made.code}/password`, {
      password: "open sesame",
    });
    assert.equal(right.status, 200);
    const set = right.headers.getSetCookie().find((c) => c.startsWith(`share_pw_${made.id}=`))!;
    assert.match(set, /HttpOnly/);
    assert.doesNotMatch(set, /sesame/, "the cookie holds a grant, not the password");
    const cookie = { cookie: set.split(";")[0] };
    assert.equal((await get(app, `/s/${made.code}/raw`, cookie)).text, "behind a password");
    assert.match((await get(app, `/s/${made.code}`, { ...HTML, ...cookie })).text, /\/raw/);
    const forged = { cookie: `share_pw_${made.id}=9999999999.forged` };
    assert.equal((await get(app, `/s/${made.code}/raw`, forged)).status, 403);

    const logged = app.logger.lines.filter((l) => l.message === "share password attempt")
      .map((l) => l.fields?.success);
    assert.deepEqual(logged, [false, true, false]);
    assert.ok(!JSON.stringify(app.logger.lines).includes("open sesame"), "no password logged");

    // A link without a password has nothing to verify.
    const plain = await share(app, bob, file.id);
    const res = await app.json("POST", `/api/shares/${plain.code}/password`, { password: "x" });
    assert.equal(res.status, 404);
  },
);

apiTest("shares: password attempts are limited per address and link (429)", async (app) => {
  await app.services.store.settings.update({ coreTrustProxy: true });
  await app.services.settings.reload();
  const bob = await actor(app, "USER", "bob");
  const file = await uploadOne(app, bob.headers, "x");
  const made = await share(app, bob, file.id, { password: "open sesame" });
  const guess = () =>
    app.json("POST", `/api/shares/${made.code}/password`, { password: "guess" }, {
      "x-forwarded-for": "203.0.113.9",
    });
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await guess()).status);
  assert.deepEqual(statuses, [403, 403, 429, 429]);
  app.clock.advance(1000);
  assert.equal((await guess()).status, 403);
}, { rateLimits: true });

apiTest("shares: a link stops at its expiry and at its view limit", async (app) => {
  const bob = await actor(app, "USER", "bob");
  const file = await uploadOne(app, bob.headers, "counted");
  const expiresAt = new Date(app.clock.now() + 60 * 60 * 1000).toISOString();
  const timed = await share(app, bob, file.id, { expiresAt });
  assert.equal(timed.expiresAt, expiresAt);
  app.clock.set(Date.parse(expiresAt) - 1);
  assert.equal((await get(app, `/s/${timed.code}/raw`)).status, 200);
  app.clock.advance(1);
  assert.equal((await get(app, `/s/${timed.code}/raw`)).status, 404);
  assert.equal((await get(app, `/s/${timed.code}`, HTML)).status, 404);

  const limited = await share(app, bob, file.id, { maxViews: 2 });
  // The page counts nothing; each viewer's bytes count once.
  assert.equal((await get(app, `/s/${limited.code}`, HTML)).status, 200);
  assert.equal((await get(app, `/s/${limited.code}/raw`, {}, "a")).status, 200);
  assert.equal((await get(app, `/s/${limited.code}/raw`, {}, "a")).status, 200, "same viewer");
  assert.equal((await get(app, `/s/${limited.code}/raw`, {}, "b")).status, 200);
  assert.equal((await get(app, `/s/${limited.code}/raw`, {}, "c")).status, 404);
  assert.equal((await get(app, `/s/${limited.code}`, HTML)).status, 404);
  const [listed] = (await app.json("GET", "/api/user/shares", undefined, bob.headers)).body
    .filter((s: { id: string }) => s.id === limited.id);
  assert.equal(listed.views, 2);
  // The file itself was not viewed through the links.
  const own = await app.json("GET", `/api/user/files/${file.id}`, undefined, bob.headers);
  assert.equal(own.body.views, 0);
});

for (const datasource of ["local", "s3"] as const) {
  apiTest(`shares: /s/<code>/raw serves ranges and HEAD [${datasource}]`, async (app) => {
    const bob = await actor(app, "USER", "bob");
    const body = "0123456789".repeat(10_000);
    const file = await uploadOne(app, bob.headers, body, "big.txt");
    const made = await share(app, bob, file.id);
    const part = await app.request(`/s/${made.code}/raw`, { headers: { range: "bytes=10-19" } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get("content-range"), `bytes 10-19/${body.length}`);
    assert.equal(await part.text(), "0123456789");
    const head = await app.request(`/s/${made.code}/raw`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-length"), String(body.length));
    const whole = await get(app, `/s/${made.code}/raw?download=true`);
    assert.equal(whole.text, body);
    assert.match(whole.headers.get("content-disposition")!, /^attachment/);
  }, { datasource });
}

apiTest(
  "shares: a folder link shows its files (private ones too), serves each, and zips them",
  async (app) => {
    const bob = await actor(app, "USER", "bob");
    const folder = await app.json("POST", "/api/user/folders", { name: "Trip" }, bob.headers);
    const other = await app.json("POST", "/api/user/folders", { name: "Other" }, bob.headers);
    const into = (id: string) => ({ ...bob.headers, "x-service-folder": id });
    const up = await uploadFiles(app, [
      { name: "a.txt", content: "alpha", type: "text/plain" },
      { name: "b.txt", content: "beta", type: "text/plain" },
    ], { ...into(folder.body.id), "x-service-private": "true" });
    const [a, b] = up.body.files;
    const outside = await uploadOne(app, into(other.body.id), "outside", "c.txt");
    const loose = await uploadOne(app, bob.headers, "loose", "d.txt");
    const made = await share(app, bob, folder.body.id, {}, "folders");
    assert.deepEqual(made.target, { kind: "folder", id: folder.body.id, name: "Trip" });

    const page = await get(app, `/s/${made.code}`, HTML);
    assert.equal(page.status, 200);
    for (const f of [a, b]) assert.match(page.text, new RegExp(`/s/${made.code}/files/${f.id}`));
    assert.match(page.text, new RegExp(`/s/${made.code}/zip`));
    assert.equal((await get(app, `/s/${made.code}/files/${a.id}`)).text, "alpha");
    for (const f of [outside, loose]) {
      assert.equal((await get(app, `/s/${made.code}/files/${f.id}`)).status, 404);
    }
    assert.equal((await get(app, `/s/${made.code}/raw`)).status, 404, "a folder has no raw");
    const zip = await app.request(`/s/${made.code}/zip`);
    assert.equal(zip.status, 200);
    assert.match(zip.headers.get("content-disposition")!, /filename="Trip\.zip"/);
    const listing = await readZip(zip.body!);
    assert.deepEqual(listing, { [a.name]: sha256("alpha"), [b.name]: sha256("beta") });

    // A file link cannot serve another file, nor zip.
    const fileLink = await share(app, bob, a.id);
    assert.equal((await get(app, `/s/${fileLink.code}/files/${b.id}`)).status, 404);
    assert.equal((await get(app, `/s/${fileLink.code}/zip`)).status, 404);
  },
);

apiTest("shares: links go with their file, their folder, or their user", async (app) => {
  const admin = await actor(app, "ADMIN", "admin");
  const bob = await actor(app, "USER", "bob");
  const file = await uploadOne(app, bob.headers, "x", "x.txt");
  const kept = await uploadOne(app, bob.headers, "y", "y.txt");
  const folder = await app.json("POST", "/api/user/folders", { name: "F" }, bob.headers);
  const toFile = await share(app, bob, file.id);
  const toFolder = await share(app, bob, folder.body.id, {}, "folders");
  const toKept = await share(app, bob, kept.id);

  assert.equal(
    (await app.json("DELETE", `/api/user/files/${file.id}`, undefined, bob.headers)).status,
    200,
  );
  assert.equal((await get(app, `/s/${toFile.code}/raw`)).status, 404);
  const removed = await app.json("DELETE", `/api/user/folders/${folder.body.id}`, {
    delete: "folder",
  }, bob.headers);
  assert.equal(removed.status, 200);
  assert.equal((await get(app, `/s/${toFolder.code}`, HTML)).status, 404);
  const list = await app.json("GET", "/api/user/shares", undefined, bob.headers);
  assert.deepEqual(list.body.map((s: { id: string }) => s.id), [toKept.id]);
  assert.equal(await app.services.store.shares.get(toFile.id), null);
  assert.equal(await app.services.store.shares.get(toFolder.id), null);

  const gone = await app.json(
    "DELETE",
    `/api/users/${bob.user.id}`,
    { delete: false },
    admin.headers,
  );
  assert.equal(gone.status, 200, JSON.stringify(gone.body));
  assert.equal(await app.services.store.shares.get(toKept.id), null);
  assert.equal((await get(app, `/s/${toKept.code}/raw`)).status, 404);
});

apiTest(
  "shares: API key scopes (files:write makes file links, folders:write folder links, files:read lists)",
  async (app) => {
    const bob = await actor(app, "USER", "bob");
    const file = await uploadOne(app, bob.headers, "x");
    const folder = await app.json("POST", "/api/user/folders", { name: "F" }, bob.headers);
    const key = async (scopes: string[]) => {
      const res = await app.json("POST", "/api/user/keys", { name: "k", scopes }, bob.headers);
      return { authorization: res.body.key };
    };
    const write = await key(["files:write"]);
    const read = await key(["files:read"]);
    const folders = await key(["folders:write"]);
    const post = (path: string, headers: Record<string, string>) =>
      app.json("POST", path, {}, headers);
    assert.equal((await post(`/api/user/files/${file.id}/shares`, write)).status, 200);
    assert.equal((await post(`/api/user/files/${file.id}/shares`, read)).status, 403);
    assert.equal((await post(`/api/user/folders/${folder.body.id}/shares`, folders)).status, 200);
    assert.equal((await post(`/api/user/folders/${folder.body.id}/shares`, write)).status, 403);
    assert.equal((await app.json("GET", "/api/user/shares", undefined, read)).body.length, 2);
    assert.equal((await app.json("GET", "/api/user/shares", undefined, folders)).status, 403);
  },
);

apiTest(
  "shares: the v4 export carries links and private flags; an import makes them work again",
  async (app) => {
    const root = await actor(app, "SUPERADMIN", "root");
    const bob = await actor(app, "USER", "bob");
    const file = await uploadOne(app, { ...bob.headers, "x-service-private": "true" }, "carried");
    const folder = await app.json("POST", "/api/user/folders", { name: "F" }, bob.headers);
    const hidden = await app.json(
      "PATCH",
      `/api/user/folders/${folder.body.id}`,
      { private: true },
      {
        ...bob.headers,
      },
    );
    assert.equal(hidden.status, 200);
    const made = await share(app, bob, file.id, { password: "open sesame", maxViews: 5 });
    const toFolder = await share(app, bob, folder.body.id, {}, "folders");

    const exported = await app.request("/api/server/export", {
      method: "POST",
      headers: root.headers,
    });
    const text = await exported.text();
    assert.ok(!text.includes("open sesame"), "the export holds no password");
    const doc = JSON.parse(text);
    assert.deepEqual(doc.data.ferryShares.map((s: { code: string }) => s.code), [
      made.code,
      toFolder.code,
    ]);
    assert.deepEqual(doc.data.ferryPrivate.map((p: { kind: string }) => p.kind).sort(), [
      "file",
      "folder",
    ]);

    const target = await startTestApp(app.kind);
    try {
      target.clock.set(app.clock.now());
      const admin = await actor(target, "SUPERADMIN", "admin");
      const first = await importDoc(target, "v4", text, admin.headers);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.imported.shares, 2);
      assert.equal(first.body.imported.private, 2);
      const locked = await target.request(`/s/${made.code}/raw`);
      assert.equal(locked.status, 403, "the password came along");
      const right = await target.json("POST", `/api/shares/${made.code}/password`, {
        password: "open sesame",
      });
      assert.equal(right.status, 200);
      const cookie = right.headers.getSetCookie()[0].split(";")[0];
      // The bytes stay in the first instance's storage; the page opens.
      const opened = await target.request(`/s/${made.code}`, { headers: { cookie, ...HTML } });
      assert.equal(opened.status, 200);
      assert.doesNotMatch(await opened.text(), /share-password-form/);
      assert.equal((await target.request(`/raw/${file.name}`)).status, 404, "still private");
      assert.equal((await target.request(`/s/${toFolder.code}`)).status, 200);
      const again = await importDoc(target, "v4", text, admin.headers);
      assert.equal(again.body.imported.shares, 0, "a code is imported once");

      delete doc.data.ferryShares;
      delete doc.data.ferryPrivate;
      const plain = await importIntoFresh(app.kind, doc);
      assert.equal(plain.imported.shares, 0);
    } finally {
      await target.close();
    }
  },
);
