/**
 * A file's page, `/view/<name>` (server-rendered, strict CSP), and the public
 * routes that lead there: the files route sends a password-protected file to
 * its page, and `/r/<name>` is a permanent redirect to `/raw/<name>`.
 */
import assert from "node:assert/strict";
import { apiTest } from "../helpers/app.ts";
import { uploadFiles, uploadOne } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";

const get = (
  app: { request: (p: string, i?: RequestInit) => Promise<Response> },
  path: string,
  cookie?: string,
) => app.request(path, { redirect: "manual", headers: cookie ? { cookie } : {} });

apiTest(
  "view: a file's page shows it, its name, size and views, and counts no view",
  async (app) => {
    const a = await actor(app, "USER");
    const res = await uploadFiles(app, [
      { name: "cat & dog.png", content: new Uint8Array(2048), type: "image/png" },
      { name: "clip.mp4", content: "v", type: "video/mp4" },
      { name: "tune.mp3", content: "a", type: "audio/mpeg" },
      { name: "notes.txt", content: "hello", type: "text/plain" },
      { name: "data.zip", content: "z", type: "application/zip" },
      { name: "draw.svg", content: "<svg/>", type: "image/svg+xml" },
    ], { ...a.headers, "x-service-original-name": "true", "x-service-max-views": "5" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [png, mp4, mp3, txt, zip, svg] = res.body.files;

    const page = await get(app, `/view/${encodeURIComponent(png.name)}`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type")!, /^text\/html/);
    const csp = page.headers.get("content-security-policy")!;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-[\w-]{22}' 'strict-dynamic'(;|$)/);
    assert.match(csp, /media-src 'self'/);
    const html = await page.text();
    assert.match(html, new RegExp(`<img id="file-image" src="/raw/${png.name}"`));
    assert.match(html, /<h1 id="file-name">cat &amp; dog\.png<\/h1>/, "the original name, escaped");
    assert.match(html, /<dd id="file-size">2\.0 KB<\/dd>/);
    assert.match(html, /<dd id="file-views">0 of 5<\/dd>/);
    assert.match(html, new RegExp(`href="/raw/${png.name}\\?download=true"`));
    assert.doesNotMatch(html, /<script>|style=/);
    assert.doesNotMatch(html, /text_view/, "the text page's script loads with text files only");

    const kinds: [string, RegExp][] = [
      [mp4.name, /<video id="file-video" src="\/raw\/[^"]+" controls/],
      [mp3.name, /<audio id="file-audio" src="\/raw\/[^"]+" controls/],
      [
        txt.name,
        /<div id="text-preview" data-src="\/raw\/[^"]+" data-limit="262144" data-name="[^"]+" data-type="text\/plain"/,
      ],
      [txt.name, /<script type="module" src="\/assets\/text_view\.[0-9a-f]{12}\.js" nonce="/],
      [txt.name, /<a id="file-raw" class="button" href="\/raw\/[^"]+">Raw<\/a>/],
      [zip.name, /No preview for this kind of file/],
      [svg.name, /No preview for this kind of file/],
    ];
    for (const [name, pattern] of kinds) {
      assert.match(
        await (await get(app, `/view/${name}`)).text(),
        pattern,
        name,
      );
    }

    const record = await app.json("GET", `/api/user/files/${png.id}`, undefined, a.headers);
    assert.equal(record.body.views, 0, "the page itself counts no view");
  },
);

apiTest("view: missing, expired and used-up files answer the not-found page", async (app) => {
  const a = await actor(app, "USER");
  const expiring = await uploadOne(app, { ...a.headers, "x-service-deletes-at": "1m" });
  const once = await uploadOne(app, { ...a.headers, "x-service-max-views": "1" });
  await (await app.request(`/raw/${once.name}`)).body?.cancel();
  app.clock.advance(61_000);
  for (const name of ["missing.txt", expiring.name, once.name]) {
    const res = await get(app, `/view/${name}`);
    assert.equal(res.status, 404, name);
    assert.match(res.headers.get("content-type")!, /^text\/html/);
    assert.match(res.headers.get("content-security-policy")!, /default-src 'none'/);
    assert.match(await res.text(), /File not found/);
  }
  assert.equal(await app.services.store.files.get(expiring.id), null, "the expired one is removed");
});

apiTest("view: a protected file asks for its password; its cookie opens the page", async (app) => {
  const a = await actor(app, "USER");
  const file = await uploadOne(app, { ...a.headers, "x-service-password": "hunter2" });

  // The files route sends it to its page; /raw keeps answering 403 JSON.
  const routed = await get(app, `/u/${file.name}`);
  assert.equal(routed.status, 302);
  assert.equal(routed.headers.get("location"), `/view/${file.name}`);
  assert.equal((await get(app, `/raw/${file.name}`)).status, 403);

  const locked = await get(app, `/view/${file.name}`);
  assert.equal(locked.status, 200);
  const html = await locked.text();
  assert.match(
    html,
    new RegExp(`<form id="file-password-form" class="card" data-file="${file.id}">`),
  );
  assert.doesNotMatch(html, /\/raw\//, "no link to the bytes before the password");

  const grant = await app.json("POST", `/api/user/files/${file.id}/password`, {
    password: "hunter2",
  });
  const cookie = grant.headers.getSetCookie()[0].split(";")[0];
  const open = await (await get(app, `/view/${file.name}`, cookie)).text();
  assert.match(open, /<div id="text-preview" data-src="\/raw\//);
  assert.doesNotMatch(open, /file-password-form/);
  // A text file goes to its page whatever the cookie; an owner who turned text pages off has
  // its bytes served by the files route, which then asks for the cookie or ?pw=.
  assert.equal((await get(app, `/u/${file.name}`, cookie)).status, 302);
  const off = await app.json("PATCH", "/api/user", { view: { disableTextFiles: true } }, a.headers);
  assert.equal(off.status, 200);
  const viaRoute = await get(app, `/u/${file.name}`, cookie);
  assert.equal(viaRoute.status, 200, "with the cookie the files route serves it");
  assert.equal(await viaRoute.text(), "hello ferry");
  const legacy = await get(app, `/u/${file.name}?pw=hunter2`);
  assert.equal(await legacy.text(), "hello ferry", "?pw= links keep working");

  app.clock.advance(61_000);
  assert.match(await (await get(app, `/view/${file.name}`, cookie)).text(), /file-password-form/);
  assert.equal((await get(app, `/u/${file.name}`, cookie)).status, 302);
  const wrong = await get(app, `/u/${file.name}?pw=nope`);
  assert.equal(wrong.status, 403, "a wrong ?pw= is refused, not sent to the page");
});

apiTest("/r/<name> is a permanent redirect to /raw/<name>", async (app) => {
  const a = await actor(app, "USER");
  const file = await uploadOne(app, a.headers, "bytes", "a b.txt", "text/plain");
  await app.json("PATCH", `/api/user/files/${file.id}`, { name: "a b.txt" }, a.headers);
  const res = await get(app, "/r/a%20b.txt");
  assert.equal(res.status, 301);
  assert.equal(res.headers.get("location"), "/raw/a%20b.txt");
  const served = await app.request(res.headers.get("location")!);
  assert.equal(await served.text(), "bytes");
  assert.equal((await get(app, "/r/")).status, 404);
  assert.equal((await get(app, "/r/a/b")).status, 404);
});

apiTest(
  "view: a file's page carries the owner's embed as OpenGraph and Twitter card tags",
  async (app) => {
    const a = await actor(app, "USER", "alice");
    const file = await uploadOne(app, a.headers, new Uint8Array(64), "cat.png", "image/png");
    const name = file.name;
    const before = await (await get(app, `/view/${name}`)).text();
    assert.doesNotMatch(before, /og:title/, "no card while the owner's embeds are off");

    const patched = await app.json("PATCH", "/api/user", {
      view: {
        embed: true,
        embedTitle: "{file.name} by {user.username}",
        embedDescription: "{file.size}, seen {file.views} times",
        embedSiteName: "Alice's files",
        embedColor: "#ff8800",
      },
    }, a.headers);
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const html = await (await get(app, `/view/${name}`)).text();
    assert.match(html, new RegExp(`<meta property="og:title" content="${name} by alice"/>`));
    assert.match(html, /<meta property="og:description" content="64 B, seen 0 times"\/>/);
    assert.match(html, /<meta property="og:site_name" content="Alice&#39;s files"\/>/);
    assert.match(html, /<meta name="theme-color" content="#ff8800"\/>/);
    assert.match(
      html,
      new RegExp(`<meta property="og:image" content="http://[^"]+/raw/${name}"/>`),
    );
    assert.match(html, /<meta name="twitter:card" content="summary_large_image"\/>/);

    await app.json(
      "PATCH",
      `/api/user/files/${file.id}`,
      { password: "pw" },
      a.headers,
    );
    const locked = await (await get(app, `/view/${name}`)).text();
    assert.doesNotMatch(locked, /og:/, "a protected file shows nothing in a card");
  },
);

apiTest(
  "view: the owner's view settings draw the type, tags, folder and their own text, aligned",
  async (app) => {
    const a = await actor(app, "USER");
    const named = { ...a.headers, "x-service-original-name": "true" };
    const file = await uploadOne(app, named, new Uint8Array(8), "*big* [day].png", "image/png");
    const page = async () => await (await get(app, `/view/${file.name}`)).text();

    // Nothing chosen: neither the type nor labels nor a text (Zipline shows none by default).
    const plain = await page();
    assert.doesNotMatch(plain, /id="file-type"|id="file-labels"|id="view-content"/);

    const tag = await app.json("POST", "/api/user/tags", { name: "trip", color: "#ff0000" }, {
      ...a.headers,
    });
    assert.equal(tag.status, 200, JSON.stringify(tag.body));
    await app.json("PATCH", `/api/user/files/${file.id}`, { tags: [tag.body.id] }, a.headers);
    const folder = await app.json(
      "POST",
      "/api/user/folders",
      { name: "holidays", isPublic: true },
      {
        ...a.headers,
      },
    );
    await app.json("PUT", `/api/user/folders/${folder.body.id}`, { id: file.id }, a.headers);
    const content = [
      "**{file.originalName}** by {user.username}, {file.size}",
      "",
      "[raw]({link.raw}) [page]({link.returned}) {file.nothing}",
      "<script>window.pwned = 1</script>",
    ].join("\n");
    const patched = await app.json("PATCH", "/api/user", {
      view: { showMimetype: true, showTags: true, showFolder: true, align: "center", content },
    }, a.headers);
    assert.equal(patched.status, 200, JSON.stringify(patched.body));

    const html = await page();
    assert.match(html, /<dd id="file-type">image\/png<\/dd>/);
    assert.match(html, /<ul id="file-labels" class="file-labels" aria-label="Tags and folder">/);
    assert.match(html, /<circle cx="5" cy="5" r="5" fill="#ff0000"[^>]*>(<\/circle>)?<\/svg>trip</);
    assert.match(html, new RegExp(`Folder: <a href="/folder/${folder.body.id}">holidays</a>`));
    const shown =
      /<div id="view-content" class="view-content markdown align-center">([\s\S]*?)<\/div>/
        .exec(html)?.[1] ?? "";
    assert.match(
      shown,
      new RegExp(`<strong>\\*big\\* \\[day\\]\\.png</strong> by ${a.user.username}, 8 B`),
      "the name's Markdown is escaped",
    );
    assert.match(shown, new RegExp(`<a href="http://ferry.test/raw/${file.name}"[^>]*>raw</a>`));
    assert.match(shown, new RegExp(`<a href="http://ferry.test/u/${file.name}"[^>]*>page</a>`));
    assert.match(shown, /\{file\.nothing\}/, "an unknown placeholder stays as written");
    assert.match(shown, /&#60;script&#62;window/, "raw HTML is shown as text");
    assert.doesNotMatch(html, /<script>window/);

    // A folder whose page is not public is named, not linked; settings off hide it all again.
    await app.json("PATCH", `/api/user/folders/${folder.body.id}`, { isPublic: false }, a.headers);
    assert.match(await page(), /Folder: holidays<\/li>/);
    await app.json("PATCH", "/api/user", {
      view: { showMimetype: false, showTags: false, showFolder: false, content: "" },
    }, a.headers);
    assert.doesNotMatch(await page(), /id="file-type"|id="file-labels"|id="view-content"/);
  },
);

apiTest("view: a TeX file and an asciinema recording get the page's script", async (app) => {
  const a = await actor(app, "USER");
  const res = await uploadFiles(app, [
    { name: "sum.tex", content: "\\sum_{i=1}^n i", type: "text/x-tex" },
    {
      name: "demo.cast",
      content: '{"version": 2, "width": 80, "height": 24}\n',
      type: "application/x-asciicast",
    },
  ], a.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [tex, cast] = res.body.files;

  const texPage = await get(app, `/view/${tex.name}`);
  const texHtml = await texPage.text();
  assert.match(texHtml, /<div id="text-preview" data-src="\/raw\/[^"]+" data-limit="262144"/);
  assert.match(texHtml, /<script type="module" src="\/assets\/text_view\.[0-9a-f]{12}\.js"/);
  assert.match(texPage.headers.get("content-security-policy")!, /font-src 'self'/);
  assert.match(
    texPage.headers.get("content-security-policy")!,
    /script-src 'nonce-[\w-]{22}' 'strict-dynamic'(;|$)/,
    "no WebAssembly where no recording plays",
  );

  const castPage = await get(app, `/view/${cast.name}`);
  const castHtml = await castPage.text();
  assert.match(castHtml, /<div id="cast-player" class="cast-view" data-src="\/raw\/[^"]+"/);
  assert.match(castHtml, /text_view\.[0-9a-f]{12}\.js/);
  assert.doesNotMatch(castHtml, /id="file-raw"/);
  assert.match(
    castPage.headers.get("content-security-policy")!,
    /script-src 'nonce-[\w-]{22}' 'strict-dynamic' 'wasm-unsafe-eval'(;|$)/,
    "the player's terminal is WebAssembly",
  );
});

apiTest(
  "view: KaTeX's stylesheet and fonts and the player's stylesheet come from Ferry",
  async (app) => {
    const css = await app.request("/assets/katex.css");
    assert.equal(css.status, 200);
    assert.match(css.headers.get("content-type")!, /^text\/css/);
    const text = await css.text();
    const fonts = [...text.matchAll(/url\(([^)]+)\)/g)].map((m) => m[1]);
    assert.equal(fonts.length, 20, "one WOFF2 file per font, nothing else");
    for (const font of fonts) assert.match(font, /^\/assets\/KaTeX_[\w-]+\.[0-9a-f]{12}\.woff2$/);
    const font = await app.request(fonts[0]);
    assert.equal(font.status, 200);
    assert.equal(font.headers.get("content-type"), "font/woff2");
    assert.match(font.headers.get("cache-control")!, /immutable/);
    assert.equal(new TextDecoder().decode((await font.bytes()).slice(0, 4)), "wOF2");
    const player = await app.request("/assets/asciinema-player.css");
    assert.equal(player.status, 200);
    assert.match(await player.text(), /\.ap-wrapper/);
    assert.equal((await app.request("/assets/KaTeX_Nothing.0123456789ab.woff2")).status, 404);
  },
);
