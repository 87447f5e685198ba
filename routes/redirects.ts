/**
 * Public redirects, outside the API and the OpenAPI document, never rate
 * limited: short URLs under the live `urlsRoute` setting and invite links
 * (`/invite/<code>`). Served by one catch-all GET that asks each resolver of
 * {@link PUBLIC_RESOLVERS} in turn; the first answer wins. Short URLs come
 * first, so when files and URLs share the route `/`, a URL name wins over a
 * file of the same name.
 */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { nameUnder } from "../core/links.ts";
import { resolveUrl } from "../core/urls.ts";
import { visitOf } from "../core/url_rules.ts";
import { urlPasswordCookie } from "../core/url_passwords.ts";
import { type AppEnv, attempter, clientIp } from "./env.ts";
import { newRouter } from "./define.ts";
import { FILE_RESOLVERS, type PublicResolver } from "./public.ts";
import { expiredLink } from "./web/mod.tsx";

/**
 * The path of `url` as sent, still percent-encoded (Hono's `c.req.path` is
 * partly decoded): resolvers decode the name themselves. Cheaper than `new URL`.
 */
export function rawPath(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = url.slice(start).search(/[?#]/);
  return end < 0 ? url.slice(start) : url.slice(start, start + end);
}

/**
 * A 302 to `destination`, percent-encoded where a header cannot carry it (as
 * Hono's `c.redirect` writes it).
 */
export function redirectTo(destination: string): Response {
  const location = /[\u0100-\uFFFF]/.test(destination) ? encodeURI(destination) : destination;
  return new Response(null, { status: 302, headers: { Location: location } });
}

/**
 * The short URL name a public GET for `path` (percent-encoded) asks for, or
 * `null`: a name under `urlsRoute`, on a path that is neither the API's nor an
 * invite link's (which {@link PUBLIC_RESOLVERS} asks first).
 */
export function shortUrlName(urlsRoute: string, path: string): string | null {
  if (isApiPath(path) || nameUnder("/invite", path) !== null) return null;
  return nameUnder(urlsRoute, path);
}

/**
 * A short URL by code or vanity: 302 to its destination (a counted view; the
 * URL's rules pick it for the visit), 302 to `/view/url/<id>` when its
 * password has not been verified, 404 when disabled or past its max views,
 * 410 after its expiry; `null` when no URL has the name.
 */
export const resolveShortUrl: PublicResolver = async (c, path) => {
  const s = c.get("services");
  const name = shortUrlName(s.settings.get("urlsRoute"), path);
  if (name === null) return null;
  const found = await resolveUrl(s, name, {
    cookie: (id) => getCookie(c, urlPasswordCookie(id)),
    ...attempter(c),
  }, visitOf(c.req.raw, () => clientIp(c)));
  if (!found) return null;
  if (found.kind === "expired") return expiredLink(c);
  if (found.kind === "redirect") return redirectTo(found.destination);
  if (found.kind === "password") return redirectTo(`/view/url/${encodeURIComponent(found.urlId)}`);
  return c.notFound();
};

/** `/invite/<code>`: 302 to the registration page with the code. */
export const resolveInviteLink: PublicResolver = (c, path) => {
  const code = nameUnder("/invite", path);
  return Promise.resolve(
    code === null ? null : c.redirect(`/auth/register?code=${encodeURIComponent(code)}`, 302),
  );
};

/** The resolvers of public GETs, in the order they are asked. */
export const PUBLIC_RESOLVERS: PublicResolver[] = [
  resolveInviteLink,
  resolveShortUrl,
  ...FILE_RESOLVERS,
];

/** Whether `path` is the API's, which the public resolvers never answer. */
export function isApiPath(path: string): boolean {
  return path === "/api" || path.startsWith("/api/");
}

/** The public GET: each resolver in turn, else 404. */
export async function publicGet(c: Context<AppEnv>): Promise<Response> {
  const path = rawPath(c.req.url);
  if (isApiPath(path)) return c.notFound();
  for (const resolve of PUBLIC_RESOLVERS) {
    const response = await resolve(c, path);
    if (response) return response;
  }
  return c.notFound();
}

/** The catch-all GET for non-API paths; mount it after every other route. */
export const publicRoutes = newRouter().get("*", publicGet);
