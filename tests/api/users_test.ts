/** User administration (spec §4.1): every role rule, quotas, and the store's answer to races. */
import assert from "node:assert/strict";
import type { Role } from "../../db/users.ts";
import { apiTest, sessionCookie, type TestApp } from "../helpers/app.ts";
import { type Actor, actor } from "../helpers/users.ts";
import { uploadOne } from "../helpers/files.ts";

const ROLES: Role[] = ["USER", "ADMIN", "SUPERADMIN"];

apiTest("create: summary shape, default role, and a duplicate is a 400", async (app) => {
  const root = await actor(app, "SUPERADMIN");
  const res = await app.json(
    "POST",
    "/api/users",
    { username: "alice", password: "password1" },
    root.headers,
  );
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body).sort(), [
    "avatar",
    "createdAt",
    "id",
    "quota",
    "role",
    "updatedAt",
    "username",
    "view",
  ]);
  assert.equal(res.body.role, "USER");
  assert.equal(res.body.avatar, null);
  assert.equal(res.body.quota, null);

  const dup = await app.json(
    "POST",
    "/api/users",
    { username: "alice", password: "password2" },
    root.headers,
  );
  assert.equal(dup.status, 400);
  assert.deepEqual(dup.body, { error: "Username already exists", statusCode: 400 });

  const missing = await app.json("POST", "/api/users", { username: "bob" }, root.headers);
  assert.equal(missing.status, 400);
  assert.deepEqual(missing.body.issues.map((i: { path: string[] }) => i.path), [["password"]]);

  // The created user can log in with its password.
  const login = await app.json("POST", "/api/auth/login", {
    username: "alice",
    password: "password1",
  });
  assert.equal(login.status, 200);
});

apiTest("the user list shows every change made through this instance at once", async (app) => {
  const root = await actor(app, "SUPERADMIN");
  const names = async () => {
    const res = await app.json("GET", "/api/users", undefined, root.headers);
    assert.equal(res.status, 200);
    return res.body.map((u: { username: string }) => u.username);
  };
  const before = await names();
  app.clock.advance(1); // created after the others, so listed last
  const created = await app.json("POST", "/api/users", { username: "zed", password: "password1" }, {
    ...root.headers,
  });
  assert.deepEqual(await names(), [...before, "zed"]);
  const renamed = await app.json("PATCH", `/api/users/${created.body.id}`, { username: "zoe" }, {
    ...root.headers,
  });
  assert.equal(renamed.status, 200);
  assert.deepEqual(await names(), [...before, "zoe"]);
  const quota = { filesType: "BY_FILES", maxFiles: 5 };
  await app.json("PATCH", `/api/users/${created.body.id}`, { quota }, root.headers);
  const listed = await app.json("GET", "/api/users", undefined, root.headers);
  assert.equal(listed.body.at(-1).quota.maxFiles, 5);
  await app.json("DELETE", `/api/users/${created.body.id}`, {}, root.headers);
  assert.deepEqual(await names(), before);
});

apiTest("concurrent creation of one username creates one user", async (app) => {
  const root = await actor(app, "SUPERADMIN");
  const replies = await Promise.all(
    Array.from(
      { length: 6 },
      () =>
        app.json("POST", "/api/users", { username: "same", password: "password1" }, root.headers),
    ),
  );
  assert.deepEqual(replies.map((r) => r.status).sort(), [200, 400, 400, 400, 400, 400]);
  const users = await app.services.store.users.list();
  assert.equal(users.filter((u) => u.username === "same").length, 1);
});

/** What each caller may do to each target role: create it, update one, delete one. */
const ALLOWED: Record<Role, { create: Role[]; manage: Role[] }> = {
  USER: { create: [], manage: [] },
  ADMIN: { create: ["USER", "ADMIN"], manage: ["USER"] },
  SUPERADMIN: { create: ["USER", "ADMIN", "SUPERADMIN"], manage: ["USER", "ADMIN"] },
};

async function snapshot(app: TestApp, id: string) {
  return await app.services.store.users.get(id);
}

apiTest("role rules: every caller role against every target role", async (app, t) => {
  for (const callerRole of ROLES) {
    for (const targetRole of ROLES) {
      await t.step(`${callerRole} → ${targetRole}`, async () => {
        const caller: Actor = await actor(app, callerRole);
        const allowedCreate = ALLOWED[callerRole].create.includes(targetRole);
        const allowedManage = ALLOWED[callerRole].manage.includes(targetRole);

        const name = `made-by-${caller.user.username}-${targetRole}`;
        const created = await app.json("POST", "/api/users", {
          username: name,
          password: "password1",
          role: targetRole,
        }, caller.headers);
        assert.equal(created.status, allowedCreate ? 200 : 403, `create ${targetRole}`);
        if (!allowedCreate) {
          assert.equal(await app.services.store.users.getByUsername(name), null);
          assert.ok(["forbidden", "You cannot create this role"].includes(created.body.error));
        }

        const target = await actor(app, targetRole);
        const before = await snapshot(app, target.user.id);
        const updated = await app.json("PATCH", `/api/users/${target.user.id}`, {
          username: `${target.user.username}-renamed`,
        }, caller.headers);
        assert.equal(updated.status, allowedManage ? 200 : 403, `update ${targetRole}`);
        if (allowedManage) {
          assert.equal(updated.body.username, `${target.user.username}-renamed`);
        } else {
          assert.deepEqual(await snapshot(app, target.user.id), before);
        }

        const deleted = await app.json(
          "DELETE",
          `/api/users/${target.user.id}`,
          {},
          caller.headers,
        );
        assert.equal(deleted.status, allowedManage ? 200 : 403, `delete ${targetRole}`);
        const after = await snapshot(app, target.user.id);
        if (allowedManage) {
          assert.equal(after, null);
          assert.deepEqual(Object.keys(deleted.body).sort(), [
            "avatar",
            "createdAt",
            "id",
            "role",
            "username",
          ]);
        } else {
          assert.notEqual(after, null);
        }
      });
    }
  }
});

apiTest("a caller assigns only roles at or below its own", async (app) => {
  const admin = await actor(app, "ADMIN");
  const user = await actor(app, "USER");
  const up = await app.json(
    "PATCH",
    `/api/users/${user.user.id}`,
    { role: "SUPERADMIN" },
    admin.headers,
  );
  assert.equal(up.status, 403);
  assert.deepEqual(up.body, { error: "You cannot assign this role", statusCode: 403 });
  assert.equal((await app.services.store.users.get(user.user.id))!.role, "USER");
  const ok = await app.json(
    "PATCH",
    `/api/users/${user.user.id}`,
    { role: "ADMIN" },
    admin.headers,
  );
  assert.equal(ok.status, 200);
  assert.equal(ok.body.role, "ADMIN");
});

apiTest("nobody deletes themselves", async (app) => {
  for (const role of ["ADMIN", "SUPERADMIN"] as Role[]) {
    const self = await actor(app, role);
    const res = await app.json("DELETE", `/api/users/${self.user.id}`, {}, self.headers);
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, { error: "You cannot delete yourself", statusCode: 403 });
    assert.notEqual(await app.services.store.users.get(self.user.id), null);
  }
});

apiTest(
  "conformance: GET /api/users lists every user, noincl leaves the caller out",
  async (app) => {
    const root = await actor(app, "SUPERADMIN", "root");
    const admin = await actor(app, "ADMIN", "adm");
    await actor(app, "USER", "usr");
    await actor(app, "SUPERADMIN", "other-root");
    await actor(app, "ADMIN", "other-adm");
    const names = async (headers: Record<string, string>, query = "") =>
      (await app.json("GET", `/api/users${query}`, undefined, headers)).body.map((
        u: { username: string },
      ) => u.username);
    const all = ["root", "adm", "usr", "other-root", "other-adm"];
    assert.deepEqual(await names(root.headers), all);
    assert.deepEqual(await names(root.headers, "?noincl=true"), all.filter((n) => n !== "root"));
    assert.deepEqual(await names(admin.headers), all);
    assert.deepEqual(await names(admin.headers, "?noincl=true"), all.filter((n) => n !== "adm"));
  },
);

apiTest("conformance: detail shows any user; an unknown id is 404 `Not Found`", async (app) => {
  const admin = await actor(app, "ADMIN");
  const user = await actor(app, "USER");
  const other = await actor(app, "SUPERADMIN");
  const res = await app.json("GET", `/api/users/${user.user.id}`, undefined, admin.headers);
  assert.equal(res.status, 200);
  assert.equal(res.body.updatedAt, user.user.updatedAt.toISOString());
  assert.deepEqual(res.body.view, { enabled: false, embedColor: null });
  const above = await app.json("GET", `/api/users/${other.user.id}`, undefined, admin.headers);
  assert.equal(above.status, 200, "seen, though not managed");
  assert.equal(above.body.username, other.user.username);
  for (
    const [method, body] of [["GET"], ["PATCH", { username: "x" }], ["DELETE", {}]] as const
  ) {
    const nf = await app.json(method, "/api/users/missing", body, admin.headers);
    assert.deepEqual(nf.body, { error: "Not Found", statusCode: 404 }, method);
  }
  const changed = await app.json(
    "PATCH",
    `/api/users/${other.user.id}`,
    { username: "x" },
    admin.headers,
  );
  assert.deepEqual(changed.body, { error: "You cannot modify this user", statusCode: 403 });
});

apiTest(
  "security #4: an admin's password reset ends the user's sessions and token",
  async (app) => {
    const admin = await actor(app, "ADMIN");
    const bob = await actor(app, "USER", "bob");
    const login = (password: string) =>
      app.json("POST", "/api/auth/login", { username: "bob", password });
    const cookie = sessionCookie((await login("password")).headers);
    assert.equal((await app.json("GET", "/api/user", undefined, { cookie })).status, 200);

    const res = await app.json(
      "PATCH",
      `/api/users/${bob.user.id}`,
      { password: "reset-password" },
      admin.headers,
    );
    assert.equal(res.status, 200);
    const session = await app.json("GET", "/api/user", undefined, { cookie });
    assert.deepEqual(session.body, { error: "not logged in", statusCode: 401 });
    const token = await app.json("GET", "/api/user", undefined, bob.headers);
    assert.deepEqual(token.body, { error: "invalid authorization token", statusCode: 401 });
    const fresh = sessionCookie((await login("reset-password")).headers);
    const newToken = (await app.json("GET", "/api/user/token", undefined, { cookie: fresh })).body;
    const me = await app.json("GET", "/api/user", undefined, { authorization: newToken.token });
    assert.equal(me.body.user.username, "bob");

    const renamed = await app.json(
      "PATCH",
      `/api/users/${bob.user.id}`,
      { username: "robert" },
      admin.headers,
    );
    assert.equal(renamed.status, 200);
    assert.equal((await app.json("GET", "/api/user", undefined, { cookie: fresh })).status, 200);
  },
);

apiTest("quotas: BY_BYTES needs maxBytes, BY_FILES needs maxFiles, NONE clears", async (app) => {
  const admin = await actor(app, "ADMIN");
  const user = await actor(app, "USER");
  const patch = (quota: unknown) =>
    app.json("PATCH", `/api/users/${user.user.id}`, { quota }, admin.headers);

  let res = await patch({ filesType: "BY_BYTES" });
  assert.equal(res.status, 400);
  assert.deepEqual(res.body, { error: "maxBytes is required", statusCode: 400 });
  assert.equal((await app.services.store.users.get(user.user.id))!.quota, null);

  res = await patch({ filesType: "BY_BYTES", maxBytes: "0b" });
  assert.equal(res.status, 400);

  res = await patch({ filesType: "BY_BYTES", maxBytes: "50gb", maxUrls: 10 });
  assert.equal(res.status, 200);
  assert.equal(res.body.quota.filesQuota, "BY_BYTES");
  assert.equal(res.body.quota.maxBytes, "50gb");
  assert.equal(res.body.quota.maxFiles, null);
  assert.equal(res.body.quota.maxUrls, 10);
  const id = res.body.quota.id;

  res = await patch({ filesType: "BY_FILES" });
  assert.equal(res.status, 400);
  assert.deepEqual(res.body, { error: "maxFiles is required", statusCode: 400 });

  res = await patch({ filesType: "BY_FILES", maxFiles: 100 });
  assert.deepEqual(res.body.quota, {
    id,
    filesQuota: "BY_FILES",
    maxBytes: null,
    maxFiles: 100,
    maxUrls: 10,
  });

  res = await patch({ filesType: "NONE" });
  assert.deepEqual(res.body.quota, {
    id,
    filesQuota: "NONE",
    maxBytes: null,
    maxFiles: null,
    maxUrls: 10,
  });

  res = await patch({ filesType: "WHATEVER" });
  assert.equal(res.status, 400);
  assert.deepEqual(res.body.issues[0].path, ["quota", "filesType"]);

  const detail = await app.json("GET", `/api/users/${user.user.id}`, undefined, admin.headers);
  assert.equal(detail.body.quota.filesQuota, "NONE");
});

apiTest("avatars: image data URIs and URLs, nothing else", async (app) => {
  const root = await actor(app, "SUPERADMIN");
  const png = "data:image/png;base64,iVBORw0KGgo=";
  const ok = await app.json("POST", "/api/users", {
    username: "pic",
    password: "password1",
    avatar: png,
  }, root.headers);
  assert.equal(ok.status, 200);
  assert.equal(ok.body.avatar, png);
  for (const avatar of ["data:image/svg+xml;base64,PHN2Zz4=", "javascript:alert(1)", "nope"]) {
    const res = await app.json("POST", "/api/users", {
      username: "bad",
      password: "password1",
      avatar,
    }, root.headers);
    assert.equal(res.status, 400, avatar);
  }
  const huge = await app.json("PATCH", `/api/users/${ok.body.id}`, {
    avatar: "data:image/png;base64," + "A".repeat(600 * 1024),
  }, root.headers);
  assert.equal(huge.status, 400);
  assert.equal((await app.services.store.users.get(ok.body.id))!.avatar, png);
});

apiTest("a user created without an avatar gets websiteDefaultAvatar's image", async (app) => {
  const root = await actor(app, "SUPERADMIN");
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/default.png`;
    await Deno.writeFile(path, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
    await app.services.store.settings.update({ websiteDefaultAvatar: path });
    await app.services.settings.reload();
    const res = await app.json(
      "POST",
      "/api/users",
      { username: "d", password: "password1" },
      root.headers,
    );
    assert.equal(res.status, 200);
    assert.equal(res.body.avatar, "data:image/png;base64,iVBORwECAw==");
    const own = await app.json("POST", "/api/users", {
      username: "e",
      password: "password1",
      avatar: "https://example.org/e.png",
    }, root.headers);
    assert.equal(own.body.avatar, "https://example.org/e.png");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

apiTest(
  "usage: every user's files, bytes and URLs for an administrator; 403 for a USER",
  async (app) => {
    const admin = await actor(app, "ADMIN");
    const user = await actor(app, "USER");
    await uploadOne(app, user.headers, "twelve bytes", "notes.txt");
    const short = await app.json(
      "POST",
      "/api/user/urls",
      { destination: "https://example.com" },
      user.headers,
    );
    assert.equal(short.status, 200);
    const res = await app.json("GET", "/api/users/usage", undefined, admin.headers);
    assert.equal(res.status, 200);
    const usage = res.body as { id: string; files: number; storage: number; urls: number }[];
    assert.deepEqual(usage.find((u) => u.id === user.user.id), {
      id: user.user.id,
      files: 1,
      storage: 12,
      urls: 1,
    });
    assert.deepEqual(usage.find((u) => u.id === admin.user.id), {
      id: admin.user.id,
      files: 0,
      storage: 0,
      urls: 0,
    });
    const refused = await app.json("GET", "/api/users/usage", undefined, user.headers);
    assert.equal(refused.status, 403);
  },
);
