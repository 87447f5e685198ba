/** `POST|GET /api/server/export` (spec §4.6): a streamed v4 document that imports back whole. */
import assert from "node:assert/strict";
import type { Store } from "../../db/store.ts";
import type { UserRecord } from "../../db/users.ts";
import { decrypt } from "../../core/tokens.ts";
import { apiTest, startTestApp, TEST_SECRET } from "../helpers/app.ts";
import { counts, fixtureV4, importDoc } from "../helpers/transfer.ts";
import { actor } from "../helpers/users.ts";

/** Everything the store holds about users and their records, keyed by names instead of ids. */
async function snapshot(store: Store) {
  const users = await store.users.list();
  const name = new Map(users.map((u) => [u.id, u.username]));
  const owner = (id: string | null) => (id === null ? null : name.get(id) ?? "?");
  const out: Record<string, unknown> = {};
  for (const u of users) {
    out[`user ${u.username}`] = {
      password: u.password,
      role: u.role,
      avatar: u.avatar,
      view: u.view,
      totp: u.totpSecret && decrypt(u.totpSecret, TEST_SECRET),
      quota: u.quota && { ...u.quota, id: undefined },
      createdAt: u.createdAt.toISOString(),
      passkeys: (await store.mfa.listPasskeys(u.id)).map((k) => ({ ...k, id: 0, userId: 0 })),
      oauth: (await store.oauth.listByUser(u.id)).map((l) => ({
        ...l,
        id: 0,
        userId: 0,
        accessToken: decrypt(l.accessToken, TEST_SECRET),
        refreshToken: l.refreshToken && decrypt(l.refreshToken, TEST_SECRET),
      })),
    };
  }
  const folders = new Map<string, string>();
  for await (const f of store.folders.iterate()) folders.set(f.id, f.name);
  for await (const f of store.folders.iterate()) {
    out[`folder ${owner(f.userId)}/${f.name}`] = {
      ...f,
      id: 0,
      updatedAt: 0,
      userId: 0,
      parentId: f.parentId && folders.get(f.parentId),
    };
  }
  const files = new Map<string, string>();
  for await (const f of store.files.iterate()) {
    files.set(f.id, f.name);
    out[`file ${f.name}`] = {
      ...f,
      id: 0,
      updatedAt: 0,
      userId: owner(f.userId),
      folderId: f.folderId && folders.get(f.folderId),
    };
  }
  for await (const t of store.tags.iterate()) {
    const linked = (await store.tags.filesOfTags([t.id])).get(t.id) ?? [];
    out[`tag ${owner(t.userId)}/${t.name}`] = {
      ...t,
      id: 0,
      updatedAt: 0,
      userId: 0,
      files: linked.map((id) => files.get(id)).sort(),
    };
  }
  for await (const u of store.urls.iterate()) {
    out[`url ${u.code}`] = { ...u, id: 0, updatedAt: 0, userId: owner(u.userId) };
  }
  for (const i of await store.invites.list()) {
    out[`invite ${i.code}`] = { ...i, id: 0, updatedAt: 0, inviterId: owner(i.inviterId) };
  }
  const metrics = [];
  for await (const m of store.metrics.iterate()) metrics.push({ ...m, id: 0 });
  out.metrics = metrics;
  return out;
}

interface ExportDoc {
  data: {
    folders: { id: string; name: string; files: string[] }[];
    files: { id: string; name: string; folderId: string | null }[];
  };
}

/** Each exported folder lists the ids of exactly the exported files in it; some have files. */
function assertFolderFiles(doc: ExportDoc) {
  for (const folder of doc.data.folders) {
    const inside = doc.data.files.filter((f) => f.folderId === folder.id).map((f) => f.id);
    assert.deepEqual([...folder.files].sort(), inside.sort(), folder.name);
  }
  assert.ok(doc.data.folders.some((f) => f.files.length > 0));
}

apiTest("export, import into an empty instance: every record comes back", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "admin");
  const doc = await fixtureV4();
  const seeded = await importDoc(app, "v4", {
    export4: doc,
    config: { mergeCurrentUser: doc.data.users[0].id },
  }, admin.headers);
  assert.equal(seeded.status, 200);
  // A URL and a file password set through the API, beside the imported ones; the URL with
  // Ferry's own expiry and redirect rules.
  const made = await app.json("POST", "/api/user/urls", {
    destination: "https://example.com/secret",
    password: "hunter2",
    expiresAt: new Date(app.clock.now() + 86_400_000).toISOString(),
    deviceDestinations: { ios: "https://apps.example/ios" },
    forwardQuery: true,
  }, admin.headers);
  assert.equal(made.status, 200, JSON.stringify(made.body));

  const counted = await app.json("GET", "/api/server/export?counts=true", undefined, admin.headers);
  assert.deepEqual(counted.body, {
    users: 4,
    files: 8,
    urls: 5,
    folders: 5,
    invites: 2,
    thumbnails: 0,
    metrics: 3,
  });

  const res = await app.request("/api/server/export", { method: "POST", headers: admin.headers });
  assert.equal(res.status, 200);
  assert.match(
    res.headers.get("content-disposition") ?? "",
    /^attachment; filename=ferry_export_\d+\.json$/,
  );
  const text = await res.text();
  const exported = JSON.parse(text);
  assert.equal(exported.versions.export, "4");
  assert.deepEqual(exported.request.env, {}, "no process environment");
  assert.equal(exported.request.user, `${admin.user.id}:admin`);
  assert.equal(exported.data.files.length, 8);
  assertFolderFiles(exported);

  const target = await startTestApp(app.kind);
  try {
    const root = await actor(target, "SUPERADMIN", "root");
    const first = await importDoc(target, "v4", text, root.headers);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(counts(first.body.imported), [4, 3, 2, 1, 5, 8, 2, 5, 2, 3]);
    const before = await snapshot(app.services.store);
    const after = await snapshot(target.services.store);
    delete after["user root"];
    assert.deepEqual(after, before);

    const reexported = await target.json("GET", "/api/server/export", undefined, root.headers);
    assertFolderFiles(reexported.body);
    const named = (d: ExportDoc) =>
      d.data.folders.map((f) => [
        f.name,
        f.files.map((id) => d.data.files.find((file) => file.id === id)!.name).sort(),
      ]).sort();
    assert.deepEqual(named(reexported.body), named(exported));

    const again = await importDoc(target, "v4", text, root.headers);
    assert.deepEqual(counts(again.body.imported), [0, 0, 0, 0, 0, 0, 0, 0, 0, 3]);
  } finally {
    await target.close();
  }
});

apiTest("GET export works for Zipline clients; nometrics leaves metrics out", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "admin");
  await importDoc(app, "v4", await fixtureV4(), admin.headers);
  const res = await app.json("GET", "/api/server/export?nometrics=false", undefined, admin.headers);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data.metrics, []);
  assert.equal(res.body.data.users.length, 4);
  const user = res.body.data.users.find((u: UserRecord) => u.username === "maria");
  assert.equal(user.totpSecret, "KVKFKRCPNZQUYMLXOVYDSQKJKZDTSRLD", "TOTP secrets travel in clear");
  assert.equal(res.body.data.settings.discordWebhookUrl, null);
});
