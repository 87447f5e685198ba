/**
 * `GET /api/user/files/{id}/raw`: the owner's (or a manager's) read of a
 * file's bytes, with `/raw`'s headers, ranges and validators, no view
 * counted, the password still needed, and expiry and max views enforced.
 */
import assert from "node:assert/strict";
import { apiTest } from "../helpers/app.ts";
import { uploadOne } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";

apiTest("owner raw: the bytes with /raw's headers and ranges, no view counted", async (app) => {
  const a = await actor(app, "USER");
  const file = await uploadOne(app, { ...a.headers, "x-service-original-name": "true" });
  const raw = (query = "", headers: Record<string, string> = {}) =>
    app.request(`/api/user/files/${file.id}/raw${query}`, {
      headers: { ...a.headers, ...headers },
    });

  const whole = await raw();
  assert.equal(whole.status, 200);
  assert.equal(whole.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(whole.headers.get("content-length"), "11");
  assert.equal(whole.headers.get("accept-ranges"), "bytes");
  assert.match(whole.headers.get("content-disposition")!, /^inline; filename="hello.txt"/);
  assert.equal(await whole.text(), "hello ferry");
  const publicRaw = await app.request(`/raw/${file.name}`);
  for (const header of ["etag", "last-modified", "content-type", "content-disposition"]) {
    assert.equal(whole.headers.get(header), publicRaw.headers.get(header), header);
  }
  await publicRaw.body?.cancel();

  const part = await raw("", { range: "bytes=-5" });
  assert.equal(part.status, 206);
  assert.equal(part.headers.get("content-range"), "bytes 6-10/11");
  assert.equal(await part.text(), "ferry");
  const past = await raw("", { range: "bytes=50-" });
  assert.equal(past.status, 416);
  assert.equal(past.headers.get("content-range"), "bytes */11");
  assert.equal(await past.text(), "");
  const cached = await raw("", { "if-none-match": whole.headers.get("etag")! });
  assert.equal(cached.status, 304);
  const download = await raw("?download=true");
  assert.match(download.headers.get("content-disposition")!, /^attachment;/);
  await download.body?.cancel();
  const byName = await app.request(`/api/user/files/${file.name}/raw`, { headers: a.headers });
  assert.equal(await byName.text(), "hello ferry");

  const bad = await app.json(
    "GET",
    `/api/user/files/${file.id}/raw?download=yes`,
    undefined,
    a.headers,
  );
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /^querystring\/download /);

  const record = await app.json("GET", `/api/user/files/${file.id}`, undefined, a.headers);
  assert.equal(record.body.views, 1, "only the public /raw counted");
});

apiTest("owner raw: only the owner and its managers; 401 without credentials", async (app) => {
  const a = await actor(app, "USER");
  const other = await actor(app, "USER");
  const admin = await actor(app, "ADMIN");
  const file = await uploadOne(app, a.headers);
  const path = `/api/user/files/${file.id}/raw`;
  const notFound = await app.json("GET", path, undefined, other.headers);
  assert.deepEqual(notFound.body, { error: "Not Found", statusCode: 404 });
  assert.equal((await app.json("GET", path)).status, 401);
  const managed = await app.request(path, { headers: admin.headers });
  assert.equal(managed.status, 200);
  assert.equal(await managed.text(), "hello ferry");
  const adminFile = await uploadOne(app, admin.headers);
  const up = await app.json("GET", `/api/user/files/${adminFile.id}/raw`, undefined, a.headers);
  assert.equal(up.status, 404);
  assert.equal(
    (await app.json("GET", "/api/user/files/missing/raw", undefined, a.headers)).status,
    404,
  );
});

apiTest("owner raw: a password is still needed, as on /raw", async (app) => {
  const a = await actor(app, "USER");
  const file = await uploadOne(app, { ...a.headers, "x-service-password": "hunter2" });
  const path = `/api/user/files/${file.id}/raw`;
  const locked = await app.json("GET", path, undefined, a.headers);
  assert.deepEqual(locked.body, { error: "Password protected", statusCode: 403 });
  const wrong = await app.json("GET", `${path}?pw=nope`, undefined, a.headers);
  assert.deepEqual(wrong.body, { error: "Incorrect password", statusCode: 403 });
  const pw = await app.request(`${path}?pw=hunter2`, { headers: a.headers });
  assert.equal(await pw.text(), "hello ferry");

  const grant = await app.json("POST", `/api/user/files/${file.id}/password`, {
    password: "hunter2",
  });
  const cookie = grant.headers.getSetCookie()[0].split(";")[0];
  const withCookie = () => app.request(path, { headers: { ...a.headers, cookie } });
  const open = await withCookie();
  assert.equal(open.status, 200);
  assert.equal(open.headers.get("cache-control"), "private, no-store");
  assert.equal(await open.text(), "hello ferry");
  app.clock.advance(61_000);
  assert.equal((await withCookie()).status, 403);
});

apiTest("owner raw: expired and used-up files are gone", async (app) => {
  const a = await actor(app, "USER");
  const expiring = await uploadOne(app, { ...a.headers, "x-service-deletes-at": "1m" });
  const limited = await uploadOne(app, { ...a.headers, "x-service-max-views": "1" });
  const seen = await app.request(`/raw/${limited.name}`);
  await seen.body?.cancel();

  await app.services.store.settings.update({ featuresDeleteOnMaxViews: false });
  await app.services.settings.reload();
  const used = await app.json("GET", `/api/user/files/${limited.id}/raw`, undefined, a.headers);
  assert.equal(used.status, 404);
  assert.notEqual(await app.services.store.files.get(limited.id), null, "kept: setting off");
  await app.services.store.settings.update({ featuresDeleteOnMaxViews: true });
  await app.services.settings.reload();
  assert.equal(
    (await app.json("GET", `/api/user/files/${limited.id}/raw`, undefined, a.headers)).status,
    404,
  );
  assert.equal(await app.services.store.files.get(limited.id), null, "deleted: setting on");

  app.clock.advance(61_000);
  const expired = await app.json("GET", `/api/user/files/${expiring.id}/raw`, undefined, a.headers);
  assert.equal(expired.status, 404);
  assert.equal(await app.services.store.files.get(expiring.id), null);
  assert.deepEqual(await app.storedObjects(), []);
});
