/**
 * POST /api/upload: the answer, every option header (both prefixes), every
 * error message of the spec's §7, that a failed request leaves nothing
 * behind, and the quota under concurrent uploads — on both stores, and the
 * main paths again on S3.
 */
import assert from "node:assert/strict";
import type { S3Datasource } from "../../storage/s3.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadFiles, uploadOne } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";

const MIB = 1024 * 1024;

async function settings(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.settings.update(values);
  await app.services.settings.reload();
}

async function setQuota(app: TestApp, userId: string, quota: Record<string, unknown>) {
  await app.services.store.users.update(userId, {
    quota: { id: "q1", maxBytes: null, maxFiles: null, maxUrls: null, ...quota } as never,
  }, new Date());
}

/** Nothing stored for anyone: no objects, no records. */
async function assertEmpty(app: TestApp, userId: string) {
  assert.deepEqual(await app.storedObjects(), []);
  assert.deepEqual(await app.services.store.files.listByUser(userId), []);
  assert.deepEqual(await app.services.store.files.usage(userId), { bytes: 0, files: 0 });
}

for (const datasource of ["local", "s3"] as const) {
  apiTest(
    `upload (${datasource}): answer, bytes served back, several files, no-json`,
    async (app) => {
      const a = await actor(app, "USER");
      const big = new Uint8Array(3 * MIB + 5).map((_, i) => i % 251);
      const res = await uploadFiles(app, [
        { name: "hello.txt", content: "hello ferry", type: "text/plain" },
        { name: "big.bin", content: big, type: "application/octet-stream" },
      ], a.headers);
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body), ["files"]);
      const [text, bin] = res.body.files;
      assert.deepEqual(Object.keys(text).sort(), ["id", "name", "type", "url"]);
      assert.match(text.name, /^[A-Za-z0-9]{6}\.txt$/);
      assert.equal(text.url, `http://ferry.test/u/${text.name}`);
      assert.equal(text.type, "text/plain");
      const served = await app.request(`/raw/${bin.name}`);
      assert.deepEqual(new Uint8Array(await served.arrayBuffer()), big);
      const link = await app.request(new URL(text.url).pathname);
      assert.equal(link.status, 302, "a text file's link opens its page");
      assert.equal(link.headers.get("location"), `/view/${text.name}`);
      assert.equal(await (await app.request(`/raw/${text.name}`)).text(), "hello ferry");
      assert.deepEqual(await app.services.store.files.usage(a.user.id), {
        bytes: big.byteLength + 11,
        files: 2,
      });
      assert.deepEqual((await app.storedObjects()).sort(), [bin.name, text.name].sort());

      const plain = await uploadFiles(app, [
        { name: "a.txt", content: "a" },
        { name: "b.txt", content: "b" },
      ], { ...a.headers, "x-zipline-no-json": "true" });
      assert.equal(plain.status, 200);
      assert.match(plain.headers.get("content-type")!, /^text\/plain/);
      assert.match(
        plain.body,
        /^http:\/\/ferry\.test\/u\/\w{6}\.txt,http:\/\/ferry\.test\/u\/\w{6}\.txt$/,
      );
    },
    { datasource },
  );

  apiTest(`upload (${datasource}): a failure leaves no bytes and no records`, async (app) => {
    const a = await actor(app, "USER");
    await settings(app, { filesMaxFileSize: "1mb", filesDisabledExtensions: ["exe"] });
    const tooBig = await uploadFiles(app, [
      { name: "ok.txt", content: "fine" },
      { name: "big.bin", content: new Uint8Array(MIB + 1) },
    ], a.headers);
    assert.equal(tooBig.status, 413);
    assert.deepEqual(tooBig.body, {
      error: `file[1]: File size is too large. Maximum file size is ${MIB} bytes`,
      statusCode: 413,
    });
    await assertEmpty(app, a.user.id);

    const disabled = await uploadFiles(app, [
      { name: "ok.txt", content: "fine" },
      { name: "virus.exe", content: "MZ" },
    ], a.headers);
    assert.equal(disabled.status, 400);
    assert.equal(disabled.body.error, "file[1]: File extension .exe is not allowed");
    await assertEmpty(app, a.user.id);

    // Exactly at the limit is fine.
    assert.equal(
      (await uploadFiles(app, [{ name: "x", content: new Uint8Array(MIB) }], a.headers))
        .status,
      200,
    );
  }, { datasource });
}

apiTest(
  "upload (s3): a small file is one PutObject of the bytes in hand, a large one goes through two reused part buffers",
  async (app) => {
    const a = await actor(app, "USER");
    const s3 = app.services.datasource as S3Datasource;
    const small = await uploadFiles(
      app,
      [{ name: "small.txt", content: "hello ferry" }],
      a.headers,
    );
    assert.equal(small.status, 200);
    assert.deepEqual(s3.putBuffers, { created: 0, lent: 0 }, "no 5 MiB part for 11 bytes");
    const name = small.body.files[0].name;
    assert.equal(await (await app.request(`/raw/${name}`)).text(), "hello ferry");

    const big = new Uint8Array(12 * MIB + 3).map((_, i) => (i * 7) % 253);
    const large = await uploadFiles(app, [{ name: "big.bin", content: big }], a.headers);
    assert.equal(large.status, 200);
    // Three parts, at most two in flight: two buffers, every one given back.
    assert.deepEqual(s3.putBuffers, { created: 2, lent: 0 });
    const served = await app.request(`/raw/${large.body.files[0].name}`);
    assert.deepEqual(new Uint8Array(await served.arrayBuffer()), big);
  },
  { datasource: "s3" },
);

apiTest("upload: every option header, with either prefix", async (app, t) => {
  const a = await actor(app, "USER");
  const h = (extra: Record<string, string>) => ({ ...a.headers, ...extra });
  const record = async (name: string) => (await app.services.store.files.getByName(name))!;
  const now = app.clock.now();

  for (const prefix of ["x-service-", "x-zipline-"]) {
    await t.step(`${prefix}deletes-at`, async () => {
      const inHour = await uploadFiles(
        app,
        [{ name: "a.txt", content: "a" }],
        h({
          [`${prefix}deletes-at`]: "1h",
        }),
      );
      assert.equal(inHour.status, 200);
      assert.equal(inHour.body.deletesAt, new Date(now + 3600_000).toISOString());
      assert.equal(
        (await record(inHour.body.files[0].name)).deletesAt?.getTime(),
        now + 3600_000,
      );
      const at = new Date(now + 86400_000).toISOString();
      const dated = await uploadFiles(
        app,
        [{ name: "a.txt", content: "a" }],
        h({
          [`${prefix}deletes-at`]: `date=${at}`,
        }),
      );
      assert.equal(dated.body.deletesAt, at);
      const never = await uploadFiles(
        app,
        [{ name: "a.txt", content: "a" }],
        h({
          [`${prefix}deletes-at`]: "never",
        }),
      );
      assert.equal(never.body.deletesAt, "never");
      assert.equal((await record(never.body.files[0].name)).deletesAt, null);
      for (const bad of ["soon", "-1h", `date=${new Date(now - 1000).toISOString()}`]) {
        const res = await uploadFiles(
          app,
          [{ name: "a.txt", content: "a" }],
          h({
            [`${prefix}deletes-at`]: bad,
          }),
        );
        assert.equal(res.status, 400, bad);
        assert.equal(res.body.error, "bad options[deletes-at]: Invalid expiry date");
      }
    });
  }

  await t.step("expiry default and maximum", async () => {
    await settings(app, { filesDefaultExpiration: "2h", filesMaxExpiration: "1d" });
    const dflt = await uploadFiles(app, [{ name: "a.txt", content: "a" }], a.headers);
    assert.equal(dflt.body.deletesAt, new Date(now + 7200_000).toISOString());
    for (const v of ["2d", "never"]) {
      const res = await uploadFiles(
        app,
        [{ name: "a.txt", content: "a" }],
        h({
          "x-service-deletes-at": v,
        }),
      );
      assert.equal(res.status, 400);
      assert.equal(
        res.body.error,
        "bad options[deletes-at]: Expiry exceeds maximum allowed expiration of 1d",
      );
    }
    await settings(app, { filesDefaultExpiration: null, filesMaxExpiration: null });
    const none = await uploadFiles(app, [{ name: "a.txt", content: "a" }], a.headers);
    assert.equal(none.body.deletesAt, undefined);
  });

  await t.step("max-views and password (hashed, never returned)", async () => {
    const res = await uploadFiles(
      app,
      [{ name: "a.txt", content: "a" }],
      h({
        "x-service-max-views": "3",
        "x-zipline-password": "secret",
      }),
    );
    const file = await record(res.body.files[0].name);
    assert.equal(file.maxViews, 3);
    assert.match(file.password!, /^\$argon2id\$/);
    assert.ok(!JSON.stringify(res.body).includes("argon2"));
    const zero = await uploadFiles(
      app,
      [{ name: "a.txt", content: "a" }],
      h({
        "x-service-max-views": "0",
      }),
    );
    assert.equal((await record(zero.body.files[0].name)).maxViews, null);
    const bad = await uploadFiles(
      app,
      [{ name: "a.txt", content: "a" }],
      h({
        "x-service-max-views": "lots",
      }),
    );
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /^bad options\[max-views\]: Invalid max views/);
  });

  await t.step("formats", async () => {
    const name = async (format: string, file = "photo.jpg") =>
      (await uploadFiles(app, [{ name: file, content: "x" }], h({ "x-service-format": format })))
        .body.files[0].name as string;
    assert.match(await name("random"), /^[A-Za-z0-9]{6}\.jpg$/);
    assert.match(
      await name("uuid"),
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.jpg$/,
    );
    assert.match(await name("gfycat"), /^[a-z]+-[a-z]+-[a-z]+\.jpg$/);
    assert.match(await name("random-words"), /^[a-z]+-[a-z]+-[a-z]+\.jpg$/);
    assert.equal(await name("name", "holiday.tar.gz"), "holiday.tar.gz");
    const date = await name("date");
    assert.match(date, /^\d{4}-\d{2}-\d{2}_\d{2}:\d{2}:\d{2}\.jpg$/);
    assert.equal(await name("date"), date.replace(".jpg", "-1.jpg"), "a taken date gets -1");
    const taken = await uploadFiles(
      app,
      [{ name: "holiday.tar.gz", content: "x" }],
      h({
        "x-service-format": "name",
      }),
    );
    assert.equal(taken.status, 400);
    assert.equal(taken.body.error, "file[0]: file with the same name already exists");
    const bad = await uploadFiles(
      app,
      [{ name: "a", content: "x" }],
      h({
        "x-service-format": "fancy",
      }),
    );
    assert.equal(bad.body.error, "bad options[format]: Invalid format");
  });

  await t.step("filename, file-extension, original-name", async () => {
    const named = await uploadFiles(
      app,
      [{ name: "a.png", content: "x" }],
      h({
        "x-service-filename": "my%20shot",
      }),
    );
    assert.equal(named.body.files[0].name, "my shot.png");
    const ext = await uploadFiles(
      app,
      [{ name: "a.png", content: "x" }],
      h({
        "x-zipline-file-extension": ".webp",
      }),
    );
    assert.match(ext.body.files[0].name, /\.webp$/);
    const badExt = await uploadFiles(
      app,
      [{ name: "a.png", content: "x" }],
      h({
        "x-service-file-extension": "../x",
      }),
    );
    assert.equal(badExt.body.error, "bad options[file-extension]: Invalid file extension");
    const kept = await uploadFiles(
      app,
      [{ name: "Résumé final.pdf", content: "x" }],
      h({
        "x-service-original-name": "true",
      }),
    );
    assert.equal((await record(kept.body.files[0].name)).originalName, "Résumé final.pdf");
    const notKept = await uploadFiles(app, [{ name: "r.pdf", content: "x" }], a.headers);
    assert.equal((await record(notKept.body.files[0].name)).originalName, null);
    const bad = await uploadFiles(
      app,
      [{ name: "bad%zz.txt", content: "x" }],
      h({
        "x-service-original-name": "true",
      }),
    );
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, "file[0]: Invalid characters in original filename");
  });

  await t.step("folder and domain", async () => {
    const folder = await app.json("POST", "/api/user/folders", { name: "up" }, a.headers);
    await settings(app, { domains: ["files.example.com"] });
    const res = await uploadFiles(
      app,
      [{ name: "a.txt", content: "x" }],
      h({
        "x-service-folder": folder.body.id,
        "x-service-domain": "files.example.com",
      }),
    );
    assert.equal(res.body.files[0].url, `http://files.example.com/u/${res.body.files[0].name}`);
    assert.equal((await record(res.body.files[0].name)).folderId, folder.body.id);
    await settings(app, { coreReturnHttpsUrls: true, coreDefaultDomain: "dl.example.org" });
    const https = await uploadFiles(app, [{ name: "a.txt", content: "x" }], a.headers);
    assert.match(https.body.files[0].url, /^https:\/\/dl\.example\.org\/u\//);
    await settings(app, { filesRoute: "/" });
    const root = await uploadFiles(app, [{ name: "a.txt", content: "x" }], a.headers);
    assert.equal(root.body.files[0].url, `https://dl.example.org/${root.body.files[0].name}`);
  });
});

apiTest("upload: authentication, non-multipart bodies and anonymous folders", async (app) => {
  const none = await uploadFiles(app, [{ name: "a.txt", content: "x" }]);
  assert.deepEqual(none.body, { error: "not logged in", statusCode: 401 });
  const badToken = await uploadFiles(app, [{ name: "a.txt", content: "x" }], {
    authorization: "garbage",
  });
  assert.equal(badToken.status, 401);
  const anonymous = await uploadFiles(app, [{ name: "a.txt", content: "x" }], {
    "x-zipline-folder": "f1",
  });
  assert.deepEqual(anonymous.body, { error: "folder is not open", statusCode: 403 });
  const a = await actor(app, "USER");
  const json = await app.json("POST", "/api/upload", { a: 1 }, a.headers);
  assert.equal(json.status, 415);
  assert.equal(json.body.error, "the request is not multipart");
  const empty = await uploadFiles(app, [], a.headers);
  assert.deepEqual(empty.body, { files: [] });
});

apiTest("upload: disabled extensions match with or without the dot; types", async (app) => {
  const a = await actor(app, "USER");
  await app.services.store.settings.update({ filesDisabledExtensions: [".sh", "gz"] });
  await app.services.settings.reload();
  const sh = await uploadFiles(app, [{ name: "run.sh", content: "x" }], a.headers);
  assert.equal(sh.body.error, "file[0]: File extension .sh is not allowed");
  const tgz = await uploadFiles(app, [{ name: "a.tar.gz", content: "x" }], a.headers);
  assert.equal(tgz.body.error, "file[0]: File extension .tar.gz is not allowed");
  await settings(app, {
    filesDisabledExtensions: [],
    filesDisabledTypes: ["text/html"],
    filesAssumeMimetypes: true,
  });
  const html = await uploadFiles(
    app,
    [{ name: "p.html", content: "<b>", type: "text/plain" }],
    a.headers,
  );
  assert.equal(html.body.error, "file[0]: File type text/html is not allowed");
  const png = await uploadFiles(
    app,
    [{ name: "p.png", content: "x", type: "text/plain" }],
    a.headers,
  );
  assert.equal(png.body.files[0].type, "image/png");
});

apiTest("upload: quotas by bytes and by files, single and several files", async (app) => {
  const a = await actor(app, "USER");
  await setQuota(app, a.user.id, { filesQuota: "BY_BYTES", maxBytes: "10kb" });
  await uploadOne(app, a.headers, new Uint8Array(8 * 1024));
  const over = await uploadFiles(
    app,
    [{ name: "b.bin", content: new Uint8Array(3 * 1024) }],
    a.headers,
  );
  assert.equal(over.status, 403);
  assert.deepEqual(over.body, {
    error: "Uploading this file would exceed your quota of 10kb",
    statusCode: 403,
  });
  const several = await uploadFiles(app, [
    { name: "b.bin", content: new Uint8Array(1024) },
    { name: "c.bin", content: new Uint8Array(2 * 1024) },
  ], a.headers);
  assert.equal(several.status, 413);
  assert.deepEqual(several.body, {
    error: "Uploading these files would exceed your quota",
    statusCode: 413,
  });
  assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes: 8192, files: 1 });
  assert.equal((await app.storedObjects()).length, 1);
  // What fits still goes in, to the byte.
  assert.equal(
    (await uploadFiles(app, [{ name: "d", content: new Uint8Array(2048) }], a.headers))
      .status,
    200,
  );

  const b = await actor(app, "USER");
  await setQuota(app, b.user.id, { filesQuota: "BY_FILES", maxFiles: 2 });
  await uploadOne(app, b.headers);
  await uploadOne(app, b.headers);
  const third = await uploadFiles(app, [{ name: "c.txt", content: "c" }], b.headers);
  assert.deepEqual(third.body, {
    error: "Uploading this file would exceed your quota of 2 files",
    statusCode: 403,
  });
  // Deleting frees the quota.
  const [first] = await app.services.store.files.listByUser(b.user.id);
  assert.equal(
    (await app.json("DELETE", `/api/user/files/${first.id}`, undefined, b.headers))
      .status,
    200,
  );
  assert.equal((await uploadFiles(app, [{ name: "c.txt", content: "c" }], b.headers)).status, 200);
});

apiTest("upload: concurrent uploads never pass the quota", async (app) => {
  const a = await actor(app, "USER");
  await setQuota(app, a.user.id, { filesQuota: "BY_BYTES", maxBytes: "100kb" });
  const replies = await Promise.all(
    Array.from(
      { length: 24 },
      (_, i) =>
        uploadFiles(app, [{ name: `f${i}.bin`, content: new Uint8Array(10 * 1024) }], a.headers),
    ),
  );
  const ok = replies.filter((r) => r.status === 200).length;
  assert.ok(replies.every((r) => r.status === 200 || r.status === 403));
  assert.equal(ok, 10);
  const files = await app.services.store.files.listByUser(a.user.id);
  const stored = files.reduce((sum, f) => sum + f.size, 0);
  assert.ok(stored <= 100 * 1024);
  assert.equal(files.length, ok);
  assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes: stored, files: ok });
  assert.equal((await app.storedObjects()).length, ok);

  const b = await actor(app, "USER");
  await setQuota(app, b.user.id, { filesQuota: "BY_FILES", maxFiles: 5 });
  const counted = await Promise.all(
    Array.from(
      { length: 15 },
      () => uploadFiles(app, [{ name: "x.txt", content: "x" }], b.headers),
    ),
  );
  assert.equal(counted.filter((r) => r.status === 200).length, 5);
  assert.equal((await app.services.store.files.listByUser(b.user.id)).length, 5);
});
