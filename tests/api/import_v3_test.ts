/** `POST /api/server/import/v3` (spec §4.6, §9) with the reference fixture. */
import assert from "node:assert/strict";
import { apiTest } from "../helpers/app.ts";
import { fixture, importDoc } from "../helpers/transfer.ts";
import { actor } from "../helpers/users.ts";

const V3_ADMIN = "yyVcsZoVwMXvBjf9nhseYT0cqNOsdfLd";

const sizes = (body: Record<string, Record<string, string>>) =>
  ["users", "files", "folders", "urls"].map((k) => Object.keys(body[k]).length);

apiTest("the v3 fixture imports with the reference's id maps; passwords work", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "admin");
  const res = await importDoc(app, "v3", await fixture("v3"), admin.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(sizes(res.body), [3, 5, 2, 2]);
  assert.equal(res.body.users[V3_ADMIN], undefined, "admin exists: skipped with its content");
  const maria = await app.services.store.users.getByUsername("maria");
  assert.equal(maria?.id, res.body.users.VIviOnVJEeQZAPpGq0VwR2Za2OJe0pTG);
  assert.equal(maria?.role, "ADMIN");
  assert.equal((await app.services.store.oauth.listByUser(maria!.id)).length, 1);
  app.clock.advance(3000);
  const login = await app.json("POST", "/api/auth/login", {
    username: "lena",
    password: "lena-pass-2024",
  });
  assert.equal(login.status, 200);
  const file = await app.services.store.files.get(res.body.files.yFNW1DYmeMNxIgWiZdQPBGkH2QSrY7xF);
  assert.equal(file?.name, "report-q1.pdf");
  assert.ok(file?.password?.startsWith("$argon2id$"));

  app.clock.advance(6000);
  const again = await importDoc(app, "v3", await fixture("v3"), admin.headers);
  assert.deepEqual(sizes(again.body), [0, 0, 0, 0]);
});

apiTest("importFromUser merges the v3 user into the calling SUPERADMIN", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "admin");
  const body = { export3: JSON.parse(await fixture("v3")), importFromUser: V3_ADMIN };
  const res = await importDoc(app, "v3", body, admin.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(sizes(res.body), [4, 7, 3, 3]);
  assert.equal(res.body.users[V3_ADMIN], admin.user.id);
  const me = await app.services.store.users.get(admin.user.id);
  assert.equal(me?.password, admin.user.password);
  assert.equal(me?.role, "SUPERADMIN");
  assert.deepEqual([me?.avatar, me?.totpSecret], [null, null]);
});

apiTest("an invalid v3 document is refused before anything is written", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "admin");
  // deno-lint-ignore no-explicit-any
  const cases: [(doc: Record<string, any>) => void, string[]][] = [
    [(d) => d.versions.export = 3, ["versions", "export"]],
    [(d) => d.request.os.platform = "android", ["request", "os", "platform"]],
    [(d) => delete d.file_map, ["file_map"]],
    [(d) => d.urls.pP1hWuTT1LmPgtAxLyfxDwKM9mT2EUXL.views = "4", [
      "urls",
      "pP1hWuTT1LmPgtAxLyfxDwKM9mT2EUXL",
      "views",
    ]],
  ];
  for (const [spoil, path] of cases) {
    const doc = JSON.parse(await fixture("v3"));
    spoil(doc);
    const res = await importDoc(app, "v3", doc, admin.headers);
    assert.equal(res.status, 400, JSON.stringify(path));
    assert.deepEqual(res.body.issues[0].path, path);
  }
  assert.equal((await app.services.store.users.list()).length, 1);
});
