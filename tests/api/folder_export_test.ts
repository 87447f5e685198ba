/**
 * `GET /api/user/folders/:id/export` (reference §4.4): the folder as a zip,
 * read back by independent readers, on both stores and both datasources.
 */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { DATASOURCE_KINDS } from "../helpers/datasources.ts";
import { uploadFiles } from "../helpers/files.ts";
import { type Actor, actor } from "../helpers/users.ts";
import { readZip, sha256 } from "../helpers/zip.ts";
import { fileRecord } from "../helpers/stores.ts";

async function folder(app: TestApp, who: Actor, name: string, parentId?: string) {
  const res = await app.json("POST", "/api/user/folders", { name, parentId }, who.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
}

/** Uploads `content` as `name` into `folderId`; returns the stored file name. */
async function upload(
  app: TestApp,
  who: Actor,
  folderId: string | null,
  name: string,
  content: Uint8Array | string,
) {
  const headers: Record<string, string> = { ...who.headers, "x-service-format": "name" };
  if (folderId) headers["x-service-folder"] = folderId;
  const res = await uploadFiles(app, [{ name, content }], headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.files[0].name as string;
}

for (const datasource of DATASOURCE_KINDS) {
  apiTest(
    `folder export: a zip of the tree, subfolders as directories [${datasource}]`,
    async (app) => {
      const alice = await actor(app, "USER");
      const photos = await folder(app, alice, "Photos");
      const summer = await folder(app, alice, "Summer 2026", photos);
      const empty = await folder(app, alice, "empty", photos);
      const big = crypto.getRandomValues(new Uint8Array(60_000));
      const names = {
        top: await upload(app, alice, photos, "top.txt", "at the top"),
        big: await upload(app, alice, photos, "big.bin", big),
        deep: await upload(app, alice, summer, "beach.txt", "sand"),
        outside: await upload(app, alice, null, "outside.txt", "not in the folder"),
      };
      await folder(app, alice, "elsewhere");

      const res = await app.request(`/api/user/folders/${photos}/export`, {
        headers: alice.headers,
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/zip");
      assert.match(res.headers.get("content-disposition")!, /^attachment; filename="Photos\.zip"/);
      const listing = await readZip(res.body!);
      assert.deepEqual(listing, {
        [names.top]: sha256("at the top"),
        [names.big]: sha256(big),
        "Summer 2026/": "dir",
        [`Summer 2026/${names.deep}`]: sha256("sand"),
        "empty/": "dir",
      });
      assert.ok(!(names.outside in listing));

      const leaf = await app.request(`/api/user/folders/${empty}/export`, {
        headers: alice.headers,
      });
      assert.equal(leaf.status, 200);
      assert.deepEqual(await readZip(leaf.body!), {}, "an empty folder is an empty archive");
    },
    { datasource },
  );
}

apiTest("folder export: the owner's only, 404 for an unknown folder", async (app) => {
  const alice = await actor(app, "USER");
  const bob = await actor(app, "USER");
  const admin = await actor(app, "SUPERADMIN");
  const id = await folder(app, alice, "mine");
  for (const who of [bob, admin]) {
    const res = await app.json("GET", `/api/user/folders/${id}/export`, undefined, who.headers);
    assert.deepEqual(res.body, { error: "You do not own this folder", statusCode: 403 });
  }
  const unknown = await app.json("GET", "/api/user/folders/nope/export", undefined, alice.headers);
  assert.equal(unknown.status, 404);
  assert.equal((await app.json("GET", `/api/user/folders/${id}/export`)).status, 401);
});

apiTest("folder export: a name with quotes and accents stays exact in filename*", async (app) => {
  const alice = await actor(app, "USER");
  const id = await folder(app, alice, 'Café "best"');
  const res = await app.request(`/api/user/folders/${id}/export`, { headers: alice.headers });
  assert.equal(
    res.headers.get("content-disposition"),
    `attachment; filename="Caf_ _best_.zip"; filename*=UTF-8''${
      encodeURIComponent('Café "best".zip')
    }`,
  );
  await res.body?.cancel();
});

apiTest(
  "chosen files: a zip of the caller's files named in the query, nothing else",
  async (app) => {
    const alice = await actor(app, "USER");
    const bob = await actor(app, "USER");
    const one = await upload(app, alice, null, "one.txt", "first");
    const two = await upload(app, alice, null, "two.txt", "second");
    await upload(app, alice, null, "three.txt", "not chosen");
    const bobs = await upload(app, bob, null, "bob.txt", "bob's");

    const res = await app.request(`/api/user/files/zip?files=${one},${two}`, {
      headers: alice.headers,
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/zip");
    assert.match(
      res.headers.get("content-disposition") ?? "",
      /attachment; filename=".+-files\.zip"/,
    );
    assert.deepEqual(await readZip(new Uint8Array(await res.arrayBuffer())), {
      [one]: sha256("first"),
      [two]: sha256("second"),
    });

    const foreign = await app.json(
      "GET",
      `/api/user/files/zip?files=${one},${bobs}`,
      undefined,
      alice.headers,
    );
    assert.deepEqual(foreign.body, { error: "Not Found", statusCode: 404 }, "another's file");
    const missing = await app.json(
      "GET",
      "/api/user/files/zip?files=nope",
      undefined,
      alice.headers,
    );
    assert.equal(missing.status, 404);
    const empty = await app.json("GET", "/api/user/files/zip?files=,", undefined, alice.headers);
    assert.equal(empty.status, 400);
    const many = Array.from({ length: 501 }, (_, i) => `f${i}`).join(",");
    const tooMany = await app.json(
      "GET",
      `/api/user/files/zip?files=${many}`,
      undefined,
      alice.headers,
    );
    assert.equal(tooMany.status, 400);
  },
);

apiTest(
  "folder export: a folder of more files than the archive reads at once holds every one",
  async (app) => {
    const alice = await actor(app, "USER");
    const many = await folder(app, alice, "many");
    const records = Array.from(
      { length: 1001 },
      (_, i) => fileRecord(alice.user.id, { folderId: many, name: `f${i}.txt`, size: 1 }),
    );
    await app.services.store.files.createMany(records);
    for (const f of records) {
      await app.services.datasource.put(f.name, new Blob([f.name]).stream());
    }
    const res = await app.request(`/api/user/folders/${many}/export`, { headers: alice.headers });
    assert.equal(res.status, 200);
    const listing = await readZip(res.body!);
    assert.deepEqual(
      Object.keys(listing).sort(),
      records.map((f) => f.name).sort(),
      "each file once",
    );
  },
);
