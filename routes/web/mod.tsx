/** @jsxImportSource hono/jsx */
/**
 * The pages Ferry serves to people: first-run setup (`/auth/setup`, where
 * every page leads while the server has no user), `/auth/login`,
 * `/auth/register`, the terms of service (`/auth/tos`), the dashboard's pages
 * (`/dashboard/…`, in the signed-in shell, with a 404 page for an unknown one
 * and a "not allowed" page for one the user's role does not open), the help
 * pages, a file's page, `/view/<name>`, and `/view/url/:id`, where a
 * password-protected short URL asks for its password; `/` sends to one of
 * them. Server-rendered with Hono's JSX; scripts and stylesheets are files
 * served at `/assets/…`, so the pages work offline and under a strict
 * Content-Security-Policy. A page that fails is an error page in the same
 * frame, never a JSON body. Not API routes: they are not in the OpenAPI
 * document.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { getCookie } from "hono/cookie";
import { ApiError, notFound } from "../../core/errors.ts";
import { viewPageOf } from "../../core/files/view_page.ts";
import { fileOnView } from "../../core/files/serve.ts";
import { storable } from "../../core/links.ts";
import { accessCookieName } from "../../core/files/passwords.ts";
import { loginChoices } from "../../core/oauth/providers.ts";
import { relyingPartyOf } from "../../core/passkeys.ts";
import { resolveUrlPage } from "../../core/urls.ts";
import { visitOf } from "../../core/url_rules.ts";
import { urlPasswordCookie } from "../../core/url_passwords.ts";
import { type Role, ROLES, type UserRecord } from "../../db/users.ts";
import { NAME_FORMATS } from "../../core/files/naming.ts";
import { canAssign, canManage, hasRole } from "../../core/roles.ts";
import { showsPerUser, statsRefusal } from "../../core/metrics.ts";
import { termsOfService } from "../../core/server_info.ts";
import { preferencesOf } from "../../core/preferences.ts";
import { isFirstSetup } from "../../core/setup.ts";
import { onError } from "../middleware/errors.ts";
import { parseSize } from "../../core/units/size.ts";
import { parseDuration } from "../../core/units/duration.ts";
import { Buffer } from "node:buffer";
import { type AppEnv, attempter, clientIp, visitor } from "../env.ts";
import { sessionUser, sessionViewer } from "../session_cookie.ts";
import { ADMIN_PAGES, navigationOf, pageShown } from "./admin_pages.ts";
import { AppPage } from "./app_page.tsx";
import { ScriptNonce } from "./layout.tsx";
import { base64url } from "../../core/secrets.ts";
import { findAnyAsset } from "./assets.ts";
import { siteFileRoutes } from "./site_files.ts";
import { imageOrigins, type Look, LookContext, lookOf, THEME_COOKIE } from "./look.ts";
import { type Frame, FrameContext } from "./layout.tsx";
import { helpDocument, HelpPage, TermsPage } from "./help.tsx";
import { type Problem, ProblemPage } from "./problem.tsx";
import { SetupPage } from "./setup.tsx";
import { themeAsset } from "./theme_css.ts";
import { LoginPage } from "./login.tsx";
import { RegisterPage } from "./register.tsx";
import { FileNotFoundPage, scriptedKind, ViewPage } from "./view.tsx";
import { findVendorAsset } from "./vendor_assets.ts";
import { UrlPasswordPage } from "./url_password.tsx";
import { SharePage } from "./shared.tsx";
import { visitShare } from "../../core/shared.ts";
import { shareProof } from "../shared_links.ts";
import { RequestClosedPage, RequestPage } from "./request_page.tsx";
import { describeRequest } from "../../core/upload_requests.ts";

/**
 * Scripts only from the page's own tags, by the response's `nonce` (and what
 * they load, `'strict-dynamic'`): never another script of this origin, such as
 * an uploaded file; `wasm` lets them compile WebAssembly too (asciinema's
 * player, on the pages that may play a recording), which runs no script of
 * its own. Styles, fonts (KaTeX's), media, frames (a PDF's preview) and
 * requests from this origin only; images also as `data:` (QR codes) and from
 * the origins of the website's logo and login background.
 */
function contentSecurityPolicy(look: Look, nonce: string, more: string[], wasm: boolean): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}' 'strict-dynamic'${wasm ? " 'wasm-unsafe-eval'" : ""}`,
    "style-src 'self'",
    "font-src 'self'",
    ["img-src 'self' data:", ...new Set([...imageOrigins(look), ...more])].join(" "),
    "media-src 'self'",
    "frame-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Where the shell shows `user`'s avatar: Ferry's page of it, or its own http(s) address. */
function avatarSource(user: UserRecord): string | null {
  if (user.avatar === null) return null;
  if (!user.avatar.startsWith("data:")) return user.avatar;
  return `/dashboard/avatar?v=${user.updatedAt.getTime()}`;
}

/** Whether the request comes from a browser's navigation rather than an API client. */
export function wantsPage(c: Context<AppEnv>): boolean {
  return (c.req.header("accept") ?? "").includes("text/html");
}

/** A fresh nonce for a response's scripts: 16 random bytes, base64url. */
export function scriptNonce(c: Context<AppEnv>): string {
  return base64url(c.var.services.random.bytes(16));
}

/**
 * Sends a rendered page, in the website's look, with the security headers
 * every page gets and a nonce of its own for its script tags; with `user`, in the
 * signed-in shell and the user's theme; `wasm` for a page that may play an
 * asciinema recording (its terminal is WebAssembly).
 */
export function page(
  c: Context<AppEnv>,
  body: ReturnType<typeof LoginPage>,
  status: ContentfulStatusCode = 200,
  user?: UserRecord | null,
  wasm = false,
) {
  const s = c.var.services;
  const settings = s.settings.all();
  const look = lookOf(settings, {
    custom: s.themes,
    choice: user ? preferencesOf(user) : null,
    cookie: getCookie(c, THEME_COOKIE),
    version: s.build.version,
  });
  const avatar = user ? avatarSource(user) : null;
  const frame: Frame | null = user
    ? { username: user.username, avatar, ...navigationOf(user.role, settings) }
    : null;
  const nonce = scriptNonce(c);
  const avatarOrigin = avatar?.startsWith("http") ? [new URL(avatar).origin] : [];
  c.header("content-security-policy", contentSecurityPolicy(look, nonce, avatarOrigin, wasm));
  c.header("x-content-type-options", "nosniff");
  c.header("referrer-policy", "same-origin");
  c.header("cache-control", "no-store");
  return c.html(
    <LookContext.Provider value={look}>
      <FrameContext.Provider value={frame}>
        <ScriptNonce.Provider value={nonce}>{body}</ScriptNonce.Provider>
      </FrameContext.Provider>
    </LookContext.Provider>,
    status,
  );
}

/** Where a signed-out visitor goes: first-run setup while there is no user, else sign-in. */
async function signInPath(c: Context<AppEnv>): Promise<string> {
  return await isFirstSetup(c.var.services) ? "/auth/setup" : "/auth/login";
}

/** The page of `problem` in the frame of whoever asks (a signed-in user gets the shell). */
async function problemPage(c: Context<AppEnv>, problem: Problem, status: ContentfulStatusCode) {
  let user: UserRecord | null = null;
  try {
    user = await sessionUser(c);
  } catch {
    // The store is what failed: the page goes without the shell.
  }
  const site = c.var.services.settings.get("websiteTitle");
  return page(c, <ProblemPage site={site} problem={problem} signedIn={!!user} />, status, user);
}

/**
 * The 410 of a short link past its expiry: a page that says so for a
 * browser, the error body for anything else.
 */
export function expiredLink(c: Context<AppEnv>): Promise<Response> | Response {
  if (wantsPage(c)) return problemPage(c, "expired", 410);
  return c.json({ error: "This link has expired", statusCode: 410 }, 410);
}

/** What a dashboard page's client component needs of the settings (`client/config.ts`). */
function pageConfig(c: Context<AppEnv>) {
  const settings = c.var.services.settings;
  const format = settings.get("filesDefaultFormat");
  return {
    chunkSize: settings.get("chunksEnabled") ? parseSize(settings.get("chunksSize")) : null,
    formats: [format, ...NAME_FORMATS.filter((f) => f !== format)],
    domains: settings.get("domains"),
    urlsRoute: settings.get("urlsRoute"),
    site: settings.get("websiteTitle"),
    maxExpirationMs: parseDuration(settings.get("filesMaxExpiration") ?? ""),
  };
}

/** The dashboard pages that may play an asciinema recording (the file panel's preview). */
const PLAYS_RECORDINGS = new Set(["files"]);

/**
 * A signed-in dashboard page whose content is the client component `page`;
 * with `role`, a 404 for users below it.
 */
async function appPage(c: Context<AppEnv>, name: string, title: string, role?: Role) {
  const user = await sessionUser(c);
  if (!user) return c.redirect(await signInPath(c), 302);
  if (role && !hasRole(user.role, role)) return problemPage(c, "forbidden", 403);
  const settings = c.var.services.settings.all();
  const preferences = preferencesOf(user);
  return page(
    c,
    <AppPage
      site={settings.websiteTitle}
      title={title}
      path={c.req.path}
      page={name}
      config={{
        ...pageConfig(c),
        user: {
          id: user.id,
          role: user.role,
          assigns: ROLES.filter((r) => canAssign(user.role, r)),
          manages: ROLES.filter((r) => canManage(user.role, r)),
          hasPassword: user.password !== null,
        },
        metricsPerUser: showsPerUser(settings, user.role),
        warnDeletion: preferences.warnDeletion,
        disableMediaPreview: preferences.disableMediaPreview,
      }}
    />,
    200,
    user,
    PLAYS_RECORDINGS.has(name),
  );
}

/** The statistics page, for those `GET /api/stats` answers. */
async function statsPage(c: Context<AppEnv>) {
  const user = await sessionUser(c);
  const settings = c.var.services.settings.all();
  if (user && statsRefusal(settings, user.role)) {
    // Off for everyone: no such page; for administrators only: not this user's.
    return settings.featuresMetricsEnabled
      ? problemPage(c, "forbidden", 403)
      : problemPage(c, "not-found", 404);
  }
  return appPage(c, "stats", "Statistics");
}

/**
 * The administrators' pages, each for its role and above; a page of a
 * feature that is off (Invites without `invitesEnabled`) is not there (404).
 */
const adminRoutes = ADMIN_PAGES.reduce(
  (app, p) =>
    app.get(
      p.path,
      (c) =>
        pageShown(p, c.var.services.settings.all())
          ? appPage(c, p.page, p.title, p.role)
          : problemPage(c, "not-found", 404),
    ),
  new Hono<AppEnv>(),
);

/** The public page of a folder, for anyone; the page asks the API what it may show. */
function publicFolderPage(c: Context<AppEnv>) {
  const site = c.var.services.settings.get("websiteTitle");
  const id = c.req.param("id") ?? "";
  return page(
    c,
    <AppPage
      site={site}
      title="Folder"
      path={c.req.path}
      page="folder"
      config={{ ...pageConfig(c), id }}
    />,
  );
}

/**
 * An upload request's public page (`/request/<code>`), for anyone holding the
 * link; a closed one answers 410 with a page saying so.
 */
async function uploadRequestPage(c: Context<AppEnv>) {
  const s = c.var.services;
  const site = s.settings.get("websiteTitle");
  const code = c.req.param("code") ?? "";
  try {
    const view = await describeRequest(s, code);
    const config = { ...pageConfig(c), id: code, request: view };
    return page(c, <RequestPage site={site} view={view} config={config} />);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 410) throw error;
    return page(c, <RequestClosedPage site={site} message={error.message} />, 410);
  }
}

/** The page routes and their assets. */
export const webRoutes = new Hono<AppEnv>()
  .route("/", siteFileRoutes)
  .get("/", async (c) => c.redirect(await sessionUser(c) ? "/dashboard" : await signInPath(c), 302))
  .get("/auth/setup", async (c) => {
    if (!await isFirstSetup(c.var.services)) {
      return c.redirect(await sessionUser(c) ? "/dashboard" : "/auth/login", 302);
    }
    return page(c, <SetupPage site={c.var.services.settings.get("websiteTitle")} />);
  })
  .get("/auth/login", async (c) => {
    if (await sessionUser(c)) return c.redirect("/dashboard", 302);
    const s = c.var.services;
    if (await isFirstSetup(s)) return c.redirect("/auth/setup", 302);
    const choices = loginChoices(s.settings.all(), c.req.query("local") !== undefined);
    const oauthTotp = c.req.query("oauth") === "totp";
    if (choices.bypassTo && !oauthTotp) {
      return c.redirect(`/api/auth/oauth/${choices.bypassTo}`, 302);
    }
    return page(
      c,
      <LoginPage
        site={s.settings.get("websiteTitle")}
        passkeys={relyingPartyOf(s) !== null}
        providers={choices.providers}
        passwordForm={choices.passwordForm}
        oauthTotp={oauthTotp}
        registration={s.settings.get("featuresUserRegistration")}
        tos={s.settings.get("websiteTos") !== null}
      />,
    );
  })
  .get("/auth/register", async (c) => {
    if (await sessionUser(c)) return c.redirect("/dashboard", 302);
    if (await isFirstSetup(c.var.services)) return c.redirect("/auth/setup", 302);
    const site = c.var.services.settings.get("websiteTitle");
    const tos = await termsOfService(c.var.services);
    return page(c, <RegisterPage site={site} code={c.req.query("code") ?? ""} tos={tos} />);
  })
  .get("/auth/tos", async (c) => {
    const tos = await termsOfService(c.var.services);
    if (tos === null) return problemPage(c, "not-found", 404);
    const site = c.var.services.settings.get("websiteTitle");
    const registration = c.var.services.settings.get("featuresUserRegistration");
    return page(
      c,
      <TermsPage site={site} markdown={tos} registration={registration} />,
      200,
      await sessionUser(c),
    );
  })
  .get("/dashboard/help/:doc?", async (c) => {
    const doc = helpDocument(c.req.param("doc") ?? "");
    if (!doc) return problemPage(c, "not-found", 404);
    const site = c.var.services.settings.get("websiteTitle");
    return page(c, <HelpPage site={site} doc={doc} />, 200, await sessionUser(c));
  })
  .get("/dashboard/avatar", async (c) => {
    const user = await sessionUser(c);
    const match = user?.avatar?.match(/^data:(image\/[a-z]+);base64,(.*)$/);
    if (!match) return problemPage(c, "not-found", 404);
    return c.body(new Uint8Array(Buffer.from(match[2], "base64")), 200, {
      "content-type": match[1],
      "cache-control": "private, max-age=86400",
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'",
    });
  })
  .get("/dashboard", (c) => appPage(c, "home", "Dashboard"))
  .get("/dashboard/upload", (c) => appPage(c, "upload", "Upload"))
  .get("/dashboard/upload/file", (c) => appPage(c, "upload", "Upload"))
  .get("/dashboard/upload/text", (c) => appPage(c, "upload-text", "Upload text"))
  .get("/dashboard/files", (c) => appPage(c, "files", "Files"))
  .get("/dashboard/urls", (c) => appPage(c, "urls", "URLs"))
  .get("/dashboard/settings", (c) => appPage(c, "account", "Account"))
  .get("/dashboard/folders", (c) => appPage(c, "folders", "Folders"))
  .get("/dashboard/tags", (c) => appPage(c, "tags", "Tags"))
  .get("/dashboard/stats", statsPage)
  .route("/", adminRoutes)
  .get("/folder/:id", publicFolderPage)
  .get("/request/:code", uploadRequestPage)
  .get("/dashboard/requests", (c) => appPage(c, "requests", "Upload requests"))
  .get("/dashboard/security", (c) => appPage(c, "security", "Security"))
  .get("/view/url/:id", async (c) => {
    const s = c.var.services;
    const id = storable(c.req.param("id"));
    const found = id === null ? null : await resolveUrlPage(s, id, {
      cookie: (id) => getCookie(c, urlPasswordCookie(id)),
      ...attempter(c),
    }, visitOf(c.req.raw, () => clientIp(c)));
    if (found?.kind === "expired") return expiredLink(c);
    if (!found || found.kind === "gone") {
      return wantsPage(c) ? problemPage(c, "not-found", 404) : c.notFound();
    }
    if (found.kind === "redirect") return c.redirect(found.destination, 302);
    const site = s.settings.get("websiteTitle");
    return page(c, <UrlPasswordPage site={site} urlId={found.urlId} />);
  })
  .get("/s/:code", async (c) => {
    const s = c.var.services;
    const site = s.settings.get("websiteTitle");
    const code = storable(c.req.param("code"));
    try {
      if (code === null) throw notFound();
      const visit = await visitShare(s, code, shareProof(c));
      const wasm = visit.kind === "file" && scriptedKind(visit.file) === "cast";
      return page(c, <SharePage site={site} code={code} visit={visit} />, 200, undefined, wasm);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        return wantsPage(c) ? page(c, <FileNotFoundPage site={site} />, 404) : c.notFound();
      }
      throw error;
    }
  })
  .get("/view/:name", async (c) => {
    const s = c.var.services;
    const site = s.settings.get("websiteTitle");
    const name = storable(c.req.param("name"));
    if (name === null) return page(c, <FileNotFoundPage site={site} />, 404);
    try {
      const shown = await fileOnView(s, name, {
        cookie: (id) => getCookie(c, accessCookieName(id)),
        viewer: sessionViewer(c),
        visit: visitor(c),
        ...attempter(c),
      });
      const around = shown.locked
        ? { embed: null, extras: null }
        : await viewPageOf(s, shown.file, new URL(c.req.url).origin);
      const wasm = !shown.locked && scriptedKind(shown.file) === "cast";
      return page(c, <ViewPage site={site} {...shown} {...around} />, 200, undefined, wasm);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        return page(c, <FileNotFoundPage site={site} />, 404);
      }
      throw error;
    }
  })
  .get("/assets/:file", async (c) => {
    const file = c.req.param("file");
    const themes = themeAsset(c.var.services.themes);
    const found = file === themes.hashedName
      ? { asset: { ...themes, type: "text/css; charset=utf-8" }, immutable: true }
      : await findAnyAsset(file) ?? await findVendorAsset(file);
    if (!found) return c.notFound();
    const { asset, immutable } = found;
    const gzip = /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
    return c.body(gzip ? asset.gzip : asset.body, 200, {
      "content-type": asset.type,
      "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
      "x-content-type-options": "nosniff",
      "vary": "accept-encoding",
      ...(gzip ? { "content-encoding": "gzip" } : {}),
    });
  })
  // Any other page under the dashboard or the sign-in pages: the 404 page, in the frame.
  .get("/dashboard/*", (c) => problemPage(c, "not-found", 404))
  .get("/auth/*", (c) => problemPage(c, "not-found", 404))
  .onError(async (error, c) => {
    // A page that fails is a page; what is not a page (a script's fetch) keeps the JSON body.
    const answer = onError(error, c);
    if (!wantsPage(c) || c.req.method !== "GET") return answer;
    const status = answer.status as ContentfulStatusCode;
    const problem: Problem = status === 404
      ? "not-found"
      : status === 403
      ? "forbidden"
      : status === 503
      ? "unavailable"
      : "error";
    const shown = await problemPage(c, problem, status);
    const retry = answer.headers.get("retry-after");
    if (retry) shown.headers.set("retry-after", retry);
    return shown;
  });
