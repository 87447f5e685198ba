/**
 * Public serving finds files through the store's one-second name cache
 * (`db/cached_files.ts`): every change made through this instance is honoured
 * on the very next request, on both stores. Each test first serves the file,
 * so that its record is in the cache, then changes it and asks again.
 */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadOne } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";

/** GETs `path` (as viewer `ua`) and returns the status and the body's text. */
async function get(app: TestApp, path: string, init: RequestInit = {}, ua = "viewer") {
  const res = await app.request(path, {
    ...init,
    headers: { "user-agent": ua, ...init.headers as Record<string, string> },
  });
  return { status: res.status, text: await res.text() };
}

/** Serves `name` twice from `/raw` and from the files route, so that its record is cached. */
async function warm(app: TestApp, name: string) {
  for (const path of [`/raw/${name}`, `/raw/${name}`, `/u/${name}`]) {
    const res = await get(app, path);
    assert.equal(res.status, 200, path);
  }
}

apiTest("serve cache: a deleted file is a 404 on the next request", async (app) => {
  const a = await actor(app, "USER");
  const file = await uploadOne(app, a.headers, "bytes", "doc.bin", "application/pdf");
  await warm(app, file.name);
  const del = await app.json("DELETE", `/api/user/files/${file.id}`, undefined, a.headers);
  assert.equal(del.status, 200);
  for (const path of [`/raw/${file.name}`, `/u/${file.name}`]) {
    assert.deepEqual((await app.json("GET", path)).body, { error: "Not Found", statusCode: 404 });
  }
  const head = await app.request(`/raw/${file.name}`, { method: "HEAD" });
  assert.equal(head.status, 404);
});

apiTest("serve cache: a deleted file stays a 404 even while its bytes remain", async (app) => {
  const a = await actor(app, "USER");
  const file = await uploadOne(app, a.headers, "bytes", "doc.bin", "application/pdf");
  await warm(app, file.name);
  const del = await app.json("DELETE", "/api/user/files/transaction", {
    files: [file.id],
    delete_datasourceFiles: false,
  }, a.headers);
  assert.deepEqual(del.body, { count: 1 });
  assert.equal((await get(app, `/raw/${file.name}`)).status, 404);
});

apiTest("serve cache: a password set on a served file is asked for at once", async (app) => {
  const a = await actor(app, "USER");
  const file = await uploadOne(app, a.headers, "secret", "doc.bin", "application/pdf");
  await warm(app, file.name);
  const set = await app.json("PATCH", `/api/user/files/${file.id}`, { password: "hunter2" }, {
    ...a.headers,
  });
  assert.equal(set.status, 200);
  assert.deepEqual((await app.json("GET", `/raw/${file.name}`)).body, {
    error: "Password protected",
    statusCode: 403,
  });
  const page = await app.request(`/u/${file.name}`);
  assert.equal(page.status, 302);
  assert.equal(page.headers.get("location"), `/view/${file.name}`);
  const opened = await get(app, `/raw/${file.name}?pw=hunter2`);
  assert.deepEqual(opened, { status: 200, text: "secret" });

  const changed = await app.json("PATCH", `/api/user/files/${file.id}`, { password: "other" }, {
    ...a.headers,
  });
  assert.equal(changed.status, 200);
  assert.deepEqual((await app.json("GET", `/raw/${file.name}?pw=hunter2`)).body, {
    error: "Incorrect password",
    statusCode: 403,
  });
  assert.deepEqual(await get(app, `/raw/${file.name}?pw=other`), { status: 200, text: "secret" });

  const removed = await app.json("PATCH", `/api/user/files/${file.id}`, { password: null }, {
    ...a.headers,
  });
  assert.equal(removed.status, 200);
  assert.deepEqual(await get(app, `/raw/${file.name}`), { status: 200, text: "secret" });
});

apiTest("serve cache: max views are exact on a served file", async (app) => {
  const a = await actor(app, "USER");
  const file = await uploadOne(app, a.headers, "count me", "doc.bin", "application/pdf");
  await warm(app, file.name);
  const set = await app.json("PATCH", `/api/user/files/${file.id}`, { maxViews: 2 }, a.headers);
  assert.equal(set.status, 200);
  // The warm-up counted one view: one more is allowed, to one more viewer.
  assert.equal((await get(app, `/raw/${file.name}`, {}, "second")).status, 200);
  assert.equal((await get(app, `/raw/${file.name}`, {}, "third")).status, 404);
  assert.equal(await app.services.store.files.get(file.id), null, "deleted at its max views");

  await app.services.store.settings.update({ featuresDeleteOnMaxViews: false });
  await app.services.settings.reload();
  const kept = await uploadOne(app, a.headers, "count me", "kept.bin", "application/pdf");
  await warm(app, kept.name);
  await app.json("PATCH", `/api/user/files/${kept.id}`, { maxViews: 1 }, a.headers);
  for (
    const init of [{}, { method: "HEAD" }, { headers: { range: "bytes=2-4" } }] as RequestInit[]
  ) {
    const res = await get(app, `/raw/${kept.name}`, init, "another");
    assert.equal(res.status, 404, JSON.stringify(init));
  }
  assert.equal((await app.services.store.files.get(kept.id))?.views, 1);
});

apiTest("serve cache: a renamed file answers under its new name only", async (app) => {
  const a = await actor(app, "USER");
  const file = await uploadOne(app, a.headers, "moved", "doc.bin", "application/pdf");
  await warm(app, file.name);
  const renamed = await app.json("PATCH", `/api/user/files/${file.id}`, { name: "moved.bin" }, {
    ...a.headers,
  });
  assert.equal(renamed.status, 200);
  assert.equal((await get(app, `/raw/${file.name}`)).status, 404);
  assert.deepEqual(await get(app, "/raw/moved.bin"), { status: 200, text: "moved" });
});

apiTest(
  "serve: a small file is sent in one piece with its headers, a range of it too",
  async (app) => {
    const a = await actor(app, "USER");
    const file = await uploadOne(app, a.headers, "0123456789", "digits.txt", "text/plain");
    const whole = await app.request(`/raw/${file.name}`);
    assert.equal(whole.status, 200);
    assert.equal(whole.headers.get("content-length"), "10");
    assert.equal(whole.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.equal(await whole.text(), "0123456789");
    const part = await app.request(`/raw/${file.name}`, { headers: { range: "bytes=3-5" } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get("content-range"), "bytes 3-5/10");
    assert.equal(await part.text(), "345");
    const download = await app.request(`/raw/${file.name}?download`);
    assert.match(download.headers.get("content-disposition")!, /^attachment; /);
    await download.body?.cancel();
    const again = await app.request(`/raw/${file.name}`);
    assert.match(again.headers.get("content-disposition")!, /^inline; /, "headers kept apart");
    await again.body?.cancel();
  },
);
