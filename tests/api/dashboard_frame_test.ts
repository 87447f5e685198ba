/**
 * The dashboard's frame (issue #33, items 1–4) as the server renders it:
 * first-run setup, the sidebar and user menu, the 404, "not allowed" and
 * error pages, the Register link, the terms of service and the help pages,
 * the avatar, and the themes with the user's preferences.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Theme } from "../../core/themes.ts";
import { apiTest, sessionCookie, type TestApp } from "../helpers/app.ts";
import { redSquare } from "../helpers/images.ts";
import { actor } from "../helpers/users.ts";

const location = (res: Response) => res.headers.get("location");
const HTML = { accept: "text/html,application/xhtml+xml" };

async function signIn(app: TestApp, username: string): Promise<string> {
  const res = await app.json("POST", "/api/auth/login", { username, password: "password" });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return sessionCookie(res.headers);
}

async function settings(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.settings.update(values);
  await app.services.settings.reload();
}

apiTest(
  "dashboard #33.1: a server with no user leads every page to first-run setup",
  async (app) => {
    for (const path of ["/", "/auth/login", "/auth/register", "/dashboard", "/dashboard/files"]) {
      const res = await app.request(path);
      assert.equal(res.status, 302, path);
      assert.equal(location(res), "/auth/setup", path);
    }
    const setup = await app.request("/auth/setup");
    assert.equal(setup.status, 200);
    const html = await setup.text();
    assert.match(html, /<form id="setup-form"/);
    assert.match(html, /minlength="8"/);
    assert.match(html, /id="password-rule"[^>]*>At least 8 characters\.</);
    assert.match(html, /href="\/dashboard\/admin\/transfer"[^>]*>\s*Import from Zipline/);

    // The setup answers with the session: the new account is signed in.
    const done = await app.json("POST", "/api/setup", {
      username: "owner",
      password: "long enough",
    });
    assert.equal(done.status, 200);
    const cookie = sessionCookie(done.headers);
    const dashboard = await app.request("/dashboard", { headers: { cookie } });
    assert.equal(dashboard.status, 200);
    assert.match(await dashboard.text(), /id="signed-in-as">owner</);

    // Afterwards the page is gone: signed in to the dashboard, else to sign in.
    assert.equal(location(await app.request("/auth/setup", { headers: { cookie } })), "/dashboard");
    assert.equal(location(await app.request("/auth/setup")), "/auth/login");
    assert.equal(location(await app.request("/")), "/auth/login");
    assert.equal((await app.request("/auth/login")).status, 200);
  },
);

apiTest(
  "dashboard #33.2: the shell has a sidebar with icons, the Administration group by role, the " +
    "user menu and the version",
  async (app) => {
    await actor(app, "USER", "ursula");
    await actor(app, "SUPERADMIN", "root");
    const user = await (await app.request("/dashboard/files", {
      headers: { cookie: await signIn(app, "ursula") },
    })).text();
    assert.match(user, /<aside id="sidebar" class="sidebar">/);
    for (const label of ["Home", "File", "Text", "Files", "URLs", "Folders", "Tags"]) {
      assert.match(user, new RegExp(`<svg[^>]*class="icon"[^>]*>.*?</svg><span>${label}</span>`));
    }
    assert.match(user, /<a href="\/dashboard\/files" aria-current="page">/);
    assert.match(user, /<h2 class="nav-heading" id="nav-group-1">Upload<\/h2>/);
    assert.doesNotMatch(user, /aria-label="Administration"/, "a USER has no administration");
    assert.match(user, /<button type="button" id="logout" class="menu-item">/);
    assert.match(user, /href="\/dashboard\/security"/);
    assert.match(user, /<span class="version-tag">v0\.0\.0-test<\/span>/);
    assert.match(user, /<button[^>]*id="menu-toggle"[^>]*aria-controls="sidebar"/);

    const admin = await (await app.request("/dashboard", {
      headers: { cookie: await signIn(app, "root") },
    })).text();
    assert.match(admin, /<nav aria-label="Administration" class="nav-group">/);
    for (const label of ["Users", "Server settings", "Audit trail", "Import and export"]) {
      assert.match(admin, new RegExp(`<span>${label}</span>`), label);
    }
  },
);

apiTest(
  "dashboard row 81: Invites are an Administration item and page of their own while invites " +
    "are on; a USER is not allowed there, and with invites off it is no page",
  async (app) => {
    await actor(app, "USER", "ursula");
    await actor(app, "ADMIN", "ada");
    const admin = await signIn(app, "ada");
    const item =
      /<a href="\/dashboard\/admin\/invites"[^>]*><svg[^>]*class="icon"[^>]*>.*?<\/svg><span>Invites<\/span>/;
    const home = await (await app.request("/dashboard", { headers: { cookie: admin } })).text();
    assert.match(home, item);
    assert.ok(
      home.indexOf("<span>Invites</span>") > home.indexOf('aria-label="Administration"'),
      "in the Administration group",
    );
    const invites = await app.request("/dashboard/admin/invites", { headers: { cookie: admin } });
    assert.equal(invites.status, 200);
    const html = await invites.text();
    assert.match(html, /data-page="invites"/);
    assert.match(html, /<a href="\/dashboard\/admin\/invites" aria-current="page">/);
    const tags = await (await app.request("/dashboard/tags", { headers: { cookie: admin } }))
      .text();
    assert.match(tags, /data-page="tags"/);

    const user = await signIn(app, "ursula");
    const userHome = await (await app.request("/dashboard", { headers: { cookie: user } })).text();
    assert.doesNotMatch(userHome, /\/dashboard\/admin\/invites/);
    const refused = await app.request("/dashboard/admin/invites", { headers: { cookie: user } });
    assert.equal(refused.status, 403);
    await refused.body?.cancel();

    await settings(app, { invitesEnabled: false });
    const off = await (await app.request("/dashboard", { headers: { cookie: admin } })).text();
    assert.doesNotMatch(off, /\/dashboard\/admin\/invites/);
    assert.match(off, /<span>Users<\/span>/);
    const gone = await app.request("/dashboard/admin/invites", { headers: { cookie: admin } });
    assert.equal(gone.status, 404);
    assert.match(await gone.text(), /Page not found/);
  },
);

apiTest(
  "dashboard #33.2: an unknown dashboard page, an administrator's page opened by a USER and " +
    "a failing page are pages in the frame, never a JSON body",
  async (app) => {
    await actor(app, "USER", "ursula");
    const cookie = await signIn(app, "ursula");
    const missing = await app.request("/dashboard/nope", { headers: { cookie } });
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get("content-type") ?? "", /^text\/html/);
    const missingHtml = await missing.text();
    assert.match(missingHtml, /<h1 id="problem-title">Page not found<\/h1>/);
    assert.match(missingHtml, /id="sidebar"/, "in the signed-in shell");
    assert.match(missing.headers.get("content-security-policy") ?? "", /default-src 'none'/);

    const anonymous = await app.request("/dashboard/also/missing");
    assert.equal(anonymous.status, 404);
    const anonymousHtml = await anonymous.text();
    assert.match(anonymousHtml, /Page not found/);
    assert.match(anonymousHtml, /href="\/auth\/login"/);
    assert.equal((await app.request("/auth/nothing-here")).status, 404);

    const forbidden = await app.request("/dashboard/admin/users", { headers: { cookie } });
    assert.equal(forbidden.status, 403);
    assert.match(await forbidden.text(), /<h1 id="problem-title">Not allowed<\/h1>/);

    await settings(app, { featuresMetricsAdminOnly: true });
    const adminOnly = await app.request("/dashboard/stats", { headers: { cookie } });
    assert.equal(adminOnly.status, 403);
    await adminOnly.body?.cancel();
    await settings(app, { featuresMetricsEnabled: false });
    const off = await app.request("/dashboard/stats", { headers: { cookie } });
    assert.equal(off.status, 404);
    assert.match(await off.text(), /Page not found/);

    // A page whose work fails: the error page for a browser, the JSON body for a script.
    const users = app.services.store.users;
    const any = users.any;
    users.any = () => Promise.reject(new Error("the disk is on fire"));
    try {
      const page = await app.request("/", { headers: HTML });
      assert.equal(page.status, 500);
      const html = await page.text();
      assert.match(html, /<h1 id="problem-title">Something went wrong<\/h1>/);
      assert.doesNotMatch(html, /on fire/, "the cause stays in the log");
      const script = await app.request("/");
      assert.equal(script.status, 500);
      assert.deepEqual(await script.json(), { error: "Internal Server Error", statusCode: 500 });
    } finally {
      users.any = any;
    }
  },
);

apiTest(
  "dashboard #33.2: the sign-in page links to Register only while registration is open",
  async (app) => {
    await actor(app, "SUPERADMIN", "root");
    const closed = await (await app.request("/auth/login")).text();
    assert.doesNotMatch(closed, /href="\/auth\/register"/);
    await settings(app, { featuresUserRegistration: true });
    const open = await (await app.request("/auth/login")).text();
    assert.match(open, /No account yet\? <a href="\/auth\/register">Register<\/a>/);
  },
);

apiTest(
  "dashboard #33.2: the terms of service are their own page, rendered from Markdown without " +
    "script, raw HTML or unsafe links",
  async (app) => {
    await actor(app, "SUPERADMIN", "root");
    assert.equal((await app.request("/auth/tos")).status, 404, "none configured");
    const dir = await Deno.makeTempDir();
    try {
      const path = join(dir, "tos.md");
      await Deno.writeTextFile(
        path,
        "# Rules\n\nBe **kind**. See [the API](/api/docs).\n\n<script>alert(1)</script>\n\n" +
          '<img src=x onerror="alert(2)">\n\n[click](javascript:alert(3)) ' +
          "![pic](data:image/svg+xml,x)\n",
      );
      await settings(app, { websiteTos: path });
      const res = await app.request("/auth/tos");
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.match(html, /<h1>Rules<\/h1>/);
      assert.match(html, /<strong>kind<\/strong>/);
      assert.match(html, /<a href="\/api\/docs">the API<\/a>/);
      assert.doesNotMatch(
        html,
        /<script>alert|<img src=x|<[^>]*onerror|javascript:|data:image\/svg/,
      );
      assert.match(html, /&#60;script&#62;alert\(1\)/, "raw HTML shows as text");
      const login = await (await app.request("/auth/login")).text();
      assert.match(login, /<a href="\/auth\/tos">Terms of service<\/a>/);
      const register = await (await app.request("/auth/register")).text();
      assert.match(register, /<strong>kind<\/strong>/);
      assert.match(register, /href="\/auth\/tos"/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

apiTest(
  "dashboard #33.2: the default external links lead to Ferry's API reference and its own " +
    "documentation, served offline",
  async (app) => {
    await actor(app, "SUPERADMIN", "root");
    const login = await (await app.request("/auth/login")).text();
    assert.match(login, /<a href="\/api\/docs" rel="noopener">API reference<\/a>/);
    assert.match(login, /<a href="\/dashboard\/help" rel="noopener">Documentation<\/a>/);
    assert.doesNotMatch(login, /zipline\.diced\.sh|github\.com\/diced/);
    const help = await app.request("/dashboard/help");
    assert.equal(help.status, 200);
    const html = await help.text();
    assert.match(html, /<h1>Ferry<\/h1>/);
    assert.match(html, /href="\/dashboard\/help\/zipline"/);
    const zipline = await app.request("/dashboard/help/zipline");
    assert.equal(zipline.status, 200);
    await zipline.body?.cancel();
    assert.equal((await app.request("/dashboard/help/nope")).status, 404);
  },
);

apiTest("dashboard #33.2: the user menu shows the avatar, served as an image", async (app) => {
  const { user } = await actor(app, "USER", "ursula");
  const cookie = await signIn(app, "ursula");
  assert.match(
    await (await app.request("/dashboard", { headers: { cookie } })).text(),
    /<span class="user-avatar initial" aria-hidden="true">U<\/span>/,
  );
  assert.equal((await app.request("/dashboard/avatar", { headers: { cookie } })).status, 404);
  const png = redSquare(4);
  const avatar = `data:image/png;base64,${btoa(String.fromCharCode(...png))}`;
  const saved = await app.json("PATCH", "/api/user", { avatar }, { cookie });
  assert.equal(saved.status, 200);
  const html = await (await app.request("/dashboard", { headers: { cookie } })).text();
  const src = html.match(/<img class="user-avatar" src="([^"]+)"/)?.[1];
  assert.ok(src?.startsWith("/dashboard/avatar?v="), String(src));
  const image = await app.request(src!, { headers: { cookie } });
  assert.equal(image.headers.get("content-type"), "image/png");
  assert.deepEqual(new Uint8Array(await image.arrayBuffer()), png);
  assert.equal((await app.request(src!)).status, 404, "only its owner's session sees it");
  assert.ok(user.id);
});

const OCEAN: Theme = {
  id: "ocean",
  name: "Ocean",
  colorScheme: "dark",
  primaryColor: "teal",
  mainBackgroundColor: "#001b2e",
  colors: {},
};

apiTest(
  "dashboard #33.4: a user's theme is kept with the user, applied to its pages, and the " +
    "server's default applies to those who chose none",
  async (app) => {
    await actor(app, "USER", "ursula");
    await actor(app, "USER", "victor");
    const cookie = await signIn(app, "ursula");
    const other = await signIn(app, "victor");
    const initial = await app.json("GET", "/api/user/preferences", undefined, { cookie });
    assert.deepEqual(initial.body, {
      theme: null,
      themeDark: null,
      themeLight: null,
      warnDeletion: true,
      disableMediaPreview: false,
      privateByDefault: false,
    });
    const themes = await app.json("GET", "/api/server/themes");
    const ids = themes.body.themes.map((t: Theme) => t.id);
    for (
      const id of [
        "builtin:dark_gray",
        "builtin:light_gray",
        "builtin:black_dark",
        "builtin:dark_blue",
        "builtin:light_blue",
        "builtin:catppuccin_latte",
        "builtin:catppuccin_frappe",
        "builtin:catppuccin_macchiato",
        "builtin:catppuccin_mocha",
        "builtin:midnight_orange",
        "builtin:midnight_blue",
        "builtin:midnight_purple",
        "ocean",
      ]
    ) assert.ok(ids.includes(id), id);

    const chosen = await app.json(
      "PATCH",
      "/api/user/preferences",
      { theme: "builtin:catppuccin_mocha", warnDeletion: false, disableMediaPreview: true },
      { cookie },
    );
    assert.equal(chosen.status, 200);
    assert.equal(chosen.body.theme, "builtin:catppuccin_mocha");
    assert.equal(chosen.body.warnDeletion, false);
    assert.equal(chosen.body.disableMediaPreview, true);
    // Another session of the same user (another browser) gets it too.
    const again = await signIn(app, "ursula");
    const page = await (await app.request("/dashboard", { headers: { cookie: again } })).text();
    assert.match(page, /<html lang="en" [^>]*data-theme="builtin:catppuccin_mocha"/);
    assert.match(page, /&quot;warnDeletion&quot;:false/);
    assert.match(page, /&quot;disableMediaPreview&quot;:true/);
    const self = await app.json("GET", "/api/user", undefined, { cookie: again });
    assert.equal(self.body.user.view.dashboard, undefined, "the view settings do not show them");

    // The other user chose nothing: the server's default.
    await settings(app, { websiteThemeDefault: "builtin:midnight_purple" });
    const theirs = await (await app.request("/dashboard", { headers: { cookie: other } })).text();
    assert.match(theirs, /data-theme="builtin:midnight_purple"/);

    // System: the device decides between the user's dark and light picks.
    await app.json(
      "PATCH",
      "/api/user/preferences",
      { theme: "system", themeDark: "ocean", themeLight: "builtin:catppuccin_latte" },
      { cookie },
    );
    const system = await (await app.request("/dashboard", { headers: { cookie } })).text();
    assert.match(
      system,
      /<html lang="en" data-theme-dark="ocean" data-theme-light="builtin:catppuccin_latte">/,
    );

    const bad = await app.json("PATCH", "/api/user/preferences", { theme: "nope" }, { cookie });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /no theme is installed with the id nope/);
    const light = await app.json("PATCH", "/api/user/preferences", { themeLight: "system" }, {
      cookie,
    });
    assert.equal(light.status, 400, "system is no theme for light mode");
    const reset = await app.json("PATCH", "/api/user/preferences", { theme: null }, { cookie });
    assert.equal(reset.body.theme, null);
    assert.equal(reset.body.themeDark, "ocean", "the other choices stay");
  },
  { themes: [OCEAN] },
);

apiTest(
  "dashboard #33.4: the themes stylesheet draws every theme, custom ones too",
  async (app) => {
    await actor(app, "USER", "ursula");
    const cookie = await signIn(app, "ursula");
    const html = await (await app.request("/dashboard", { headers: { cookie } })).text();
    const href = html.match(/href="(\/assets\/themes\.[0-9a-f]{12}\.css)"/)?.[1];
    assert.ok(href);
    const css = await app.request(href!);
    assert.equal(css.status, 200);
    assert.match(css.headers.get("content-type") ?? "", /^text\/css/);
    assert.equal(css.headers.get("cache-control"), "public, max-age=31536000, immutable");
    const text = await css.text();
    assert.match(text, /:root\[data-theme="builtin:catppuccin_frappe"\]\{color-scheme:dark;--bg:/);
    assert.match(text, /:root\[data-theme="ocean"\]\{color-scheme:dark;--bg:#001b2e;/);
    assert.match(text, /@media \(prefers-color-scheme: dark\)\{[^}]*data-theme-dark="ocean"/);
  },
  { themes: [OCEAN] },
);
