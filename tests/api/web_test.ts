/** The pages for people (routes/web/): redirects, the session they need, headers and escaping. */
import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { clientFromUserAgent, SESSION_COOKIE, startSession } from "../../core/sessions.ts";
import { createUser } from "../../core/users.ts";
import { apiTest, sessionCookie, type TestApp } from "../helpers/app.ts";
import { actor } from "../helpers/users.ts";

async function signIn(app: TestApp, username: string): Promise<string> {
  const res = await app.json("POST", "/api/auth/login", { username, password: "password" });
  return sessionCookie(res.headers);
}

const location = (res: Response) => res.headers.get("location");

apiTest("/ and the dashboard pages send an anonymous visitor to sign in", async (app) => {
  await actor(app, "SUPERADMIN", "root");
  for (const path of ["/", "/dashboard", "/dashboard/security"]) {
    const res = await app.request(path);
    assert.equal(res.status, 302, path);
    assert.equal(location(res), "/auth/login", path);
  }
  const login = await app.request("/auth/login");
  assert.equal(login.status, 200);
  const csp = login.headers.get("content-security-policy") ?? "";
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'nonce-[\w-]{22}' 'strict-dynamic'(;|$)/);
  assert.doesNotMatch(await login.text(), /<script>|style=|passkey-login/);
});

apiTest(
  "a signed-in user sees the dashboard, escaped, and is sent there from / and the login page",
  async (app) => {
    await actor(app, "USER", "<b>al&ce</b>");
    const cookie = await signIn(app, "<b>al&ce</b>");
    for (const path of ["/", "/auth/login"]) {
      const res = await app.request(path, { headers: { cookie } });
      assert.equal(location(res), "/dashboard", path);
    }
    const dashboard = await app.request("/dashboard", { headers: { cookie } });
    assert.equal(dashboard.status, 200);
    const html = await dashboard.text();
    assert.match(html, /<span class="who" id="signed-in-as">&lt;b&gt;al&amp;ce&lt;\/b&gt;<\/span>/);
    assert.match(html, /<span class="visually-hidden">Account menu of<\/span>/);
    assert.equal(dashboard.headers.get("cache-control"), "no-store");
  },
);

apiTest("the security page is a dashboard page; what it offers follows the server", async (app) => {
  await actor(app, "USER", "alice");
  const cookie = await signIn(app, "alice");
  const html = await (await app.request("/dashboard/security", { headers: { cookie } })).text();
  assert.match(html, /<div id="app" data-page="security" data-config="/);
  // The page (client/pages/security.tsx) reads which second factors are on from here.
  const web = async () =>
    (await app.json("GET", "/api/server/settings/web", undefined, { cookie })).body.config.mfa;
  assert.deepEqual(
    [(await web()).totp.enabled, (await web()).passkeys],
    [false, false],
  );

  await app.services.store.settings.update({
    mfaTotpEnabled: true,
    mfaPasskeysEnabled: true,
    mfaPasskeysRpID: "ferry.test",
    mfaPasskeysOrigin: "http://ferry.test",
  });
  await app.services.settings.reload();
  assert.deepEqual([(await web()).totp.enabled, (await web()).passkeys], [true, true]);
  const login = await (await app.request("/auth/login")).text();
  assert.match(login, /Sign in with a passkey/);
});

apiTest("security #4: the page knows whether the user has a password to ask for", async (app) => {
  await actor(app, "USER", "alice");
  const config = async (cookie: string) => {
    const html = await (await app.request("/dashboard/security", { headers: { cookie } })).text();
    const raw = /data-config="([^"]*)"/.exec(html)![1].replaceAll("&quot;", '"')
      .replaceAll("&amp;", "&");
    return JSON.parse(raw);
  };
  assert.equal((await config(await signIn(app, "alice"))).user.hasPassword, true);
  const user = await createUser(app.services, { username: "nopass", password: null, role: "USER" });
  const { secret } = await startSession(app.services, user, clientFromUserAgent(""), "passkey");
  assert.equal(
    (await config(`${SESSION_COOKIE}=${secret}`)).user.hasPassword,
    false,
    "no password, nothing to type",
  );
  const js = await (await app.request("/assets/ferry.js")).text();
  assert.match(
    js,
    /api\("POST", "\/api\/auth\/logout"\)/,
    "security #9: the menu logs out by POST",
  );
});

apiTest("the page script and stylesheet are served by Ferry", async (app) => {
  const js = await app.request("/assets/ferry.js");
  assert.equal(js.status, 200);
  assert.match(js.headers.get("content-type") ?? "", /^text\/javascript/);
  assert.match(await js.text(), /navigator\.credentials\.get/, "the passkey sign-in");
  const css = await app.request("/assets/ferry.css");
  assert.match(css.headers.get("content-type") ?? "", /^text\/css/);
  await css.body?.cancel();
  assert.equal((await app.request("/assets/nope.js")).status, 404);
});

apiTest(
  "dashboard pages link their assets by content hash, cached for good and gzipped",
  async (app) => {
    await actor(app, "USER", "alice");
    const cookie = await signIn(app, "alice");
    const html = await (await app.request("/dashboard/files", { headers: { cookie } })).text();
    assert.match(html, /<div id="app" data-page="files" data-config="/);
    const paths = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
    assert.equal(paths.length, 5, "base and dashboard script and stylesheet, and the themes");
    let gzipped = 0;
    for (const path of paths) {
      assert.match(path, /^\/assets\/(?:ferry|dashboard|themes)\.[0-9a-f]{12}\.(?:js|css)$/);
      const plain = await app.request(path);
      assert.equal(plain.headers.get("cache-control"), "public, max-age=31536000, immutable");
      const bytes = new Uint8Array(await plain.arrayBuffer());
      const zipped = await app.request(path, { headers: { "accept-encoding": "gzip, br" } });
      assert.equal(zipped.headers.get("content-encoding"), "gzip");
      const body = new Uint8Array(await zipped.arrayBuffer());
      gzipped += body.byteLength;
      assert.deepEqual(new Uint8Array(gunzipSync(body)), bytes);
    }
    assert.ok(gzipped < 150 * 1024, `a first load is ${gzipped} bytes of script and style (gzip)`);
    const plainName = await app.request("/assets/dashboard.js");
    assert.equal(plainName.headers.get("cache-control"), "no-cache");
    await plainName.body?.cancel();
  },
);

apiTest(
  "the dashboard's chunks are served by their hashed names, imported on the first ask",
  async (app) => {
    const entry = await (await app.request("/assets/dashboard.js")).text();
    const chunk = entry.match(/import\("\.\/(home-[\w]+\.js)"\)/)?.[1];
    assert.ok(chunk, "the home page is a chunk dashboard.js imports");
    const res = await app.request(`/assets/${chunk}`, { headers: { "accept-encoding": "gzip" } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(res.headers.get("content-encoding"), "gzip");
    assert.ok(
      new TextDecoder().decode(gunzipSync(new Uint8Array(await res.arrayBuffer()))).length > 0,
    );
    // A name shaped like a chunk's that is none is still a 404.
    assert.equal((await app.request("/assets/home-ZZZZZZZZ.js")).status, 404);
  },
);

apiTest("dashboard pages send a signed-out visitor to the login page", async (app) => {
  await actor(app, "SUPERADMIN", "root");
  for (const path of ["/dashboard", "/dashboard/upload", "/dashboard/files"]) {
    const res = await app.request(path);
    assert.equal(res.status, 302, path);
    assert.equal(res.headers.get("location"), "/auth/login");
  }
});

apiTest(
  "robots.txt and the web app manifest follow their settings; the icon is served",
  async (app) => {
    const robots = await app.request("/robots.txt");
    assert.equal(robots.status, 200);
    assert.equal(await robots.text(), "User-agent: *\nDisallow: /\n");
    assert.equal((await app.request("/manifest.json")).status, 404, "pwaEnabled is off by default");

    await app.services.store.settings.update({
      featuresRobotsTxt: false,
      pwaEnabled: true,
      pwaTitle: "Our files",
      pwaThemeColor: "#112233",
    });
    await app.services.settings.reload();
    assert.equal((await app.request("/robots.txt")).status, 404);
    const manifest = await app.request("/manifest.json");
    assert.equal(manifest.headers.get("content-type"), "application/manifest+json");
    const body = await manifest.json();
    assert.equal(body.name, "Our files");
    assert.equal(body.theme_color, "#112233");
    assert.equal(body.start_url, "/dashboard");
    const icon = await app.request(body.icons[0].src);
    assert.equal(icon.headers.get("content-type"), "image/svg+xml");
    assert.match(await icon.text(), /^<svg/);
    for (const path of ["/favicon.svg", "/favicon.ico"]) {
      const favicon = await app.request(path);
      assert.equal(favicon.status, 200, path);
      await favicon.body?.cancel();
    }
  },
);

apiTest(
  "pages wear the website's look: theme, logo, external links, login background",
  async (app) => {
    await actor(app, "SUPERADMIN", "root");
    const plain = await (await app.request("/auth/login")).text();
    assert.match(
      plain,
      /<html lang="en" data-theme-dark="builtin:dark_gray" data-theme-light="builtin:light_gray">/,
      "the system's theme by default, between the server's dark and light themes",
    );

    await app.services.store.settings.update({
      websiteThemeDefault: "builtin:dark_gray",
      websiteTitleLogo: "https://cdn.example/logo.png",
      websiteExternalLinks: [{ name: "Status", url: "https://status.example/" }],
      websiteLoginBackground: "https://images.example/bg.jpg",
      websiteLoginBackgroundBlur: true,
    });
    await app.services.settings.reload();
    const res = await app.request("/auth/login");
    const html = await res.text();
    assert.match(html, /<html lang="en" [^>]*data-theme="builtin:dark_gray"/);
    assert.match(html, /<img class="logo" src="https:\/\/cdn.example\/logo.png" alt=""\/>/);
    assert.match(html, /<a href="https:\/\/status.example\/" rel="noopener">Status<\/a>/);
    assert.doesNotMatch(html, /zipline\.diced\.sh/, "settings' links replace the default ones");
    assert.match(html, /<img class="backdrop blur" src="https:\/\/images.example\/bg.jpg"/);
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, /img-src 'self' data: https:\/\/cdn.example https:\/\/images.example;/);

    const light = await app.request("/auth/login", { headers: { cookie: "ferry_theme=light" } });
    assert.match(
      await light.text(),
      /<html lang="en" [^>]*data-theme="builtin:light_gray"/,
      "the visitor's choice: the server's light theme",
    );
    const system = await app.request("/auth/login", { headers: { cookie: "ferry_theme=system" } });
    assert.doesNotMatch(
      await system.text(),
      /<html[^>]* data-theme=/,
      "the visitor may follow the system",
    );
  },
);

apiTest("an invite link leads to the registration page with its code filled in", async (app) => {
  await actor(app, "SUPERADMIN", "root");
  const link = await app.request("/invite/AbC123");
  assert.equal(link.status, 302);
  assert.equal(location(link), "/auth/register?code=AbC123");
  const page = await app.request(location(link)!);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /<form id="register-form"/);
  assert.match(html, /id="invite" name="code" value="AbC123"/);
  const escaped = await app.request("/auth/register?code=%22%3E%3Cscript%3E");
  assert.doesNotMatch(await escaped.text(), /"><script>/);
});
