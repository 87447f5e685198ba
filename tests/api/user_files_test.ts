/**
 * The user's files (`/api/user/files…`): list with pagination, sorting,
 * search and filters; get, change (with a storage rename), delete; the bulk
 * routes; who may see whose files; and what deleting a user does to them.
 */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadFiles, uploadOne } from "../helpers/files.ts";
import { type Actor, actor } from "../helpers/users.ts";

async function seed(app: TestApp, who: Actor) {
  const names: string[] = [];
  for (
    const [file, type, content] of [
      ["cat.png", "image/png", "1"],
      ["notes.txt", "text/plain", "22"],
      ["song.mp3", "audio/mpeg", "333"],
      ["data.zip", "application/zip", "4444"],
      ["Cat Video.mp4", "video/mp4", "55555"],
    ]
  ) {
    app.clock.advance(1000);
    const res = await uploadFiles(app, [{ name: file, content, type }], {
      ...who.headers,
      "x-service-original-name": "true",
    });
    names.push(res.body.files[0].name);
  }
  return names;
}

apiTest("list: pages, sorting, search and filters", async (app) => {
  const a = await actor(app, "USER");
  const names = await seed(app, a);
  const list = async (query: string) => {
    const res = await app.json("GET", `/api/user/files?${query}`, undefined, a.headers);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  const first = await list("page=1&perpage=2");
  assert.equal(first.total, 5);
  assert.equal(first.pages, 3);
  assert.deepEqual(first.page.map((f: { name: string }) => f.name), [names[4], names[3]]);
  assert.equal(first.page[0].url, `/u/${names[4]}`);
  assert.equal(first.page[0].password, false);
  const last = await list("page=3&perpage=2");
  assert.deepEqual(last.page.map((f: { name: string }) => f.name), [names[0]]);
  assert.deepEqual((await list("page=9&perpage=2")).page, []);
  assert.equal((await list("page=9&perpage=2")).total, 5);

  const bySize = await list("page=1&sortBy=size&order=asc");
  assert.deepEqual(bySize.page.map((f: { size: number }) => f.size), [1, 2, 3, 4, 5]);
  const byOriginal = await list("page=1&sortBy=originalName&order=asc");
  assert.deepEqual(
    byOriginal.page.map((f: { originalName: string }) => f.originalName),
    ["Cat Video.mp4", "cat.png", "data.zip", "notes.txt", "song.mp3"],
  );
  const search = await list("page=1&searchField=originalName&searchQuery=CAT");
  assert.deepEqual(search.search, { field: "originalName", query: "CAT" });
  assert.equal(search.total, 2);
  const byType = await list("page=1&searchField=type&searchQuery=video");
  assert.deepEqual(byType.page.map((f: { type: string }) => f.type), ["video/mp4"]);
  const dashboard = await list("page=1&filter=dashboard");
  assert.equal(dashboard.total, 4, "the zip is not a dashboard type");

  const ids = (await app.services.store.files.listByUser(a.user.id)).map((f) => f.id);
  const fav = await app.json("PATCH", "/api/user/files/transaction", {
    files: [ids[1], ids[2], "unknown"],
    favorite: true,
  }, a.headers);
  assert.deepEqual(fav.body, { count: 2 });
  assert.equal((await list("page=1&favorite=true")).total, 2);
  assert.equal((await list("page=1&favorite=false")).total, 3);
  assert.equal((await list("page=1&favorite=true&filter=all")).total, 5);

  const missingPage = await app.json("GET", "/api/user/files", undefined, a.headers);
  assert.equal(missingPage.status, 400);
});

apiTest("get, patch and delete by id or name; rename moves the bytes", async (app) => {
  const a = await actor(app, "USER");
  const file = await uploadOne(app, a.headers);
  const byName = await app.json("GET", `/api/user/files/${file.name}`, undefined, a.headers);
  assert.equal(byName.status, 200);
  assert.equal(byName.body.id, file.id);

  const patched = await app.json("PATCH", `/api/user/files/${file.id}`, {
    favorite: true,
    maxViews: 5,
    password: "pw",
    originalName: "report.txt",
    type: "text/markdown",
    name: "renamed.md",
  }, a.headers);
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.equal(patched.body.name, "renamed.md");
  assert.equal(patched.body.favorite, true);
  assert.equal(patched.body.maxViews, 5);
  assert.equal(patched.body.password, true);
  assert.equal(patched.body.originalName, "report.txt");
  assert.equal(patched.body.type, "text/markdown");
  assert.deepEqual(await app.storedObjects(), ["renamed.md"]);
  const served = await app.request("/raw/renamed.md?pw=pw");
  assert.equal(await served.text(), "hello ferry");
  assert.equal((await app.json("GET", `/raw/${file.name}`)).status, 404);

  const cleared = await app.json("PATCH", `/api/user/files/${file.id}`, {
    password: "",
    maxViews: 0,
  }, a.headers);
  assert.equal(cleared.body.password, false);
  assert.equal(cleared.body.maxViews, null);

  const other = await uploadOne(app, a.headers);
  const taken = await app.json(
    "PATCH",
    `/api/user/files/${other.id}`,
    { name: "renamed.md" },
    a.headers,
  );
  assert.deepEqual(taken.body, { error: "File with this name already exists", statusCode: 400 });
  const invalid = await app.json(
    "PATCH",
    `/api/user/files/${other.id}`,
    { name: "a/b" },
    a.headers,
  );
  assert.equal(invalid.status, 400);

  const removed = await app.json("DELETE", "/api/user/files/renamed.md", undefined, a.headers);
  assert.equal(removed.status, 200);
  assert.equal(removed.body.id, file.id);
  assert.deepEqual(await app.storedObjects(), [other.name]);
  assert.equal(
    (await app.json("GET", `/api/user/files/${file.id}`, undefined, a.headers)).status,
    404,
  );
});

apiTest("bulk delete: records always, bytes only when asked", async (app) => {
  const a = await actor(app, "USER");
  const [x, y, z] = [
    await uploadOne(app, a.headers),
    await uploadOne(app, a.headers),
    await uploadOne(app, a.headers),
  ];
  const keep = await app.json(
    "DELETE",
    "/api/user/files/transaction",
    { files: [x.id] },
    a.headers,
  );
  assert.deepEqual(keep.body, { count: 1 });
  assert.ok((await app.storedObjects()).includes(x.name), "bytes kept for a re-import");
  const gone = await app.json("DELETE", "/api/user/files/transaction", {
    files: [y.id, z.id, x.id],
    delete_datasourceFiles: true,
  }, a.headers);
  assert.deepEqual(gone.body, { count: 2 });
  assert.deepEqual(await app.storedObjects(), [x.name]);
  assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes: 0, files: 0 });
});

apiTest("visibility: others' files are 404; admins reach those they manage", async (app) => {
  const alice = await actor(app, "USER");
  const bob = await actor(app, "USER");
  const admin = await actor(app, "ADMIN");
  const root = await actor(app, "SUPERADMIN");
  const file = await uploadOne(app, alice.headers);
  const adminFile = await uploadOne(app, admin.headers);

  for (
    const [method, body] of [["GET", undefined], ["PATCH", { favorite: true }], [
      "DELETE",
      undefined,
    ]]
  ) {
    const res = await app.json(method as string, `/api/user/files/${file.id}`, body, bob.headers);
    assert.deepEqual(res.body, { error: "Not Found", statusCode: 404 }, `${method}`);
  }
  const listed = await app.json(
    "GET",
    `/api/user/files?page=1&id=${alice.user.id}`,
    undefined,
    bob.headers,
  );
  assert.equal(listed.status, 404);
  const bulk = await app.json("PATCH", "/api/user/files/transaction", {
    files: [file.id],
    favorite: true,
  }, bob.headers);
  assert.deepEqual(bulk.body, { count: 0 });

  assert.equal(
    (await app.json("GET", `/api/user/files/${file.id}`, undefined, admin.headers)).status,
    200,
  );
  const asAdmin = await app.json(
    "GET",
    `/api/user/files?page=1&id=${alice.user.id}`,
    undefined,
    admin.headers,
  );
  assert.equal(asAdmin.body.total, 1);
  assert.equal(
    (await app.json("GET", `/api/user/files/${adminFile.id}`, undefined, alice.headers)).status,
    404,
  );
  const peer = await actor(app, "ADMIN");
  assert.equal(
    (await app.json("GET", `/api/user/files/${adminFile.id}`, undefined, peer.headers)).status,
    404,
  );
  assert.equal(
    (await app.json("GET", `/api/user/files/${adminFile.id}`, undefined, root.headers)).status,
    200,
  );
});

apiTest(
  "deleting a user keeps its files orphaned, or deletes them with delete: true",
  async (app) => {
    const root = await actor(app, "SUPERADMIN");
    const keeper = await actor(app, "USER");
    const leaver = await actor(app, "USER");
    const kept = await uploadOne(app, keeper.headers);
    const gone = await uploadOne(app, leaver.headers);

    assert.equal(
      (await app.json("DELETE", `/api/users/${keeper.user.id}`, { delete: false }, root.headers))
        .status,
      200,
    );
    const orphan = await app.services.store.files.get(kept.id);
    assert.equal(orphan?.userId, null);
    assert.equal(await (await app.request(`/raw/${kept.name}`)).text(), "hello ferry");
    assert.equal(
      (await app.json("GET", `/api/user/files/${kept.id}`, undefined, root.headers)).status,
      200,
    );

    assert.equal(
      (await app.json("DELETE", `/api/users/${leaver.user.id}`, { delete: true }, root.headers))
        .status,
      200,
    );
    assert.equal(await app.services.store.files.get(gone.id), null);
    assert.deepEqual(await app.storedObjects(), [kept.name]);
  },
);
