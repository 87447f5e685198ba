/**
 * Private files and folders (issue #34 part 2): a private file, or a file in a
 * private folder, answers 404 at every public path (`/raw`, the files route,
 * `/view`, public folders, embeds), through the fast paths and their caches
 * too, to everyone but its owner signed in; the owner's and administrators'
 * API routes still serve it. Set by `PATCH`, the bulk `PATCH`, the upload
 * header or the owner's `privateByDefault`. On both stores.
 */
import assert from "node:assert/strict";
import { openKvStore } from "../../db/kv/mod.ts";
import { openPostgresStore } from "../../db/postgres/mod.ts";
import { servingStore } from "../../db/serving.ts";
import { createHandler } from "../../routes/mod.ts";
import { apiTest, sessionCookie, type TestApp } from "../helpers/app.ts";
import { bytes, sendAll } from "../helpers/chunks.ts";
import { uploadFiles, uploadOne } from "../helpers/files.ts";
import { type Actor, actor } from "../helpers/users.ts";

const HTML = { accept: "text/html" };

/** The session cookie header of `who`, signed in with its password. */
async function signIn(app: TestApp, who: Actor): Promise<Record<string, string>> {
  const res = await app.json("POST", "/api/auth/login", {
    username: who.user.username,
    password: "password",
  });
  assert.equal(res.status, 200);
  return { cookie: sessionCookie(res.headers) };
}

/** The public paths of file `name`. */
const publicPaths = (name: string) => [`/raw/${name}`, `/u/${name}`, `/view/${name}`];

/** The status of each public path of `name`, GET and HEAD, for `headers`. */
async function statuses(app: TestApp, name: string, headers: Record<string, string> = {}) {
  const out: number[] = [];
  for (const path of publicPaths(name)) {
    for (const method of ["GET", "HEAD"]) {
      const res = await app.request(path, { method, headers: { ...HTML, ...headers } });
      await res.body?.cancel();
      out.push(res.status);
    }
  }
  return out;
}

const HIDDEN = [404, 404, 404, 404, 404, 404];
const SHOWN = [200, 200, 200, 200, 200, 200];

/** Sets `private` on the file through the API. */
async function setPrivate(app: TestApp, who: Actor, id: string, value: boolean) {
  const res = await app.json("PATCH", `/api/user/files/${id}`, { private: value }, who.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.private, value);
}

apiTest(
  "private: a private file is 404 at every public path but to its owner signed in",
  async (app) => {
    const owner = await actor(app, "USER");
    const other = await actor(app, "USER");
    const admin = await actor(app, "ADMIN");
    const file = await uploadOne(app, owner.headers, "secret", "note.bin", "application/pdf");
    assert.deepEqual(await statuses(app, file.name), SHOWN);
    await setPrivate(app, owner, file.id, true);

    assert.deepEqual(await statuses(app, file.name), HIDDEN, "anonymous");
    assert.deepEqual(
      await statuses(app, file.name, await signIn(app, other)),
      HIDDEN,
      "another user",
    );
    assert.deepEqual(
      await statuses(app, file.name, other.headers),
      HIDDEN,
      "a token is no sign-in",
    );
    assert.deepEqual(
      await statuses(app, file.name, owner.headers),
      HIDDEN,
      "nor the owner's token",
    );
    const json = await app.json("GET", `/raw/${file.name}`);
    assert.deepEqual(json.body, { error: "Not Found", statusCode: 404 });
    const page = await app.request(`/view/${file.name}`, { headers: HTML });
    assert.match(await page.text(), /File not found/);

    assert.deepEqual(await statuses(app, file.name, await signIn(app, owner)), SHOWN, "the owner");
    const bytes = await app.request(`/raw/${file.name}`, { headers: await signIn(app, owner) });
    assert.equal(await bytes.text(), "secret");

    // The owner's route and an administrator's (the admin view) still serve it.
    for (const who of [owner, admin]) {
      const res = await app.request(`/api/user/files/${file.id}/raw`, { headers: who.headers });
      assert.equal(res.status, 200);
      assert.equal(await res.text(), "secret");
    }
    const listed = await app.json("GET", `/api/user/files/${file.id}`, undefined, owner.headers);
    assert.equal(listed.body.private, true);

    await setPrivate(app, owner, file.id, false);
    assert.deepEqual(await statuses(app, file.name), SHOWN, "public again");
  },
);

apiTest(
  "private: turning a served file private takes effect at once, fast paths included",
  async (app) => {
    const owner = await actor(app, "USER");
    const file = await uploadOne(app, owner.headers, "small", "small.txt", "text/plain");
    // Served twice: its record is in the name cache, and the /raw fast path answers from it.
    for (let i = 0; i < 2; i++) assert.equal((await app.request(`/raw/${file.name}`)).status, 200);
    await setPrivate(app, owner, file.id, true);
    const res = await app.request(`/raw/${file.name}`);
    assert.equal(res.status, 404);
    assert.equal((await app.request(`/u/${file.name}`)).status, 404);
  },
);

apiTest(
  "private: another instance over the same store hides the file within the caches' second",
  async (app) => {
    const owner = await actor(app, "USER");
    const file = await uploadOne(app, owner.headers, "small", "small.txt", "text/plain");
    const store = servingStore(
      app.kind === "kv"
        ? await openKvStore(`${app.processEnv.SERVICE_DATA_DIR}/ferry.kv`)
        : await openPostgresStore(app.storeUrl!, { max: 2 }),
      app.clock,
    );
    try {
      const other = createHandler({ ...app.services, store });
      const there = async (path: string) => {
        const res = await other.fetch(new Request(`http://ferry.test${path}`));
        await res.body?.cancel();
        return res.status;
      };
      // The other instance caches the record, and its fast path serves it.
      assert.equal(await there(`/raw/${file.name}`), 200);
      assert.equal(await there(`/raw/${file.name}`), 200);
      await setPrivate(app, owner, file.id, true);
      app.clock.advance(1000);
      assert.equal(await there(`/raw/${file.name}`), 404);
      assert.equal(await there(`/u/${file.name}`), 404);
      assert.equal(await there(`/view/${file.name}`), 404);
    } finally {
      await store.close();
    }
  },
  { reachable: true },
);

apiTest("private: the upload header, both prefixes, multipart and chunked", async (app) => {
  const owner = await actor(app, "USER");
  const one = await uploadFiles(app, [{ name: "a.txt", content: "a" }], {
    ...owner.headers,
    "x-zipline-private": "true",
  });
  assert.equal(one.status, 200);
  const two = await uploadFiles(app, [{ name: "b.txt", content: "b" }], {
    ...owner.headers,
    "x-service-private": "TRUE",
  });
  const plain = await uploadFiles(app, [{ name: "c.txt", content: "c" }], owner.headers);
  const chunked = await sendAll(app, bytes(3000), 1000, {
    ...owner.headers,
    "x-service-private": "true",
  });
  const stored = chunked.at(-1)!.body.files[0];
  for (
    const [id, expected] of [
      [one.body.files[0].id, true],
      [two.body.files[0].id, true],
      [plain.body.files[0].id, false],
      [stored.id, true],
    ]
  ) {
    const res = await app.json("GET", `/api/user/files/${id}`, undefined, owner.headers);
    assert.equal(res.body.private, expected, res.body.name);
  }
  const chunkedFile = await app.json(
    "GET",
    `/api/user/files/${stored.id}`,
    undefined,
    owner.headers,
  );
  assert.equal((await app.request(`/raw/${chunkedFile.body.name}`)).status, 404);

  const bad = await uploadFiles(app, [{ name: "d.txt", content: "d" }], {
    ...owner.headers,
    "x-service-private": "yes",
  });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body, {
    error: "bad options[private]: must be true or false",
    statusCode: 400,
  });
});

apiTest(
  "private: privateByDefault makes new uploads private unless the header says false",
  async (app) => {
    const owner = await actor(app, "USER");
    const before = await app.json("GET", "/api/user/preferences", undefined, owner.headers);
    assert.equal(before.body.privateByDefault, false);
    const set = await app.json("PATCH", "/api/user/preferences", { privateByDefault: true }, {
      ...owner.headers,
    });
    assert.equal(set.status, 200);
    assert.equal(set.body.privateByDefault, true);
    const again = await app.json("GET", "/api/user/preferences", undefined, owner.headers);
    assert.equal(again.body.privateByDefault, true);

    const hidden = await uploadOne(app, owner.headers, "x", "x.txt");
    assert.equal((await app.request(`/raw/${hidden.name}`)).status, 404);
    const shown = await uploadFiles(app, [{ name: "y.txt", content: "y" }], {
      ...owner.headers,
      "x-service-private": "false",
    });
    assert.equal((await app.request(`/raw/${shown.body.files[0].name}`)).status, 200);
  },
);

apiTest(
  "private: the bulk PATCH sets and clears private on the caller's files only",
  async (app) => {
    const owner = await actor(app, "USER");
    const other = await actor(app, "USER");
    const a = await uploadOne(app, owner.headers, "a", "a.txt");
    const b = await uploadOne(app, owner.headers, "b", "b.txt");
    const theirs = await uploadOne(app, other.headers, "c", "c.txt");
    const bulk = (value: boolean) =>
      app.json("PATCH", "/api/user/files/transaction", {
        files: [a.id, b.id, theirs.id],
        private: value,
      }, owner.headers);
    assert.deepEqual((await bulk(true)).body, { count: 2 });
    for (const f of [a, b]) assert.equal((await app.request(`/raw/${f.name}`)).status, 404);
    assert.equal((await app.request(`/raw/${theirs.name}`)).status, 200);
    assert.deepEqual((await bulk(false)).body, { count: 2 });
    for (const f of [a, b]) assert.equal((await app.request(`/raw/${f.name}`)).status, 200);
  },
);

apiTest(
  "private: a private folder hides its page and its files; a public folder leaves private files out",
  async (app) => {
    const owner = await actor(app, "USER");
    const folder = await app.json("POST", "/api/user/folders", { name: "trip", isPublic: true }, {
      ...owner.headers,
    });
    assert.equal(folder.status, 200, JSON.stringify(folder.body));
    const id = folder.body.id;
    const shown = await uploadOne(app, { ...owner.headers, "x-service-folder": id }, "s", "s.txt");
    const hidden = await uploadFiles(app, [{ name: "h.txt", content: "h" }], {
      ...owner.headers,
      "x-service-folder": id,
      "x-service-private": "true",
    });
    const page = await app.json("GET", `/api/server/folder/${id}`);
    assert.equal(page.status, 200);
    assert.deepEqual(page.body.page.map((f: { id: string }) => f.id), [shown.id]);
    assert.equal(page.body.total, 1);
    assert.equal((await app.request(`/raw/${hidden.body.files[0].name}`)).status, 404);
    // Served twice: the file and its folder are cached, and the /raw fast path answers.
    for (let i = 0; i < 2; i++) assert.equal((await app.request(`/raw/${shown.name}`)).status, 200);

    const patched = await app.json("PATCH", `/api/user/folders/${id}`, { private: true }, {
      ...owner.headers,
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.private, true);
    assert.equal((await app.json("GET", `/api/server/folder/${id}`)).status, 404);
    assert.equal((await app.json("GET", `/api/server/folder/trip`)).status, 404);
    for (const path of publicPaths(shown.name)) {
      assert.equal((await app.request(path, { headers: HTML })).status, 404, path);
    }
    const signedIn = await signIn(app, owner);
    assert.equal((await app.request(`/raw/${shown.name}`, { headers: signedIn })).status, 200);

    // Deleting the private folder moves its files to the root, still private.
    const removed = await app.json("DELETE", `/api/user/folders/${id}`, { delete: "folder" }, {
      ...owner.headers,
    });
    assert.equal(removed.status, 200);
    const after = await app.json("GET", `/api/user/files/${shown.id}`, undefined, owner.headers);
    assert.equal(after.body.folderId, null);
    assert.equal(after.body.private, true);
    assert.equal((await app.request(`/raw/${shown.name}`)).status, 404);
  },
);

apiTest("private: a private file's page carries no embed for others", async (app) => {
  const owner = await actor(app, "USER");
  const patch = await app.json("PATCH", "/api/user", { view: { embed: true, embedTitle: "t" } }, {
    ...owner.headers,
  });
  assert.equal(patch.status, 200, JSON.stringify(patch.body));
  const file = await uploadOne(app, owner.headers, "GIF89a", "pic.gif", "image/gif");
  const open = await app.request(`/view/${file.name}`, { headers: HTML });
  assert.match(await open.text(), /og:title/);
  await setPrivate(app, owner, file.id, true);
  const closed = await app.request(`/view/${file.name}`, { headers: HTML });
  assert.equal(closed.status, 404);
  assert.doesNotMatch(await closed.text(), /og:/);
  const mine = await app.request(`/view/${file.name}`, {
    headers: { ...HTML, ...await signIn(app, owner) },
  });
  assert.match(await mine.text(), /og:title/);
});
