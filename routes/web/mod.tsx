/** @jsxImportSource hono/jsx */
/**
 * The pages Ferry serves to people (the first pieces of the dashboard):
 * `/auth/login`, `/auth/register`, `/dashboard` and `/dashboard/security`, with `/` sending
 * to one of them, a file's page, `/view/<name>`, and `/view/url/:id`, where a
 * password-protected short URL asks for its password. Server-rendered with Hono's
 * JSX; the one script and the one stylesheet are files of this folder, served at
 * `/assets/…`, so the pages
 * work offline and under a strict Content-Security-Policy. Not API routes:
 * they are not in the OpenAPI document.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import script from "./assets/ferry.js" with { type: "text" };
import style from "./assets/ferry.css" with { type: "text" };
import { ApiError } from "../../core/errors.ts";
import { fileOnView } from "../../core/files/serve.ts";
import { accessCookieName } from "../../core/files/passwords.ts";
import { listPasskeys, passkeyView, relyingPartyOf } from "../../core/passkeys.ts";
import { resolveSession, SESSION_COOKIE } from "../../core/sessions.ts";
import { resolveUrlPage, urlPasswordCookie } from "../../core/urls.ts";
import type { UserRecord } from "../../db/store.ts";
import type { AppEnv } from "../env.ts";
import { DashboardPage } from "./dashboard.tsx";
import { LoginPage } from "./login.tsx";
import { RegisterPage } from "./register.tsx";
import { SecurityPage } from "./security.tsx";
import { FileNotFoundPage, ViewPage } from "./view.tsx";
import { UrlPasswordPage } from "./url_password.tsx";

/**
 * Scripts, styles, media and requests from this origin only; images also as
 * `data:` (the QR code).
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

const ASSETS: Record<string, { type: string; body: string }> = {
  "ferry.js": { type: "text/javascript; charset=utf-8", body: script },
  "ferry.css": { type: "text/css; charset=utf-8", body: style },
};

/** The user of the request's session cookie, or `null`. Pages know no API tokens. */
async function sessionUser(c: Context<AppEnv>): Promise<UserRecord | null> {
  const secret = getCookie(c, SESSION_COOKIE);
  return secret ? (await resolveSession(c.var.services, secret))?.user ?? null : null;
}

/** Sends a rendered page with the security headers every page gets. */
function page(c: Context<AppEnv>, body: ReturnType<typeof LoginPage>, status: 200 | 404 = 200) {
  c.header("content-security-policy", CSP);
  c.header("x-content-type-options", "nosniff");
  c.header("referrer-policy", "same-origin");
  c.header("cache-control", "no-store");
  return c.html(body, status);
}

/** The page routes and their assets. */
export const webRoutes = new Hono<AppEnv>()
  .get("/", async (c) => c.redirect(await sessionUser(c) ? "/dashboard" : "/auth/login", 302))
  .get("/auth/login", async (c) => {
    if (await sessionUser(c)) return c.redirect("/dashboard", 302);
    const s = c.var.services;
    const passkeys = relyingPartyOf(s) !== null;
    return page(c, <LoginPage site={s.settings.get("websiteTitle")} passkeys={passkeys} />);
  })
  .get("/auth/register", async (c) => {
    if (await sessionUser(c)) return c.redirect("/dashboard", 302);
    const site = c.var.services.settings.get("websiteTitle");
    return page(c, <RegisterPage site={site} code={c.req.query("code") ?? ""} />);
  })
  .get("/dashboard", async (c) => {
    const user = await sessionUser(c);
    if (!user) return c.redirect("/auth/login", 302);
    const site = c.var.services.settings.get("websiteTitle");
    return page(c, <DashboardPage site={site} username={user.username} />);
  })
  .get("/dashboard/security", async (c) => {
    const user = await sessionUser(c);
    if (!user) return c.redirect("/auth/login", 302);
    const s = c.var.services;
    const passkeys = relyingPartyOf(s) ? (await listPasskeys(s, user)).map(passkeyView) : null;
    return page(
      c,
      <SecurityPage
        site={s.settings.get("websiteTitle")}
        username={user.username}
        totpAvailable={s.settings.get("mfaTotpEnabled")}
        totpEnabled={user.totpSecret !== null}
        passkeys={passkeys}
        hasPassword={user.password !== null}
      />,
    );
  })
  .get("/view/url/:id", async (c) => {
    const s = c.var.services;
    const found = await resolveUrlPage(
      s,
      c.req.param("id"),
      (id) => getCookie(c, urlPasswordCookie(id)),
    );
    if (!found || found.kind === "gone") return c.notFound();
    if (found.kind === "redirect") return c.redirect(found.destination, 302);
    const site = s.settings.get("websiteTitle");
    return page(c, <UrlPasswordPage site={site} urlId={found.urlId} />);
  })
  .get("/view/:name", async (c) => {
    const s = c.var.services;
    const site = s.settings.get("websiteTitle");
    try {
      const shown = await fileOnView(
        s,
        c.req.param("name"),
        (id) => getCookie(c, accessCookieName(id)),
      );
      return page(c, <ViewPage site={site} {...shown} />);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        return page(c, <FileNotFoundPage site={site} />, 404);
      }
      throw error;
    }
  })
  .get("/assets/:file", (c) => {
    const file = ASSETS[c.req.param("file")];
    if (!file) return c.notFound();
    return c.body(file.body, 200, {
      "content-type": file.type,
      "cache-control": "no-cache",
      "x-content-type-options": "nosniff",
    });
  });
