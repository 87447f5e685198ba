/**
 * Uploaded scripts never run on the dashboard's origin (issue #30, item 12):
 * the pages run only the script tags that carry their response's nonce, and
 * every route that serves a file's bytes sends an active type (JavaScript,
 * CSS, HTML, SVG, XML) as plain text with `nosniff`, for this origin only
 * (`Cross-Origin-Resource-Policy: same-origin`), while images, video and
 * plain text keep their type and may be embedded anywhere.
 */
import assert from "node:assert/strict";
import { fastRaw } from "../../routes/fast_raw.ts";
import { finishing } from "../../routes/front_door.ts";
import { apiTest, sessionCookie, type TestApp } from "../helpers/app.ts";
import { uploadOne } from "../helpers/files.ts";
import { redSquare } from "../helpers/images.ts";
import { type Actor, actor } from "../helpers/users.ts";

/** Files a browser would run or apply, by name and claimed type, and the type each is sent as. */
const ACTIVE: [string, string, string][] = [
  ["evil.js", "text/javascript", "text/plain; charset=utf-8"],
  ["evil.mjs", "application/javascript", "text/plain; charset=utf-8"],
  ["evil2.js", "application/x-javascript", "text/plain; charset=utf-8"],
  ["evil.css", "text/css", "text/plain; charset=utf-8"],
  ["evil.html", "text/html", "text/plain; charset=utf-8"],
  ["latin.html", "text/html; charset=iso-8859-1", "text/plain; charset=iso-8859-1"],
  ["evil.svg", "image/svg+xml", "text/plain; charset=utf-8"],
  ["evil.xml", "application/xml", "text/plain; charset=utf-8"],
  ["evil.xhtml", "application/xhtml+xml", "text/plain; charset=utf-8"],
  ["evil.xsl", "text/xsl", "text/plain; charset=utf-8"],
];

/** Asserts the answer of a GET of `path` sends an active file as inert, same-origin text. */
async function assertInert(res: Response, sent: string, what: string) {
  assert.equal(res.status, 200, what);
  await res.body?.cancel();
  assert.equal(res.headers.get("content-type"), sent, what);
  assert.equal(res.headers.get("x-content-type-options"), "nosniff", what);
  assert.equal(res.headers.get("cross-origin-resource-policy"), "same-origin", what);
  assert.match(res.headers.get("content-disposition") ?? "", /^attachment;/, what);
  assert.match(res.headers.get("content-security-policy") ?? "", /^sandbox;/, what);
}

/** Every route that serves `file`'s bytes (the files route only for a type it does not page). */
function byteRoutes(file: { id: string; name: string }, type: string, owner: Actor) {
  const name = encodeURIComponent(file.name);
  const routes: [string, Record<string, string>][] = [
    [`/raw/${name}`, {}],
    [`/raw/${name}?download=false`, {}],
    [`/api/user/files/${file.id}/raw`, owner.headers],
  ];
  if (!type.startsWith("text/")) routes.push([`/u/${name}`, {}]);
  return routes;
}

apiTest(
  "security #30.12: /raw and every byte route send JavaScript, CSS, HTML, SVG and XML as plain text, nosniff, same-origin",
  async (app) => {
    const alice = await actor(app, "USER");
    const fast = fastRaw(app.services, finishing(app.services, false), () => {
      throw new Error("the fast path handed the request back");
    });
    for (const [name, type, sent] of ACTIVE) {
      const file = await uploadOne(app, alice.headers, "<script>alert(1)</script>", name, type);
      for (const [path, headers] of byteRoutes(file, type, alice)) {
        await assertInert(await app.request(path, { headers }), sent, `${path} (${type})`);
      }
      // The fast path, once the record is cached, answers the same.
      const cached = fast(new Request(`http://ferry.test/raw/${encodeURIComponent(file.name)}`));
      assert.ok(cached, `${name}: the fast path answers`);
      await assertInert(await cached, sent, `fast /raw (${type})`);
      const head = await app.request(`/raw/${encodeURIComponent(file.name)}`, { method: "HEAD" });
      assert.equal(head.headers.get("content-type"), sent, `HEAD ${name}`);
      assert.equal(head.headers.get("cross-origin-resource-policy"), "same-origin");
    }
  },
);

apiTest(
  "security #30.12: images, video and plain text keep their type and may be embedded by any site",
  async (app) => {
    const alice = await actor(app, "USER");
    const passive: [string, string | Uint8Array, string, string][] = [
      ["red.png", redSquare(8), "image/png", "image/png"],
      ["clip.mp4", "not really a video", "video/mp4", "video/mp4"],
      ["notes.txt", "hello", "text/plain", "text/plain; charset=utf-8"],
    ];
    for (const [name, content, type, sent] of passive) {
      const file = await uploadOne(app, alice.headers, content, name, type);
      const res = await app.request(`/raw/${file.name}`);
      await res.body?.cancel();
      assert.equal(res.status, 200, name);
      assert.equal(res.headers.get("content-type"), sent, name);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff", name);
      assert.equal(res.headers.get("cross-origin-resource-policy"), "cross-origin", name);
      assert.match(res.headers.get("content-disposition") ?? "", /^inline;/, name);
      assert.equal(res.headers.get("content-security-policy"), null, name);
    }
    // Unknown bytes: an attachment, for this origin only, with their own type.
    const zip = await uploadOne(app, alice.headers, "PK", "a.zip", "application/zip");
    const res = await app.request(`/raw/${zip.name}`);
    await res.body?.cancel();
    assert.equal(res.headers.get("content-type"), "application/zip");
    assert.equal(res.headers.get("cross-origin-resource-policy"), "same-origin");
  },
);

/** The pages that may play an asciinema recording, whose player compiles WebAssembly. */
const WASM_PAGES = ["/dashboard/files"];

/**
 * The nonce of a page's `script-src`, asserting the policy runs nothing else
 * (compiling WebAssembly, not running script, only where a recording may play).
 */
function nonceOf(res: Response, what: string): string {
  const csp = res.headers.get("content-security-policy") ?? "";
  const scripts = csp.split(";").map((d) => d.trim()).find((d) => d.startsWith("script-src"));
  const match = /^script-src 'nonce-([A-Za-z0-9_-]{22})' 'strict-dynamic'( 'wasm-unsafe-eval')?$/
    .exec(scripts ?? "");
  assert.ok(match, `${what}: only the nonce runs scripts, not 'self': ${csp}`);
  assert.ok(!match[2] || WASM_PAGES.includes(what), `${what}: compiles WebAssembly: ${csp}`);
  return match[1];
}

/** Asserts every `<script>` of `html` carries `nonce`, and there is at least one. */
function assertTagsCarry(html: string, nonce: string, what: string) {
  const tags = html.match(/<script\b[^>]*>/g) ?? [];
  assert.ok(tags.length > 0, `${what}: a script tag`);
  for (const tag of tags) assert.ok(tag.includes(`nonce="${nonce}"`), `${what}: ${tag}`);
}

/** The pages to check: anonymous ones, signed-in ones (with `cookie`) and the API reference. */
async function pages(app: TestApp, cookie: string): Promise<[string, Record<string, string>][]> {
  const alice = await actor(app, "USER", "bob");
  const file = await uploadOne(app, alice.headers, redSquare(8), "red.png", "image/png");
  const url = await app.json("POST", "/api/user/urls", {
    destination: "https://example.com/",
  }, { ...alice.headers, "x-service-password": "pw" });
  const folder = await app.json("POST", "/api/user/folders", { name: "f", isPublic: true }, {
    ...alice.headers,
  });
  return [
    ["/auth/login", {}],
    ["/auth/register", {}],
    [`/view/${file.name}`, {}],
    ["/view/nothing-here", {}],
    [`/view/url/${url.body.id}`, {}],
    [`/folder/${folder.body.id}`, {}],
    ["/dashboard", { cookie }],
    ["/dashboard/files", { cookie }],
    ["/dashboard/security", { cookie }],
    ["/dashboard/admin/settings", { cookie }],
    ["/api/docs", {}],
  ];
}

apiTest(
  "security #30.12: every page's CSP runs scripts by a fresh nonce that its script tags carry, not by 'self'",
  async (app) => {
    await actor(app, "SUPERADMIN", "admin");
    const login = await app.json("POST", "/api/auth/login", {
      username: "admin",
      password: "password",
    });
    const cookie = sessionCookie(login.headers);
    const seen = new Set<string>();
    for (const [path, headers] of await pages(app, cookie)) {
      for (let i = 0; i < 2; i++) {
        const res = await app.request(path, { headers });
        assert.ok([200, 404].includes(res.status), `${path}: ${res.status}`);
        const nonce = nonceOf(res, path);
        assertTagsCarry(await res.text(), nonce, path);
        assert.ok(!seen.has(nonce), `${path}: a nonce is never reused`);
        seen.add(nonce);
      }
    }
  },
);
