/**
 * Scoped API keys (issue #34, part 1): `/api/user/keys`, `/api/users/:id/keys`,
 * and a key used like the token, held to the scope each route declares.
 */
import assert from "node:assert/strict";
import { API_KEY_SCOPE_NAMES, type ApiKeyScope, hashApiKey } from "../../core/api_keys.ts";
import { openKvStore } from "../../db/kv/mod.ts";
import { openPostgresStore } from "../../db/postgres/mod.ts";
import { servingStore } from "../../db/serving.ts";
import { createApp } from "../../routes/mod.ts";
import { apiTest, sessionCookie, startTestApp, type TestApp } from "../helpers/app.ts";
import { bytes, sendAll } from "../helpers/chunks.ts";
import { uploadFiles, uploadOne } from "../helpers/files.ts";
import { importDoc, importIntoFresh } from "../helpers/transfer.ts";
import { type Actor, actor } from "../helpers/users.ts";

/** A key made through the API, and the header that sends it. */
interface Key {
  id: string;
  key: string;
  headers: { authorization: string };
}

/** Makes a key for `owner` with `scopes` (and `expiresAt`), asserting success. */
async function makeKey(
  app: TestApp,
  owner: Actor,
  scopes: readonly ApiKeyScope[],
  extra: { name?: string; expiresAt?: string | null } = {},
): Promise<Key> {
  app.clock.advance(1); // each key a millisecond younger: lists are oldest first
  const res = await app.json(
    "POST",
    "/api/user/keys",
    { name: extra.name ?? "a key", scopes, ...extra },
    owner.headers,
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { id: res.body.id, key: res.body.key, headers: { authorization: res.body.key } };
}

/** The scopes but `scope`. */
const allBut = (scope: ApiKeyScope) => API_KEY_SCOPE_NAMES.filter((s) => s !== scope);

const METHODS = ["get", "post", "put", "patch", "delete"];

/** Every operation of the app's OpenAPI document, its path params filled with `c0`. */
async function operations(app: TestApp) {
  const doc = (await app.json("GET", "/api/openapi.json")).body;
  // deno-lint-ignore no-explicit-any
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({
      method: method.toUpperCase(),
      path,
      url: path.replace(/\{\w+\}/g, "c0"),
      security: item[method].security as Record<string, string[]>[],
      scope: item[method]["x-api-key-scope"] as ApiKeyScope | undefined,
    }))
  );
}

apiTest(
  "POST /api/user/keys shows the key once; lists, renames and the store never do",
  async (app) => {
    const bob = await actor(app, "USER", "bob");
    const res = await app.json("POST", "/api/user/keys", {
      name: "ShareX",
      scopes: ["files:write", "files:write", "urls:write"],
    }, bob.headers);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { key, ...view } = res.body;
    assert.match(key, /^fk_[A-Za-z0-9]{43}$/);
    const now = new Date(app.clock.now()).toISOString();
    assert.deepEqual(view, {
      id: view.id,
      name: "ShareX",
      scopes: ["files:write", "urls:write"],
      createdAt: now,
      expiresAt: null,
      lastUsedAt: null,
    });

    const list = await app.json("GET", "/api/user/keys", undefined, bob.headers);
    assert.deepEqual(list.body, [view]);
    const renamed = await app.json(
      "PATCH",
      `/api/user/keys/${view.id}`,
      { name: "laptop" },
      bob.headers,
    );
    assert.deepEqual(renamed.body, { ...view, name: "laptop" });
    assert.ok(!JSON.stringify([list.body, renamed.body]).includes(key));

    const stored = (await app.services.store.apiKeys.get(view.id))!;
    assert.equal(stored.hash, hashApiKey(key));
    assert.ok(!JSON.stringify(stored).includes(key.slice(3)), "the store keeps only the hash");

    // Another user sees none of them and cannot rename or revoke them.
    const eve = await actor(app, "USER", "eve");
    assert.deepEqual((await app.json("GET", "/api/user/keys", undefined, eve.headers)).body, []);
    const theirs = await app.json("PATCH", `/api/user/keys/${view.id}`, { name: "x" }, eve.headers);
    assert.equal(theirs.status, 404);
    assert.equal(
      (await app.json("DELETE", `/api/user/keys/${view.id}`, undefined, eve.headers)).status,
      404,
    );
    assert.ok((await uploadOne(app, { authorization: key })).id, "the key works");
  },
);

apiTest(
  "POST /api/user/keys refuses unknown scopes, none, a past expiry and a bad name",
  async (app) => {
    const bob = await actor(app, "USER", "bob");
    const post = (body: unknown) => app.json("POST", "/api/user/keys", body, bob.headers);
    for (
      const body of [
        { name: "k", scopes: [] },
        { name: "k", scopes: ["users:write"] },
        { name: "k", scopes: ["files:read"], expiresAt: "tomorrow" },
        { name: " ", scopes: ["files:read"] },
        { name: "k" },
      ]
    ) {
      const res = await post(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.statusCode, 400);
    }
    const past = await post({
      name: "k",
      scopes: ["files:read"],
      expiresAt: new Date(app.clock.now() - 1000).toISOString(),
    });
    assert.equal(past.status, 400);
    assert.equal(past.body.error, "expiresAt must be in the future");
    assert.deepEqual((await app.json("GET", "/api/user/keys", undefined, bob.headers)).body, []);
  },
);

apiTest(
  "a files:write key uploads, whole and chunked, but may not list, read or delete files",
  async (app) => {
    const bob = await actor(app, "USER", "bob");
    const { headers } = await makeKey(app, bob, ["files:write"]);
    const file = await uploadOne(app, headers, "by key");
    const stored = await app.services.store.files.get(file.id);
    assert.equal(stored?.userId, bob.user.id, "the upload is the key owner's");

    const chunked = await sendAll(app, bytes(3000), 1000, headers);
    assert.deepEqual(chunked.map((r) => r.status), [200, 200, 200]);
    const resumed = await app.json(
      "GET",
      `/api/upload/partial/${chunked[0].body.partialIdentifier}`,
      undefined,
      headers,
    );
    assert.notEqual(resumed.status, 403, "a resumable upload may ask what the server has");

    const list = await app.json("GET", "/api/user/files", undefined, headers);
    assert.equal(list.status, 403);
    assert.deepEqual(list.body, {
      error: "This key may not list or read files: it needs the scope files:read",
      statusCode: 403,
    });
    const del = await app.json("DELETE", `/api/user/files/${file.id}`, undefined, headers);
    assert.equal(del.status, 403);
    assert.deepEqual(del.body, {
      error: "This key may not delete files: it needs the scope files:delete",
      statusCode: 403,
    });
    assert.ok(await app.services.store.files.get(file.id), "the file is still there");
    const urls = await app.json(
      "POST",
      "/api/user/urls",
      { destination: "https://a.example" },
      headers,
    );
    assert.equal(urls.status, 403);

    // A key without files:write may not upload, into a public folder neither.
    const reader = await makeKey(app, bob, ["files:read", "files:delete"]);
    const refused = await uploadFiles(app, [{ name: "a.txt", content: "a" }], reader.headers);
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, {
      error: "This key may not upload or change files: it needs the scope files:write",
      statusCode: 403,
    });
    assert.equal(
      (await app.json("GET", "/api/user/files?page=1", undefined, reader.headers)).status,
      200,
    );
    const gone = await app.json("DELETE", `/api/user/files/${file.id}`, undefined, reader.headers);
    assert.equal(gone.status, 200);
  },
);

apiTest("an account:read key may GET /api/user but not PATCH it", async (app) => {
  const bob = await actor(app, "USER", "bob");
  const { headers } = await makeKey(app, bob, ["account:read"]);
  const me = await app.json("GET", "/api/user", undefined, headers);
  assert.equal(me.status, 200);
  assert.equal(me.body.user.id, bob.user.id);
  const patch = await app.json("PATCH", "/api/user", { avatar: null }, headers);
  assert.equal(patch.status, 403);
  assert.deepEqual(patch.body, {
    error: "This key may not call PATCH /api/user: no API key may; use a session or the " +
      "account's token",
    statusCode: 403,
  });
  assert.equal((await app.json("GET", "/api/user/files", undefined, headers)).status, 403);
});

apiTest(
  "no key, even a SUPERADMIN's with every scope, may call a route that declares no scope",
  async (app) => {
    const root = await actor(app, "SUPERADMIN", "root");
    const bob = await actor(app, "USER", "bob");
    const { headers } = await makeKey(app, root, API_KEY_SCOPE_NAMES);
    const refused: string[] = [];
    for (const op of await operations(app)) {
      if (op.security.length === 0 || op.scope) continue;
      assert.ok(!op.security.some((s) => "apiKey" in s), `${op.method} ${op.path} lists apiKey`);
      const res = await app.json(op.method, op.url, undefined, headers);
      assert.equal(res.status, 403, `${op.method} ${op.path}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.error, /^This key may not call /);
      refused.push(`${op.method} ${op.path}`);
    }
    // Users, settings, keys and credentials among them.
    for (
      const route of [
        "GET /api/users",
        "POST /api/users",
        "PATCH /api/users/{id}",
        "DELETE /api/users/{id}",
        "GET /api/server/settings",
        "PATCH /api/server/settings",
        "GET /api/user/keys",
        "POST /api/user/keys",
        "DELETE /api/user/keys/{id}",
        "GET /api/users/{id}/keys",
        "GET /api/user/token",
        "PATCH /api/user/token",
        "PATCH /api/user",
        "POST /api/user/mfa/totp",
        "DELETE /api/user/mfa/passkey",
        "GET /api/auth/oauth",
        "DELETE /api/auth/oauth",
        "DELETE /api/user/sessions",
        "POST /api/server/import/v4",
      ]
    ) assert.ok(refused.includes(route), route);

    // Concretely: the key cannot make a key, change a user or a password, or read the token.
    const made = await app.json(
      "POST",
      "/api/user/keys",
      { name: "k", scopes: ["files:read"] },
      headers,
    );
    assert.equal(made.status, 403);
    const demoted = await app.json(
      "PATCH",
      `/api/users/${bob.user.id}`,
      { role: "ADMIN" },
      headers,
    );
    assert.equal(demoted.status, 403);
    assert.equal((await app.services.store.users.get(bob.user.id))!.role, "USER");
    const password = await app.json("PATCH", "/api/user", {
      password: "new-password",
      currentPassword: "password",
    }, headers);
    assert.equal(password.status, 403);
    assert.equal((await app.json("GET", "/api/user/keys", undefined, root.headers)).body.length, 1);
  },
);

apiTest("each scoped route refuses a key holding every other scope", async (app) => {
  const bob = await actor(app, "USER", "bob");
  const scoped = (await operations(app)).filter((op) => op.scope);
  assert.ok(scoped.length >= 30, `${scoped.length} scoped operations`);
  const keys = new Map<ApiKeyScope, Key>();
  for (const scope of API_KEY_SCOPE_NAMES) keys.set(scope, await makeKey(app, bob, allBut(scope)));
  for (const op of scoped) {
    assert.deepEqual(
      op.security.find((s) => "apiKey" in s),
      { apiKey: [op.scope] },
      `${op.method} ${op.path}`,
    );
    // The tus routes hold every request to the protocol's version before anything else.
    const res = await app.json(op.method, op.url, undefined, {
      ...keys.get(op.scope!)!.headers,
      "tus-resumable": "1.0.0",
    });
    assert.equal(res.status, 403, `${op.method} ${op.path}: ${JSON.stringify(res.body)}`);
    assert.match(
      res.body.error,
      new RegExp(`^This key may not .*: it needs the scope ${op.scope}$`),
    );
  }
});

apiTest("a folder deleted with its files needs files:delete too", async (app) => {
  const bob = await actor(app, "USER", "bob");
  const folders = await makeKey(app, bob, ["folders:write", "files:write"]);
  const made = await app.json("POST", "/api/user/folders", { name: "box" }, folders.headers);
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const file = await uploadOne(app, { ...folders.headers, "x-service-folder": made.body.id });
  const body = { delete: "folder", childrenAction: "cascade-files" };
  const refused = await app.json(
    "DELETE",
    `/api/user/folders/${made.body.id}`,
    body,
    folders.headers,
  );
  assert.equal(refused.status, 403);
  assert.match(refused.body.error, /it needs the scope files:delete$/);
  assert.ok(await app.services.store.files.get(file.id));
  const both = await makeKey(app, bob, ["folders:write", "files:delete"]);
  const res = await app.json("DELETE", `/api/user/folders/${made.body.id}`, body, both.headers);
  assert.equal(res.status, 200);
  assert.equal(await app.services.store.files.get(file.id), null);
});

apiTest("a key stops working at its expiry (401), the token does not", async (app) => {
  const bob = await actor(app, "USER", "bob");
  const expiresAt = new Date(app.clock.now() + 60 * 60 * 1000).toISOString();
  const { headers } = await makeKey(app, bob, ["account:read"], { expiresAt });
  const list = await app.json("GET", "/api/user/keys", undefined, bob.headers);
  assert.equal(list.body[0].expiresAt, expiresAt);
  app.clock.set(Date.parse(expiresAt) - 1);
  assert.equal((await app.json("GET", "/api/user", undefined, headers)).status, 200);
  app.clock.advance(1);
  const expired = await app.json("GET", "/api/user", undefined, headers);
  assert.equal(expired.status, 401);
  assert.deepEqual(expired.body, { error: "This API key has expired", statusCode: 401 });
  assert.equal((await app.json("GET", "/api/user", undefined, bob.headers)).status, 200);
});

apiTest("an unknown key is 401, like a bad token", async (app) => {
  const res = await app.json("GET", "/api/user", undefined, { authorization: "fk_nope" });
  assert.deepEqual(res.body, { error: "invalid authorization token", statusCode: 401 });
});

apiTest(
  "a revoked key is 401 at once here, and on a second instance over the same store within a second",
  async (app) => {
    const bob = await actor(app, "USER", "bob");
    const { id, headers } = await makeKey(app, bob, ["account:read"]);
    const store = servingStore(
      app.kind === "kv"
        ? await openKvStore(`${app.processEnv.SERVICE_DATA_DIR}/ferry.kv`)
        : await openPostgresStore(app.storeUrl!, { max: 2 }),
      app.clock,
    );
    try {
      const other = createApp({ ...app.services, store });
      const there = () => other.request("http://ferry.test/api/user", { headers });
      assert.equal((await there()).status, 200, "the second instance now holds the key");

      const res = await app.json("DELETE", `/api/user/keys/${id}`, undefined, bob.headers);
      assert.equal(res.status, 200);
      assert.equal(res.body.id, id);
      assert.equal(res.body.key, undefined);
      assert.equal((await app.json("GET", "/api/user", undefined, headers)).status, 401);

      app.clock.advance(1000);
      const later = await there();
      assert.equal(later.status, 401);
      assert.deepEqual(await later.json(), {
        error: "invalid authorization token",
        statusCode: 401,
      });
    } finally {
      await store.close();
    }
  },
  { reachable: true },
);

apiTest("lastUsedAt is written at most once a minute per key", async (app) => {
  const bob = await actor(app, "USER", "bob");
  const { id, headers } = await makeKey(app, bob, ["account:read"]);
  const lastUsed = async () => (await app.services.store.apiKeys.get(id))!.lastUsedAt?.getTime();
  assert.equal(await lastUsed(), undefined);
  const first = app.clock.now();
  await app.json("GET", "/api/user", undefined, headers);
  assert.equal(await lastUsed(), first);
  app.clock.advance(30_000);
  await app.json("GET", "/api/user", undefined, headers);
  app.clock.advance(1_500); // past the lookup's cache: read from the store again
  await app.json("GET", "/api/user", undefined, headers);
  assert.equal(await lastUsed(), first, "not written again within the minute");
  app.clock.advance(30_000);
  await app.json("GET", "/api/user", undefined, headers);
  assert.equal(await lastUsed(), app.clock.now());
  const list = await app.json("GET", "/api/user/keys", undefined, bob.headers);
  assert.equal(list.body[0].lastUsedAt, new Date(app.clock.now()).toISOString());
});

apiTest("an ADMIN sees and revokes the keys of USERs, not of another ADMIN", async (app) => {
  const admin = await actor(app, "ADMIN", "admin");
  const other = await actor(app, "ADMIN", "other");
  const root = await actor(app, "SUPERADMIN", "root");
  const bob = await actor(app, "USER", "bob");
  const one = await makeKey(app, bob, ["files:write"], { name: "one" });
  const two = await makeKey(app, bob, ["files:read"], { name: "two" });
  const theirs = await makeKey(app, other, ["files:read"], { name: "theirs" });

  const list = await app.json("GET", `/api/users/${bob.user.id}/keys`, undefined, admin.headers);
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.map((k: { name: string }) => k.name), ["one", "two"]);
  assert.ok(!JSON.stringify(list.body).includes(one.key));
  assert.ok(list.body.every((k: object) => !("key" in k)));

  const revoked = await app.json(
    "DELETE",
    `/api/users/${bob.user.id}/keys/${one.id}`,
    undefined,
    admin.headers,
  );
  assert.equal(revoked.status, 200);
  assert.equal((await app.json("GET", "/api/user/stats", undefined, one.headers)).status, 401);
  // A key id of another user under this user's path is not found.
  const mismatched = await app.json(
    "DELETE",
    `/api/users/${bob.user.id}/keys/${theirs.id}`,
    undefined,
    admin.headers,
  );
  assert.equal(mismatched.status, 404);

  for (
    const [method, path] of [
      ["GET", `/api/users/${other.user.id}/keys`],
      ["DELETE", `/api/users/${other.user.id}/keys/${theirs.id}`],
      ["DELETE", `/api/users/${other.user.id}/keys`],
      ["GET", `/api/users/${admin.user.id}/keys`],
    ]
  ) {
    const res = await app.json(method, path, undefined, admin.headers);
    assert.equal(res.status, 403, `${method} ${path}`);
    assert.equal(res.body.error, "You cannot manage this user's keys");
  }
  assert.equal(
    (await app.json("GET", "/api/user/files?page=1", undefined, theirs.headers)).status,
    200,
  );
  const byUser = await app.json("GET", `/api/users/${admin.user.id}/keys`, undefined, bob.headers);
  assert.equal(byUser.status, 403, "a USER may not");
  const unknown = await app.json("GET", "/api/users/c0/keys", undefined, admin.headers);
  assert.equal(unknown.status, 404);

  // A SUPERADMIN manages ADMINs' keys; revoking all of a user's leaves the others'.
  const superList = await app.json(
    "GET",
    `/api/users/${other.user.id}/keys`,
    undefined,
    root.headers,
  );
  assert.deepEqual(superList.body.map((k: { name: string }) => k.name), ["theirs"]);
  const all = await app.json("DELETE", `/api/users/${bob.user.id}/keys`, undefined, admin.headers);
  assert.deepEqual(all.body, { deleted: 1 });
  assert.equal((await app.json("GET", "/api/user/files", undefined, two.headers)).status, 401);
  assert.equal(
    (await app.json("GET", "/api/user/files?page=1", undefined, theirs.headers)).status,
    200,
  );
});

apiTest("a password change or reset, or a new token, keeps the keys", async (app) => {
  const admin = await actor(app, "ADMIN", "admin");
  const bob = await actor(app, "USER", "bob");
  const { headers } = await makeKey(app, bob, ["account:read"]);
  const own = await app.json("PATCH", "/api/user", {
    password: "a-new-password",
    currentPassword: "password",
  }, bob.headers);
  assert.equal(own.status, 200);
  assert.equal((await app.json("GET", "/api/user", undefined, headers)).status, 200);
  const reset = await app.json("PATCH", `/api/users/${bob.user.id}`, {
    password: "reset-password",
  }, admin.headers);
  assert.equal(reset.status, 200);
  const login = await app.json("POST", "/api/auth/login", {
    username: "bob",
    password: "reset-password",
  });
  const cookie = { cookie: sessionCookie(login.headers) };
  assert.equal((await app.json("PATCH", "/api/user/token", undefined, cookie)).status, 200);
  assert.equal((await app.json("GET", "/api/user", undefined, headers)).status, 200);
  assert.equal((await app.json("GET", "/api/user/keys", undefined, cookie)).body.length, 1);
});

apiTest("DELETE /api/user/keys revokes every key of the caller, and only keys", async (app) => {
  const bob = await actor(app, "USER", "bob");
  const eve = await actor(app, "USER", "eve");
  const keys = [
    await makeKey(app, bob, ["account:read"]),
    await makeKey(app, bob, ["files:read"]),
  ];
  const eves = await makeKey(app, eve, ["account:read"]);
  const res = await app.json("DELETE", "/api/user/keys", undefined, bob.headers);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { deleted: 2 });
  for (const k of keys) {
    assert.equal((await app.json("GET", "/api/user", undefined, k.headers)).status, 401);
  }
  assert.deepEqual((await app.json("GET", "/api/user/keys", undefined, bob.headers)).body, []);
  assert.equal((await app.json("GET", "/api/user", undefined, bob.headers)).status, 200);
  assert.equal((await app.json("GET", "/api/user", undefined, eves.headers)).status, 200);
});

apiTest("deleting a user removes its keys", async (app) => {
  const admin = await actor(app, "ADMIN", "admin");
  const bob = await actor(app, "USER", "bob");
  const { key, headers } = await makeKey(app, bob, ["account:read"]);
  const res = await app.json(
    "DELETE",
    `/api/users/${bob.user.id}`,
    { delete: false },
    admin.headers,
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(await app.services.store.apiKeys.findByHash(hashApiKey(key)), null);
  assert.deepEqual(await app.services.store.apiKeys.listByUser(bob.user.id), []);
  assert.equal((await app.json("GET", "/api/user", undefined, headers)).status, 401);
});

apiTest(
  "the v4 export carries keys as hashes, and an import makes them work again",
  async (app) => {
    const root = await actor(app, "SUPERADMIN", "root");
    const bob = await actor(app, "USER", "bob");
    const expiresAt = new Date(app.clock.now() + 86_400_000).toISOString();
    const made = await makeKey(app, bob, ["files:read", "account:read"], {
      name: "cli",
      expiresAt,
    });
    await app.json("GET", "/api/user", undefined, made.headers); // sets lastUsedAt

    const exported = await app.request("/api/server/export", {
      method: "POST",
      headers: root.headers,
    });
    assert.equal(exported.status, 200);
    const text = await exported.text();
    assert.ok(!text.includes(made.key.slice(3)), "the export holds no key");
    const doc = JSON.parse(text);
    assert.deepEqual(doc.data.ferryApiKeys, [{
      id: made.id,
      createdAt: doc.data.ferryApiKeys[0].createdAt,
      name: "cli",
      scopes: ["files:read", "account:read"],
      hash: hashApiKey(made.key),
      expiresAt,
      lastUsedAt: new Date(app.clock.now()).toISOString(),
      userId: bob.user.id,
    }]);

    const target = await startTestApp(app.kind);
    try {
      target.clock.set(app.clock.now());
      const admin = await actor(target, "SUPERADMIN", "admin");
      const first = await importDoc(target, "v4", text, admin.headers);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.imported.apiKeys, 1);
      const me = await target.json("GET", "/api/user", undefined, made.headers);
      assert.equal(me.status, 200);
      assert.equal(me.body.user.username, "bob");
      assert.equal(
        (await target.json("GET", "/api/user/urls", undefined, made.headers)).status,
        403,
      );
      const again = await importDoc(target, "v4", text, admin.headers);
      assert.equal(again.body.imported.apiKeys, 0, "the same key is not imported twice");

      // A Zipline document, without the collection, imports as before.
      delete doc.data.ferryApiKeys;
      const plain = await importIntoFresh(app.kind, doc);
      assert.equal(plain.imported.apiKeys, 0);
    } finally {
      await target.close();
    }
  },
);

apiTest("the OpenAPI document lists the scopes once, in the apiKey scheme", async (app) => {
  const doc = (await app.json("GET", "/api/openapi.json")).body;
  const scheme = doc.components.securitySchemes.apiKey;
  assert.equal(scheme.type, "apiKey");
  assert.equal(scheme.name, "Authorization");
  assert.deepEqual(Object.keys(scheme["x-scopes"]), API_KEY_SCOPE_NAMES);
  for (const scope of API_KEY_SCOPE_NAMES) assert.ok(scheme.description.includes(`\`${scope}\``));
  const upload = doc.paths["/api/upload"].post;
  assert.equal(upload["x-api-key-scope"], "files:write");
  assert.deepEqual(upload.security.at(-1), { apiKey: ["files:write"] });
  assert.deepEqual(doc.paths["/api/user"].get.security.at(-1), { apiKey: ["account:read"] });
});
