/**
 * The names Ferry keeps for itself in the datasource (thumbnails
 * `.thumbnail.*`, the folders `.exports`, `.partial`, `.tmp`, `.ferry-parts`)
 * are no file's: an upload, a rename or an import that would take one is
 * refused, so nobody overwrites another user's thumbnail.
 */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadFiles, uploadOne } from "../helpers/files.ts";
import { redSquare } from "../helpers/images.ts";
import { fixtureV4, importDoc } from "../helpers/transfer.ts";
import { type Actor, actor } from "../helpers/users.ts";
import { eventually } from "../helpers/wait.ts";

/** The bytes the datasource holds under `name`. */
async function bytesOf(app: TestApp, name: string): Promise<Uint8Array | null> {
  const body = await app.services.datasource.get(name);
  return body && new Uint8Array(await new Response(body).arrayBuffer());
}

/** How many files `who` has. */
async function fileCount(app: TestApp, who: Actor): Promise<number> {
  return (await app.services.store.files.listByUser(who.user.id)).length;
}

/** A PNG of `owner`'s with its thumbnail made (a pass started by `admin`); the thumbnail's name. */
async function thumbnailed(app: TestApp, admin: Actor, owner: Actor): Promise<string> {
  const png = await uploadOne(app, owner.headers, redSquare(64), "red.png", "image/png");
  const pass = await app.json("POST", "/api/server/thumbnails", {}, admin.headers);
  assert.equal(pass.status, 200);
  let path: string | undefined;
  await eventually("the thumbnail", async () => {
    const file = await app.json("GET", `/api/user/files/${png.id}`, undefined, owner.headers);
    path = file.body.thumbnail?.path;
    return path !== undefined;
  });
  return path!;
}

for (const datasource of ["local", "s3"] as const) {
  apiTest(
    `security #8: nobody overwrites another user's thumbnail (${datasource})`,
    async (app) => {
      const admin = await actor(app, "ADMIN");
      const victim = await actor(app, "USER");
      const mallory = await actor(app, "USER");
      const thumbnail = await thumbnailed(app, admin, victim);
      const before = await bytesOf(app, thumbnail);
      assert.ok(before && before.byteLength > 0);
      const [base, extension] = [thumbnail.slice(0, thumbnail.lastIndexOf(".")), ".jpg"];
      const evil = [{ name: `x${extension}`, content: "evil", type: "image/jpeg" }];

      const attempts = [
        await uploadFiles(app, evil, { ...mallory.headers, "x-service-filename": base }),
        await uploadFiles(app, evil, { ...mallory.headers, "x-zipline-filename": thumbnail }),
        await uploadFiles(app, [{ ...evil[0], name: thumbnail }], {
          ...mallory.headers,
          "x-service-format": "name",
        }),
        await uploadFiles(app, [{ ...evil[0], name: thumbnail }], {
          ...mallory.headers,
          "x-service-original-name": "true",
        }),
      ];
      for (const res of attempts) {
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.statusCode, 400);
      }
      // The name built from the filename header and an extension header.
      const built = await uploadFiles(app, evil, {
        ...mallory.headers,
        "x-service-filename": ".thumbnail",
        "x-service-file-extension": thumbnail.slice(".thumbnail.".length),
      });
      assert.deepEqual(built.body, {
        error: `file[0]: the name ${thumbnail} is reserved`,
        statusCode: 400,
      });

      const own = await uploadOne(app, mallory.headers, "evil", "x.jpg", "image/jpeg");
      const renamed = await app.json(
        "PATCH",
        `/api/user/files/${own.id}`,
        { name: thumbnail },
        mallory.headers,
      );
      assert.deepEqual(renamed.body, { error: "name: invalid file name", statusCode: 400 });

      assert.deepEqual(
        await bytesOf(app, thumbnail),
        before,
        "the thumbnail's bytes are unchanged",
      );
      const served = await app.request(`/raw/${thumbnail}`);
      assert.deepEqual(new Uint8Array(await served.arrayBuffer()), before);
      assert.equal(await fileCount(app, mallory), 1, "only the file renamed in vain was stored");
      assert.equal(
        (await app.json("GET", `/api/user/files/${own.id}`, undefined, mallory.headers))
          .body.name,
        own.name,
      );
    },
    { datasource },
  );
}

apiTest(
  "security #8: the folders Ferry and its datasources use are no file's name",
  async (app) => {
    const a = await actor(app, "USER");
    const own = await uploadOne(app, a.headers);
    for (
      const name of [".exports", ".partial", ".tmp", ".ferry-parts", ".TMP", ".Thumbnail.x.png"]
    ) {
      const up = await uploadFiles(app, [{ name: "a.txt", content: "x" }], {
        ...a.headers,
        "x-service-filename": name,
        "x-service-file-extension": "",
      });
      assert.equal(up.status, 400, name);
      const rename = await app.json("PATCH", `/api/user/files/${own.id}`, { name }, a.headers);
      assert.deepEqual(rename.body, { error: "name: invalid file name", statusCode: 400 }, name);
    }
    assert.equal(await fileCount(app, a), 1);
  },
);

apiTest("security #8: an import skips a file with a reserved name, saying why", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "admin");
  const doc = await fixtureV4();
  // maria's design-v3.png, named as a thumbnail.
  doc.data.files[3].name = ".thumbnail.c0000000000000000000000000.jpg";
  const res = await importDoc(app, "v4", doc, admin.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const reasons = res.body.skipped.map((s: { kind: string; reason: string }) =>
    `${s.kind}: ${s.reason}`
  );
  assert.ok(reasons.includes("files: the name is reserved by Ferry"), JSON.stringify(reasons));
  assert.equal(await app.services.store.files.getByName(doc.data.files[3].name), null);
});
