/** `POST /api/server/import/v4` (spec §4.6) with the reference fixture. */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { counts, fixture, fixtureV4, importDoc } from "../helpers/transfer.ts";
import { actor } from "../helpers/users.ts";

const ADMIN_ID = "cm5jdtpc000rtz1plsgu23tlb";

async function login(app: TestApp, username: string, password: string) {
  app.clock.advance(3000);
  return await app.json("POST", "/api/auth/login", { username, password });
}

apiTest("the v4 fixture imports with the reference's counts; logins survive", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "admin");
  const res = await importDoc(app, "v4", await fixture("v4"), admin.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(counts(res.body.imported), [3, 3, 2, 0, 4, 6, 2, 3, 1, 3]);
  const reasons = res.body.skipped.map((s: { kind: string; reason: string }) =>
    s.kind + ": " + s.reason
  );
  assert.ok(reasons.includes("folders: owner not imported"));
  assert.ok(reasons.includes("users: username exists"));
  assert.ok(reasons.includes("files: no owner"));

  assert.equal((await login(app, "maria", "maria-pass-2024")).status, 200);
  assert.equal((await login(app, "kenji", "kenji-pass-2024")).status, 200);
  assert.equal((await login(app, "maria", "wrong")).status, 400);
  const kenji = await app.services.store.users.getByUsername("kenji");
  assert.deepEqual(
    kenji?.quota && [kenji.quota.filesQuota, kenji.quota.maxBytes, kenji.quota.maxUrls],
    [
      "BY_BYTES",
      "2gb",
      25,
    ],
  );
  // Nested folders are rebuilt whatever the array order; files follow their folders.
  const maria = await app.services.store.users.getByUsername("maria");
  const folders = await app.services.store.folders.listByUser(maria!.id);
  const byId = new Map(folders.map((f) => [f.id, f]));
  const q1 = folders.find((f) => f.name === "Q1")!;
  assert.deepEqual([
    byId.get(q1.parentId!)?.name,
    byId.get(byId.get(q1.parentId!)!.parentId!)?.name,
  ], ["2025", "Projects"]);
  const pdf = await app.services.store.files.getByName("report-q1.pdf");
  assert.ok(pdf?.password?.startsWith("$argon2id$"));

  // The same document again: nothing is duplicated except metrics (as in Zipline).
  app.clock.advance(6000);
  const again = await importDoc(app, "v4", await fixture("v4"), admin.headers);
  assert.equal(again.status, 200);
  assert.deepEqual(counts(again.body.imported), [0, 0, 0, 0, 0, 0, 0, 0, 0, 3]);
});

apiTest("mergeCurrentUser folds the exported admin into the caller", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "admin");
  const body = { export4: await fixtureV4(), config: { mergeCurrentUser: ADMIN_ID } };
  const res = await importDoc(app, "v4", body, admin.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(counts(res.body.imported), [4, 3, 2, 1, 5, 8, 2, 4, 2, 3]);
  const me = await app.services.store.users.get(admin.user.id);
  assert.equal(me?.password, admin.user.password, "the caller keeps its password");
  assert.equal(me?.view.embedSiteName, "Ziggy Shares");
  assert.equal((await app.services.store.mfa.listPasskeys(admin.user.id)).length, 1);
  const files = await app.services.store.files.listByUser(admin.user.id);
  assert.deepEqual(files.map((f) => f.name).sort(), ["Xk2pQ9.png", "b7TqLw.mp4"].sort());

  app.clock.advance(6000);
  const again = await importDoc(app, "v4", body, admin.headers);
  assert.deepEqual(counts(again.body.imported), [1, 0, 0, 0, 0, 0, 0, 0, 0, 3]);
});

apiTest("config.settings imports valid settings and reports invalid ones", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "admin");
  const doc = await fixtureV4();
  doc.data.settings.websiteTitle = "Imported title";
  doc.data.settings.filesLength = "not a number";
  const res = await importDoc(
    app,
    "v4",
    { export4: doc, config: { settings: true } },
    admin.headers,
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.ok(res.body.settings.imported.includes("websiteTitle"));
  assert.ok(res.body.settings.invalid.some((i: { path: string[] }) => i.path[0] === "filesLength"));
  const settings = await app.json("GET", "/api/server/settings", undefined, admin.headers);
  assert.equal(settings.body.settings.websiteTitle, "Imported title");
});

apiTest("an invalid document is refused with issues before anything is written", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "admin");
  const cases: [unknown, string[]][] = [];
  const badRole = await fixtureV4();
  badRole.data.users[3].role = "OWNER";
  cases.push([badRole, ["data", "users", "3", "role"]]);
  const badSize = await fixtureV4();
  badSize.data.files[8].size = "12";
  cases.push([badSize, ["data", "files", "8", "size"]]);
  const badUser = await fixtureV4();
  badUser.request.user = "no-colon";
  cases.push([badUser, ["request", "user"]]);
  const missing = await fixtureV4();
  delete missing.data.thumbnails;
  cases.push([missing, ["data", "thumbnails"]]);
  cases.push([{ export4: await fixtureV4() }, ["config"]]);
  for (const [body, path] of cases) {
    const res = await importDoc(app, "v4", body, admin.headers);
    assert.equal(res.status, 400, JSON.stringify(path));
    assert.deepEqual(res.body.issues[0].path, path);
  }
  const broken = await importDoc(app, "v4", (await fixture("v4")).slice(0, -40), admin.headers);
  assert.equal(broken.status, 400);
  assert.equal((await app.services.store.users.list()).length, 1, "nothing was written");
  assert.equal(await app.services.store.files.getByName("Xk2pQ9.png"), null);
});

apiTest("only a SUPERADMIN may import or export", async (app) => {
  for (const role of ["ADMIN", "USER"] as const) {
    const who = await actor(app, role);
    assert.equal((await importDoc(app, "v4", await fixture("v4"), who.headers)).status, 403);
    assert.equal((await importDoc(app, "v3", await fixture("v3"), who.headers)).status, 403);
    assert.equal(
      (await app.json("POST", "/api/server/export", undefined, who.headers)).status,
      403,
    );
  }
  assert.equal((await app.services.store.users.list()).length, 2);
});

apiTest(
  "conformance: metrics records over KV's 64 KiB value limit import and export whole",
  async (app) => {
    const admin = await actor(app, "SUPERADMIN", "admin");
    const doc = await fixtureV4();
    const [first] = doc.data.metrics;
    const note = "n".repeat(64 * 1024) + "ü€😀";
    // A large instance's snapshot: one `filesUsers` row per user (about 1 MB).
    const filesUsers = Array.from({ length: 12_000 }, (_, i) => ({
      username: `user${i}`,
      sum: i,
      storage: i * 1.5,
      views: i % 7,
    }));
    doc.data.metrics = [
      { ...first, id: "big-string", data: { ...first.data, note } },
      { ...first, id: "many-users", data: { ...first.data, filesUsers } },
      first,
    ];
    const res = await importDoc(app, "v4", doc, admin.headers);
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
    assert.equal(res.body.imported.metrics, 3);
    const exported = await app.json("GET", "/api/server/export", undefined, admin.headers);
    assert.equal(exported.status, 200);
    const datas = exported.body.data.metrics.map((m: { data: unknown }) => m.data);
    assert.equal(datas.length, 3);
    assert.ok(datas.some((d: { note?: string }) => d.note === note), "the long string came back");
    const listed = datas.find((d: { filesUsers: unknown[] }) => d.filesUsers.length > 4);
    assert.deepEqual(listed.filesUsers, filesUsers, "the long list came back");
  },
);
