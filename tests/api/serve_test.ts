/**
 * Serving files (`/raw/:name`, `<filesRoute>/:name`): ranges, validators,
 * headers, views, max views, expiry, and password access with its cookie
 * (spec §4.5) — on both stores, and the range matrix on S3 too.
 */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadFiles, uploadOne } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";

const DATA = new Uint8Array(1000).map((_, i) => (i * 7) % 256);

async function settings(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.settings.update(values);
  await app.services.settings.reload();
}

for (const datasource of ["local", "s3"] as const) {
  apiTest(`serve (${datasource}): the range matrix`, async (app, t) => {
    const a = await actor(app, "USER");
    const { name } = await uploadOne(app, a.headers, DATA, "d.bin", "application/octet-stream");
    const cases: [string, number, [number, number] | null][] = [
      ["bytes=0-0", 206, [0, 0]],
      ["bytes=0-499", 206, [0, 499]],
      ["bytes=500-", 206, [500, 999]],
      ["bytes=990-5000", 206, [990, 999]],
      ["bytes=999-999", 206, [999, 999]],
      ["bytes=-1", 206, [999, 999]],
      ["bytes=-10", 206, [990, 999]],
      ["bytes=-5000", 206, [0, 999]],
      ["bytes=1000-", 416, null],
      ["bytes=5000-6000", 416, null],
      ["bytes=-0", 416, null],
      ["bytes=5-2", 200, null],
      ["bytes=0-1,5-6", 200, null],
      ["items=0-5", 200, null],
      ["bytes=abc", 200, null],
    ];
    for (const [range, status, span] of cases) {
      await t.step(range, async () => {
        const res = await app.request(`/raw/${name}`, { headers: { range } });
        assert.equal(res.status, status);
        const body = new Uint8Array(await res.arrayBuffer());
        assert.equal(res.headers.get("accept-ranges"), "bytes");
        if (status === 206) {
          const [start, end] = span!;
          assert.deepEqual(body, DATA.subarray(start, end + 1));
          assert.equal(res.headers.get("content-range"), `bytes ${start}-${end}/1000`);
          assert.equal(res.headers.get("content-length"), String(end - start + 1));
        } else if (status === 416) {
          assert.equal(body.byteLength, 0);
          assert.equal(res.headers.get("content-range"), "bytes */1000");
        } else {
          assert.deepEqual(body, DATA);
          assert.equal(res.headers.get("content-length"), "1000");
        }
      });
    }
  }, { datasource });
}

apiTest("serve: validators, 304, If-Range, HEAD, headers and disposition", async (app) => {
  const a = await actor(app, "USER");
  const res = await uploadFiles(app, [{
    name: "Notes été.txt",
    content: "bonjour",
    type: "text/plain",
  }], {
    ...a.headers,
    "x-service-original-name": "true",
  });
  const { name } = res.body.files[0];
  const first = await app.request(`/raw/${name}`);
  assert.equal(first.status, 200);
  assert.equal(first.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(first.headers.get("content-length"), "7");
  assert.equal(first.headers.get("x-content-type-options"), "nosniff");
  assert.equal(
    first.headers.get("content-disposition"),
    `inline; filename="Notes _t_.txt"; filename*=UTF-8''${encodeURIComponent("Notes été.txt")}`,
  );
  const etag = first.headers.get("etag")!;
  const modified = first.headers.get("last-modified")!;
  assert.match(etag, /^"[^"]+"$/);
  await first.body?.cancel();

  const cached = await app.request(`/raw/${name}`, { headers: { "if-none-match": etag } });
  assert.equal(cached.status, 304);
  assert.equal(cached.headers.get("etag"), etag);
  const byDate = await app.request(`/raw/${name}`, { headers: { "if-modified-since": modified } });
  assert.equal(byDate.status, 304);
  const changed = await app.request(`/raw/${name}`, { headers: { "if-none-match": '"other"' } });
  assert.equal(changed.status, 200);
  await changed.body?.cancel();

  const stale = await app.request(`/raw/${name}`, {
    headers: { range: "bytes=0-2", "if-range": '"old"' },
  });
  assert.equal(stale.status, 200);
  assert.equal(await stale.text(), "bonjour");
  const fresh = await app.request(`/raw/${name}`, {
    headers: { range: "bytes=0-2", "if-range": etag },
  });
  assert.equal(fresh.status, 206);
  assert.equal(await fresh.text(), "bon");

  const download = await app.request(`/raw/${name}?download=true`);
  assert.match(download.headers.get("content-disposition")!, /^attachment; /);
  await download.body?.cancel();

  const head = await app.request(`/raw/${name}`, { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("content-length"), "7");
  assert.equal(await head.text(), "");

  const missing = await app.json("GET", "/raw/nope.txt");
  assert.equal(missing.status, 404);
});

apiTest("serve: active content runs sandboxed; media is served plainly", async (app) => {
  const a = await actor(app, "USER");
  for (const [file, type] of [["x.html", "text/html"], ["x.svg", "image/svg+xml"]]) {
    const { name } = await uploadOne(app, a.headers, "<script>alert(1)</script>", file, type);
    const res = await app.request(`/raw/${name}`);
    assert.match(res.headers.get("content-security-policy")!, /^sandbox; default-src 'none'/);
    await res.body?.cancel();
  }
  const { name } = await uploadOne(app, a.headers, "png", "x.png", "image/png");
  const png = await app.request(`/raw/${name}`);
  assert.equal(png.headers.get("content-security-policy"), null);
  await png.body?.cancel();
});

apiTest("serve: the files route follows the setting live", async (app) => {
  const a = await actor(app, "USER");
  const { name } = await uploadOne(app, a.headers, "hello ferry", "hello.bin", "application/pdf");
  assert.equal(await (await app.request(`/u/${name}`)).text(), "hello ferry");
  await settings(app, { filesRoute: "/files" });
  assert.equal((await app.json("GET", `/u/${name}`)).status, 404);
  assert.equal(await (await app.request(`/files/${name}`)).text(), "hello ferry");
  await settings(app, { filesRoute: "/" });
  assert.equal(await (await app.request(`/${name}`)).text(), "hello ferry");
});

apiTest("serve: one view per viewer within seconds; max views; HEAD never counts", async (app) => {
  const a = await actor(app, "USER");
  const { name } = await uploadOne(app, { ...a.headers, "x-service-max-views": "2" });
  const get = async (ua: string, init: RequestInit = {}) => {
    const res = await app.request(`/raw/${name}`, {
      ...init,
      headers: { "user-agent": ua, ...init.headers as Record<string, string> },
    });
    await res.body?.cancel();
    return res.status;
  };
  const views = async () => (await app.services.store.files.getByName(name))?.views;
  assert.equal(await get("one"), 200);
  assert.equal(await get("one"), 200);
  assert.equal(await views(), 1, "a repeat within 5 seconds is not counted");
  assert.equal(await get("two", { method: "HEAD" }), 200);
  assert.equal(await get("two", { headers: { range: "bytes=3-5" } }), 206);
  assert.equal(await views(), 1, "HEAD and ranges past the start are not counted");
  app.clock.advance(6000);
  assert.equal(await get("one"), 200);
  assert.equal(await views(), 2);
  assert.equal(await get("three"), 404, "the third counted view is past max views");
  assert.equal(await app.services.store.files.getByName(name), null, "and the file is deleted");
  assert.deepEqual(await app.storedObjects(), []);

  await settings(app, { featuresDeleteOnMaxViews: false });
  const kept = await uploadOne(app, { ...a.headers, "x-service-max-views": "1" });
  const first = await app.request(`/raw/${kept.name}`);
  await first.body?.cancel();
  assert.equal(
    (await app.json("GET", `/raw/${kept.name}`, undefined, { "user-agent": "b" })).status,
    404,
  );
  assert.ok(await app.services.store.files.getByName(kept.name), "kept when deletion is off");
});

apiTest("serve: an expired file is a 404 and is deleted", async (app) => {
  const a = await actor(app, "USER");
  const { name } = await uploadOne(app, { ...a.headers, "x-service-deletes-at": "1m" });
  const live = await app.request(`/raw/${name}`);
  assert.equal(live.status, 200);
  await live.body?.cancel();
  app.clock.advance(60_000);
  assert.equal((await app.json("GET", `/raw/${name}`)).status, 404);
  assert.equal(await app.services.store.files.getByName(name), null);
  assert.deepEqual(await app.storedObjects(), []);
});

apiTest("password: the cookie, its 60 seconds, 404/403, and the log", async (app) => {
  const a = await actor(app, "USER");
  const file = await uploadOne(app, { ...a.headers, "x-service-password": "hunter2" });
  const plain = await uploadOne(app, a.headers);

  assert.deepEqual((await app.json("GET", `/raw/${file.name}`)).body, {
    error: "Password protected",
    statusCode: 403,
  });
  const wrong = await app.json(
    "POST",
    `/api/user/files/${file.id}/password`,
    { password: "nope" },
    {
      "user-agent": "tester/1",
    },
  );
  assert.equal(wrong.status, 403);
  assert.equal(wrong.headers.getSetCookie().length, 0);

  const right = await app.json("POST", `/api/user/files/${file.name}/password`, {
    password: "  hunter2 ",
  }, { "user-agent": "tester/1" });
  assert.equal(right.status, 200);
  assert.deepEqual(right.body, { success: true });
  const [cookie] = right.headers.getSetCookie();
  const parts = cookie.split(/;\s*/);
  assert.equal(parts[0], `file_pw_${file.id}=hunter2`);
  assert.deepEqual(parts.slice(1).map((p) => p.toLowerCase()).sort(), [
    "max-age=60",
    "path=/",
    "samesite=lax",
  ]);

  const withCookie = () =>
    app.request(`/raw/${file.name}`, { headers: { cookie: parts[0], "user-agent": "x" } });
  const served = await withCookie();
  assert.equal(served.status, 200);
  assert.equal(served.headers.get("cache-control"), "private, no-store");
  assert.equal(await served.text(), "hello ferry");
  app.clock.advance(59_000);
  const still = await withCookie();
  assert.equal(still.status, 200);
  await still.body?.cancel();
  app.clock.advance(2_000);
  assert.equal((await withCookie()).status, 403, "61 seconds later the password is needed again");

  const pw = await app.request(`/raw/${file.name}?pw=hunter2`);
  assert.equal(pw.status, 200);
  await pw.body?.cancel();
  assert.equal(
    (await app.json("GET", `/raw/${file.name}?pw=bad`)).body.error,
    "Incorrect password",
  );

  assert.equal(
    (await app.json("POST", `/api/user/files/${plain.id}/password`, { password: "x" })).status,
    404,
  );
  assert.equal(
    (await app.json("POST", "/api/user/files/missing/password", { password: "x" })).status,
    404,
  );
  // The route's two, the lapsed cookie, and the two `?pw=`.
  const attempts = app.logger.lines.filter((l) => l.message === "file password attempt");
  assert.deepEqual(attempts.map((l) => l.fields?.success), [false, true, false, true, false]);
  for (const line of attempts.slice(0, 2)) {
    assert.equal(line.fields?.file, file.name);
    assert.equal(line.fields?.ua, "tester/1");
    assert.equal(typeof line.fields?.ip, "string");
    assert.match(String(line.fields?.at), /^\d{4}-\d{2}-\d{2}T/);
    assert.ok(!JSON.stringify(line).includes("hunter2"));
  }

  // A new password voids the old access at once.
  const again = await app.json("POST", `/api/user/files/${file.id}/password`, {
    password: "hunter2",
  });
  assert.equal(again.status, 200);
  await app.json("PATCH", `/api/user/files/${file.id}`, { password: "other" }, a.headers);
  assert.equal((await withCookie()).status, 403);
});

apiTest("password: more than 2 attempts a second is a 429", async (app) => {
  const a = await actor(app, "USER");
  const file = await uploadOne(app, { ...a.headers, "x-service-password": "pw" });
  const statuses = [];
  for (let i = 0; i < 3; i++) {
    statuses.push(
      (await app.json("POST", `/api/user/files/${file.id}/password`, { password: "bad" })).status,
    );
  }
  assert.deepEqual(statuses, [403, 403, 429]);
  app.clock.advance(1000);
  assert.equal(
    (await app.json("POST", `/api/user/files/${file.id}/password`, { password: "pw" })).status,
    200,
  );
}, { rateLimits: true });

apiTest("conformance: a public path naming a NUL is a 404, not a 500", async (app) => {
  const user = await actor(app, "USER");
  await uploadOne(app, user.headers);
  for (const path of ["/u/%00", "/go/%00", "/raw/%00", "/r/%00", "/view/%00", "/view/url/%00"]) {
    const res = await app.request(path);
    await res.body?.cancel();
    assert.equal(res.status, 404, path);
  }
});
