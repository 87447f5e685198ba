/** Folders (`/api/user/folders`, `/api/server/folder`), moving files, and anonymous uploads. */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadFiles, uploadOne } from "../helpers/files.ts";
import { type Actor, actor } from "../helpers/users.ts";
import { fileRecord } from "../helpers/stores.ts";

/** Creates a folder through the API and returns its id. */
async function folder(app: TestApp, who: Actor, name: string, extra: object = {}) {
  const res = await app.json("POST", "/api/user/folders", { name, ...extra }, who.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
}

/** The file as its owner sees it (`null` when gone). */
async function fileOf(app: TestApp, who: Actor, id: string) {
  const res = await app.json("GET", `/api/user/files/${id}`, undefined, who.headers);
  return res.status === 200 ? res.body : null;
}

apiTest("folders: create, list and get; names unique per user; parents", async (app) => {
  const a = await actor(app, "USER");
  const b = await actor(app, "USER");
  const created = await app.json("POST", "/api/user/folders", { name: " docs " }, a.headers);
  assert.equal(created.status, 200);
  assert.equal(created.body.name, "docs");
  assert.equal(created.body.public, false);
  assert.equal(created.body.allowUploads, false);
  assert.equal(created.body.parentId, null);
  assert.equal(created.body.userId, a.user.id);
  assert.deepEqual(created.body._count, { children: 0, files: 0 });
  const docs = created.body.id;

  const again = await app.json("POST", "/api/user/folders", { name: "docs" }, a.headers);
  assert.deepEqual(again.body, {
    error: "A folder with this name already exists",
    statusCode: 400,
  });
  const bDocs = await folder(app, b, "docs");

  app.clock.advance(1000);
  const sub = await app.json("POST", "/api/user/folders", {
    name: "sub",
    parentId: docs,
    isPublic: true,
  }, a.headers);
  assert.equal(sub.status, 200);
  assert.deepEqual(sub.body.parent, { id: docs, name: "docs", parentId: null });
  assert.equal(sub.body.public, true);
  const foreign = await app.json("POST", "/api/user/folders", {
    name: "x",
    parentId: bDocs,
  }, a.headers);
  assert.deepEqual(foreign.body, {
    error: "Parent folder does not belong to you",
    statusCode: 403,
  });
  const unknown = await app.json("POST", "/api/user/folders", {
    name: "x",
    parentId: "nope",
  }, a.headers);
  assert.deepEqual(unknown.body, { error: "Parent folder not found", statusCode: 404 });

  const list = await app.json("GET", "/api/user/folders", undefined, a.headers);
  assert.deepEqual(list.body.map((f: { name: string }) => f.name), ["sub", "docs"]);
  assert.deepEqual(list.body[1]._count, { children: 1, files: 0 });
  assert.deepEqual(list.body[1].files, []);
  const root = await app.json(
    "GET",
    "/api/user/folders?root=true&noincl=true",
    undefined,
    a.headers,
  );
  assert.deepEqual(root.body.map((f: { name: string }) => f.name), ["docs"]);
  assert.equal("files" in root.body[0], false);
  const children = await app.json(
    "GET",
    `/api/user/folders?parentId=${docs}`,
    undefined,
    a.headers,
  );
  assert.deepEqual(children.body.map((f: { id: string }) => f.id), [sub.body.id]);

  const one = await app.json("GET", `/api/user/folders/${sub.body.id}`, undefined, a.headers);
  assert.equal(one.status, 200);
  assert.deepEqual(one.body.parent, { id: docs, name: "docs", parentId: null, parent: null });
  assert.deepEqual(one.body.children, []);
  const top = await app.json("GET", `/api/user/folders/${docs}`, undefined, a.headers);
  assert.deepEqual(top.body.children.map((f: { id: string }) => f.id), [sub.body.id]);
  const hidden = await app.json("GET", `/api/user/folders/${docs}`, undefined, b.headers);
  assert.deepEqual(hidden.body, { error: "Not Found", statusCode: 404 });

  const admin = await actor(app, "ADMIN");
  const managed = await app.json(
    "GET",
    `/api/user/folders?user=${a.user.id}`,
    undefined,
    admin.headers,
  );
  assert.equal(managed.body.length, 2);
  const peer = await app.json("GET", `/api/user/folders?user=${a.user.id}`, undefined, b.headers);
  assert.equal(peer.status, 404);
});

apiTest("folders: rename, open, move; no folder below itself", async (app) => {
  const a = await actor(app, "USER");
  const docs = await folder(app, a, "docs");
  const sub = await folder(app, a, "sub", { parentId: docs });
  const deep = await folder(app, a, "deep", { parentId: sub });
  const patch = (id: string, body: object) =>
    app.json("PATCH", `/api/user/folders/${id}`, body, a.headers);

  assert.deepEqual((await patch(docs, { parentId: deep })).body, {
    error: "Cannot move folder into one of its descendants",
    statusCode: 400,
  });
  assert.deepEqual((await patch(docs, { parentId: docs })).body, {
    error: "A folder cannot be its own parent",
    statusCode: 400,
  });
  assert.deepEqual((await patch(sub, { name: "docs" })).body, {
    error: "A folder with this name already exists",
    statusCode: 400,
  });
  const after = await app.json("GET", `/api/user/folders/${docs}`, undefined, a.headers);
  assert.equal(after.body.parentId, null);
  assert.equal(after.body.name, "docs");

  const moved = await patch(deep, { parentId: null, name: "top", allowUploads: true });
  assert.equal(moved.status, 200);
  assert.equal(moved.body.parentId, null);
  assert.equal(moved.body.allowUploads, true);
  const seen = await app.json("GET", `/api/user/folders/${sub}`, undefined, a.headers);
  assert.deepEqual(seen.body._count, { children: 0, files: 0 });
  const back = await patch(docs, { parentId: deep });
  assert.equal(back.status, 200);
  const chain = await app.json("GET", `/api/user/folders/${sub}`, undefined, a.headers);
  assert.deepEqual(chain.body.parent, {
    id: docs,
    name: "docs",
    parentId: deep,
    parent: { id: deep, name: "top", parentId: null, parent: null },
  });
});

apiTest("folders: files in and out, the transaction move and the list filter", async (app) => {
  const a = await actor(app, "USER");
  const b = await actor(app, "USER");
  const docs = await folder(app, a, "docs");
  const [f1, f2, f3] = [
    await uploadOne(app, a.headers),
    await uploadOne(app, a.headers),
    await uploadOne(app, a.headers),
  ];
  const bFile = await uploadOne(app, b.headers);

  const move = await app.json("PATCH", "/api/user/files/transaction", {
    files: [f1.id, f2.id, bFile.id],
    folder: docs,
  }, a.headers);
  assert.deepEqual(move.body, { count: 2, name: "docs" });
  const listed = await app.json(
    "GET",
    `/api/user/files?page=1&folder=${docs}`,
    undefined,
    a.headers,
  );
  assert.deepEqual(listed.body.page.map((f: { id: string }) => f.id).sort(), [f1.id, f2.id].sort());
  assert.equal((await fileOf(app, b, bFile.id)).folderId, null);
  const foreign = await app.json("PATCH", "/api/user/files/transaction", {
    files: [bFile.id],
    folder: docs,
  }, b.headers);
  assert.deepEqual(foreign.body, { error: "Folder not found", statusCode: 404 });
  const none = await app.json(
    "PATCH",
    "/api/user/files/transaction",
    { files: [f1.id] },
    a.headers,
  );
  assert.deepEqual(none.body, { error: "Cannot PATCH without an action", statusCode: 400 });
  const unknown = await app.json("GET", "/api/user/files?page=1&folder=nope", undefined, a.headers);
  assert.equal(unknown.status, 404);
  const peer = await app.json("GET", `/api/user/files?page=1&folder=${docs}`, undefined, b.headers);
  assert.equal(peer.status, 404);

  const put = await app.json("PUT", `/api/user/folders/${docs}`, { id: f3.id }, a.headers);
  assert.equal(put.status, 200);
  assert.equal(put.body._count.files, 3);
  assert.equal(put.body.files.length, 3);
  const twice = await app.json("PUT", `/api/user/folders/${docs}`, { id: f3.id }, a.headers);
  assert.deepEqual(twice.body, { error: "File already in folder", statusCode: 400 });
  const notOwn = await app.json("PUT", `/api/user/folders/${docs}`, { id: bFile.id }, a.headers);
  assert.deepEqual(notOwn.body, { error: "File not found", statusCode: 404 });

  const out = await app.json("DELETE", `/api/user/folders/${docs}`, {
    delete: "file",
    id: f3.id,
  }, a.headers);
  assert.equal(out.status, 200);
  assert.equal(out.body.folder._count.files, 2);
  assert.equal((await fileOf(app, a, f3.id)).folderId, null);
  const noId = await app.json("DELETE", `/api/user/folders/${docs}`, { delete: "file" }, a.headers);
  assert.deepEqual(noId.body, { error: "File ID is required", statusCode: 400 });

  const holding = await app.json("POST", "/api/user/folders", {
    name: "holding",
    files: [f3.id],
  }, a.headers);
  assert.equal(holding.body._count.files, 1);
  assert.equal((await fileOf(app, a, f3.id)).folderId, holding.body.id);
  const nothing = await app.json("POST", "/api/user/folders", {
    name: "empty",
    files: [bFile.id],
  }, a.headers);
  assert.deepEqual(nothing.body, {
    error: "No files found for the given request",
    statusCode: 400,
  });
});

apiTest("folders: deleting a folder keeps its files unless cascade-files", async (app) => {
  const a = await actor(app, "USER");
  const b = await actor(app, "USER");
  const del = (id: string, body: object) =>
    app.json("DELETE", `/api/user/folders/${id}`, { delete: "folder", ...body }, a.headers);
  const inFolder = async (id: string) => {
    const file = await uploadOne(app, { ...a.headers, "x-service-folder": id });
    return file.id;
  };
  const getFolder = (id: string) =>
    app.json("GET", `/api/user/folders/${id}`, undefined, a.headers);

  // root (the default): subfolders and files go to the root.
  const top = await folder(app, a, "top");
  const mid = await folder(app, a, "mid", { parentId: top });
  const fTop = await inFolder(top);
  assert.deepEqual((await del(top, {})).body, { success: true });
  assert.equal((await getFolder(top)).status, 404);
  assert.equal((await getFolder(mid)).body.parentId, null);
  assert.equal((await fileOf(app, a, fTop)).folderId, null);

  // folder: into the target.
  const target = await folder(app, a, "target");
  const low = await folder(app, a, "low", { parentId: mid });
  const fMid = await inFolder(mid);
  const bFolder = await folder(app, b, "theirs");
  assert.deepEqual((await del(mid, { childrenAction: "folder", targetFolderId: bFolder })).body, {
    error: "Target folder not found",
    statusCode: 404,
  });
  assert.deepEqual((await del(mid, { childrenAction: "folder", targetFolderId: low })).body, {
    error: "Cannot move folder into one of its descendants",
    statusCode: 400,
  });
  assert.equal((await del(mid, { childrenAction: "folder" })).status, 400);
  assert.equal((await fileOf(app, a, fMid)).folderId, mid);
  assert.deepEqual((await del(mid, { childrenAction: "folder", targetFolderId: target })).body, {
    success: true,
  });
  assert.equal((await getFolder(low)).body.parentId, target);
  assert.equal((await fileOf(app, a, fMid)).folderId, target);

  // cascade: the whole tree goes, its files stay, at the root.
  const fLow = await inFolder(low);
  assert.deepEqual((await del(target, { childrenAction: "cascade" })).body, { success: true });
  assert.equal((await getFolder(low)).status, 404);
  assert.equal((await fileOf(app, a, fLow)).folderId, null);
  assert.equal((await fileOf(app, a, fMid)).folderId, null);

  // cascade-files: the tree and its files go, records and bytes.
  const x = await folder(app, a, "x");
  const y = await folder(app, a, "y", { parentId: x });
  const fx = await inFolder(x);
  const fy = await inFolder(y);
  const names = [(await fileOf(app, a, fx)).name, (await fileOf(app, a, fy)).name];
  assert.deepEqual((await del(x, { childrenAction: "cascade-files" })).body, { success: true });
  assert.equal(await fileOf(app, a, fx), null);
  assert.equal(await fileOf(app, a, fy), null);
  const stored = await app.storedObjects();
  assert.ok(names.every((n) => !stored.includes(n)));
  assert.equal((await getFolder(y)).status, 404);
  assert.notEqual(await fileOf(app, a, fTop), null);

  assert.equal(
    (await app.json("DELETE", `/api/user/folders/${bFolder}`, {
      delete: "folder",
    }, a.headers)).status,
    404,
  );
});

apiTest(
  "folders: deleting a folder of more files than a page, one pending, moves every one",
  async (app) => {
    const a = await actor(app, "USER");
    const store = app.services.store;
    const big = await folder(app, a, "big");
    const patched = await app.json(
      "PATCH",
      `/api/user/folders/${big}`,
      { private: true },
      a.headers,
    );
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const records = Array.from({ length: 450 }, () => fileRecord(a.user.id, { folderId: big }));
    await store.files.createMany(records);
    const pending = fileRecord(a.user.id, { folderId: big, pending: true, size: 0 });
    await store.files.create(pending, { maxBytes: null, maxFiles: null });
    const elsewhere = await folder(app, a, "elsewhere");
    const other = await uploadOne(app, { ...a.headers, "x-service-folder": elsewhere });

    const gone = await app.json(
      "DELETE",
      `/api/user/folders/${big}`,
      { delete: "folder" },
      a.headers,
    );
    assert.deepEqual(gone.body, { success: true });
    const after = await store.files.getMany([...records, pending].map((f) => f.id));
    assert.equal(after.length, 451);
    assert.ok(after.every((f) => f.folderId === null && f.private), "at the root, still private");
    assert.equal((await fileOf(app, a, other.id)).folderId, elsewhere, "another folder's stays");
  },
);

apiTest("folders: anonymous uploads need a folder that allows them", async (app) => {
  const a = await actor(app, "USER");
  const b = await actor(app, "USER");
  const admin = await actor(app, "ADMIN");
  const drop = await folder(app, a, "drop");
  const file = [{ name: "a.txt", content: "x" }];

  const closed = await uploadFiles(app, file, { "x-service-folder": drop });
  assert.deepEqual(closed.body, { error: "folder is not open", statusCode: 403 });
  const missing = await uploadFiles(app, file, { "x-service-folder": "nope" });
  assert.deepEqual(missing.body, { error: "folder is not open", statusCode: 403 });
  const strangerClosed = await uploadFiles(app, file, { ...b.headers, "x-service-folder": drop });
  assert.equal(strangerClosed.status, 403);

  const own = await uploadFiles(app, file, { ...a.headers, "x-service-folder": drop });
  assert.equal(own.status, 200);
  const managed = await uploadFiles(app, file, { ...admin.headers, "x-service-folder": drop });
  assert.equal(managed.status, 200);
  const byAdmin = await fileOf(app, a, managed.body.files[0].id);
  assert.equal(byAdmin.anonymous, false);
  assert.equal(byAdmin.folderId, drop);

  await app.json("PATCH", `/api/user/folders/${drop}`, { allowUploads: true }, a.headers);
  const anon = await uploadFiles(app, file, { "x-service-folder": drop });
  assert.equal(anon.status, 200);
  const alias = await uploadFiles(app, file, { "x-zipline-folder": drop });
  assert.equal(alias.status, 200);
  const stranger = await uploadFiles(app, file, { ...b.headers, "x-service-folder": drop });
  assert.equal(stranger.status, 200);
  for (const reply of [anon, alias, stranger]) {
    const stored = await fileOf(app, a, reply.body.files[0].id);
    assert.equal(stored.anonymous, true);
    assert.equal(stored.folderId, drop);
  }
  const listed = await app.json(
    "GET",
    `/api/user/files?page=1&folder=${drop}`,
    undefined,
    a.headers,
  );
  assert.equal(listed.body.total, 5);
  const bList = await app.json("GET", "/api/user/files?page=1", undefined, b.headers);
  assert.equal(bList.body.total, 0);
});

apiTest("folders: the public view", async (app) => {
  const a = await actor(app, "USER");
  const drop = await folder(app, a, "drop");
  const get = (id: string, query = "") => app.json("GET", `/api/server/folder/${id}${query}`);
  assert.deepEqual((await get(drop)).body, { error: "Not Found", statusCode: 404 });

  await app.json("PATCH", `/api/user/folders/${drop}`, { allowUploads: true }, a.headers);
  await uploadOne(app, { "x-service-folder": drop });
  const uploadOnly = await get(drop, "?page=1");
  assert.deepEqual(uploadOnly.body, {
    folder: { id: drop, name: "drop", public: false, allowUploads: true },
    page: [],
    total: 0,
    pages: 0,
  });

  const child = await folder(app, a, "child", { parentId: drop, isPublic: true });
  await folder(app, a, "private", { parentId: drop });
  await app.json("PATCH", `/api/user/folders/${drop}`, { isPublic: true }, a.headers);
  const open = await get("drop");
  assert.equal(open.status, 200);
  assert.equal(open.body.folder.id, drop);
  assert.deepEqual(open.body.folder.children, [{ id: child, name: "child" }]);
  assert.equal(open.body.folder.parent, null);
  assert.equal(open.body.total, 1);
  assert.equal(open.body.page.length, 1);
  const sub = await get(child);
  assert.deepEqual(sub.body.folder.parent, {
    id: drop,
    name: "drop",
    parentId: null,
    parent: null,
  });
});

apiTest("folders and tags go with their user; the files stay, at the root", async (app) => {
  const admin = await actor(app, "ADMIN");
  const a = await actor(app, "USER");
  const docs = await folder(app, a, "docs");
  const file = await uploadOne(app, { ...a.headers, "x-service-folder": docs });
  const tag = await app.json("POST", "/api/user/tags", { name: "work", color: "#fff" }, a.headers);
  await app.json("PATCH", `/api/user/files/${file.id}`, { tags: [tag.body.id] }, a.headers);

  const gone = await app.json(
    "DELETE",
    `/api/users/${a.user.id}`,
    { delete: false },
    admin.headers,
  );
  assert.equal(gone.status, 200, JSON.stringify(gone.body));
  const store = app.services.store;
  assert.deepEqual(await store.folders.listByUser(a.user.id), []);
  assert.equal(await store.folders.get(docs), null);
  assert.deepEqual(await store.tags.listByUser(a.user.id), []);
  const kept = await store.files.get(file.id);
  assert.equal(kept?.userId, null);
  assert.equal(kept?.folderId, null);
  assert.deepEqual(await store.tags.tagsOfFiles([file.id]), new Map());
});

apiTest(
  "security #30.7: a folder that is not public is found by its id only, even when it takes uploads",
  async (app) => {
    const a = await actor(app, "USER");
    const b = await actor(app, "USER");
    const get = (idOrName: string) =>
      app.json("GET", `/api/server/folder/${encodeURIComponent(idOrName)}?page=1`);
    const notFound = { error: "Not Found", statusCode: 404 };
    const drop = await folder(app, a, "drop");
    await folder(app, a, "private");
    await app.json("PATCH", `/api/user/folders/${drop}`, { allowUploads: true }, a.headers);

    assert.deepEqual((await get("private")).body, notFound);
    assert.deepEqual((await get("drop")).body, notFound, "upload-only: not by its name");
    const byId = await get(drop);
    assert.equal(byId.status, 200, JSON.stringify(byId.body));
    assert.deepEqual(byId.body.folder, {
      id: drop,
      name: "drop",
      public: false,
      allowUploads: true,
    });
    // The anonymous upload page finds it by id and uploads into it.
    const sent = await uploadFiles(app, [{ name: "a.txt", content: "x" }], {
      "x-service-folder": drop,
    });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal((await fileOf(app, a, sent.body.files[0].id)).folderId, drop);
    // Its name opens nothing for an uploader either.
    const byName = await uploadFiles(app, [{ name: "a.txt", content: "x" }], {
      "x-service-folder": "drop",
    });
    assert.deepEqual(byName.body, { error: "folder is not open", statusCode: 403 });

    // A public folder is still found by name, and a name shared with an upload-only
    // folder of another user's finds the public one.
    const shared = await folder(app, b, "drop", { isPublic: true });
    const named = await get("drop");
    assert.equal(named.status, 200, JSON.stringify(named.body));
    assert.equal(named.body.folder.id, shared);
    await app.json("PATCH", `/api/user/folders/${drop}`, { isPublic: true }, a.headers);
    const either = await get("drop");
    assert.ok([drop, shared].includes(either.body.folder.id));
    // Made private again, it is gone by name, as is b's.
    await app.json("PATCH", `/api/user/folders/${drop}`, { isPublic: false }, a.headers);
    await app.json("PATCH", `/api/user/folders/${shared}`, { isPublic: false }, b.headers);
    assert.deepEqual((await get("drop")).body, notFound);
    assert.equal((await get(drop)).status, 200);
  },
);
