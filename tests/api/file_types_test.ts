/**
 * A file's type is the client's claim (a multipart part header, `PATCH
 * {type}`, an import): it is stored as one lowercase `type/subtype`, and
 * every route that serves bytes sandboxes, as an attachment, anything but a
 * short list of passive types, with `nosniff` always.
 */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadOne, uploadWithPartType } from "../helpers/files.ts";
import { fixtureV4, importDoc } from "../helpers/transfer.ts";
import { type Actor, actor } from "../helpers/users.ts";

/** Types a client may claim to get script run on Ferry's origin, and what Ferry makes of them. */
const EVIL: [string, string][] = [
  ["image/png,text/html", "application/octet-stream"],
  ["IMAGE/PNG", "image/png"],
  ["image/Svg+xml", "image/svg+xml"],
  ["image/png; x=text/html", "application/octet-stream"],
];

/** Whether a browser may show `type` inline on Ferry's origin (the passive list). */
const passive = (type: string) => type === "image/png";

/**
 * Asserts the headers `path` is served with for a file stored as `type`; an
 * SVG is sent as plain text (security #30.12), and only a passive type may be
 * loaded by another site.
 */
async function assertServed(app: TestApp, path: string, type: string, headers?: HeadersInit) {
  for (const query of ["", "?download=false"]) {
    const res = await app.request(path + query, { headers });
    await res.body?.cancel();
    const what = `${path}${query} as ${type}`;
    assert.equal(res.status, 200, what);
    const sent = type === "image/svg+xml" ? "text/plain; charset=utf-8" : type;
    assert.equal(res.headers.get("content-type"), sent, what);
    assert.equal(res.headers.get("x-content-type-options"), "nosniff", what);
    assert.equal(
      res.headers.get("cross-origin-resource-policy"),
      passive(type) ? "cross-origin" : "same-origin",
      what,
    );
    const disposition = res.headers.get("content-disposition") ?? "";
    const csp = res.headers.get("content-security-policy");
    if (passive(type)) {
      assert.ok(disposition.startsWith("inline;"), what);
      assert.equal(csp, null, what);
    } else {
      assert.ok(disposition.startsWith("attachment;"), what);
      assert.match(csp ?? "", /^sandbox; default-src 'none'/, what);
    }
  }
}

/** Asserts every byte route serves the file `name` (id `id`, of `owner`) as `type`. */
async function assertEveryRoute(
  app: TestApp,
  owner: Actor,
  id: string,
  name: string,
  type: string,
) {
  const shown = await app.json("GET", `/api/user/files/${id}`, undefined, owner.headers);
  assert.equal(shown.body.type, type);
  await assertServed(app, `/raw/${encodeURIComponent(name)}`, type);
  await assertServed(app, `/u/${encodeURIComponent(name)}`, type);
  await assertServed(app, `/api/user/files/${id}/raw`, type, owner.headers);
  const page = await app.request(`/view/${encodeURIComponent(name)}`);
  const html = await page.text();
  assert.equal(page.status, 200);
  assert.equal(html.includes('id="file-image"'), passive(type), `view page of ${type}`);
}

apiTest("security #1: a part's type is stored normalised and served sandboxed", async (app) => {
  const a = await actor(app, "USER");
  for (const [claimed, type] of EVIL) {
    const res = await uploadWithPartType(app, "x.png", "<script>alert(1)</script>", claimed, {
      ...a.headers,
    });
    assert.equal(res.status, 200, claimed);
    const file = res.body.files[0];
    assert.equal(file.type, type, claimed);
    await assertEveryRoute(app, a, file.id, file.name, type);
  }
});

apiTest("security #1: an anonymous upload to an open folder is served the same", async (app) => {
  const a = await actor(app, "USER");
  const folder = await app.json("POST", "/api/user/folders", { name: "drop" }, a.headers);
  const open = { allowUploads: true };
  await app.json("PATCH", `/api/user/folders/${folder.body.id}`, open, a.headers);
  for (const [claimed, type] of EVIL) {
    const res = await uploadWithPartType(app, "x.svg", "<svg/>", claimed, {
      "x-service-folder": folder.body.id,
    });
    assert.equal(res.status, 200, claimed);
    await assertEveryRoute(app, a, res.body.files[0].id, res.body.files[0].name, type);
  }
});

apiTest(
  "security #1: PATCH refuses a type that does not parse and normalises one that does",
  async (app) => {
    const a = await actor(app, "USER");
    const { id, name } = await uploadOne(app, a.headers, "<svg/>", "x.txt", "text/plain");
    for (const [claimed, type] of EVIL) {
      const res = await app.json("PATCH", `/api/user/files/${id}`, { type: claimed }, a.headers);
      if (type === "application/octet-stream") {
        assert.deepEqual(res.body, { error: "type: invalid file type", statusCode: 400 }, claimed);
        const after = await app.json("GET", `/api/user/files/${id}`, undefined, a.headers);
        assert.notEqual(after.body.type, claimed, "nothing was changed");
        continue;
      }
      assert.equal(res.status, 200, claimed);
      assert.equal(res.body.type, type);
      await assertEveryRoute(app, a, id, name, type);
    }
  },
);

apiTest("security #1: an import normalises the types of Zipline's files", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "admin");
  const doc = await fixtureV4();
  // Files of maria's (imported as a new user): design-v3.png, m9ZrA1.jpg, report-q1.pdf.
  const files = [3, 4, 2].map((i) => doc.data.files[i]);
  files.forEach((f, i) => (f.type = EVIL[i][0]));
  doc.data.files[2].password = null;
  for (const f of files) {
    await app.services.datasource.put(
      f.name,
      ReadableStream.from([new TextEncoder().encode("<b/>")]),
    );
  }
  const res = await importDoc(app, "v4", doc, admin.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const maria = await app.services.store.users.getByUsername("maria");
  const owner = { user: maria!, headers: admin.headers };
  for (const [i, f] of files.entries()) {
    const stored = await app.services.store.files.getByName(f.name);
    assert.equal(stored?.type, EVIL[i][1], f.name);
    await assertEveryRoute(app, owner, stored!.id, f.name, EVIL[i][1]);
  }
});

apiTest("security #1: a type stored before the check is normalised when served", async (app) => {
  const a = await actor(app, "USER");
  const { id, name } = await uploadOne(app, a.headers, "<svg/>", "x.svg", "image/svg+xml");
  for (const [claimed, type] of EVIL) {
    await app.services.store.files.update(id, { type: claimed }, new Date(app.clock.now()));
    await assertEveryRoute(app, a, id, name, type);
  }
});
