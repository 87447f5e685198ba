/**
 * Signing in with OAuth and OpenID Connect (`core/oauth/`):
 * `GET /api/auth/oauth/{provider}` starts a flow (302 to the provider) and,
 * called back with `code` (or `error`), finishes it; `POST
 * /api/auth/oauth/{provider}/link` starts linking (the browser's session and
 * proof of the owner); `POST /api/auth/oauth/totp` is the TOTP step after a
 * sign-in; `GET` and `DELETE /api/auth/oauth` list and unlink the caller's
 * linked accounts.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { clearServiceCookie, setServiceCookie } from "./cookies.ts";
import { OAUTH_PROVIDERS } from "../db/oauth.ts";
import { ApiError, badRequest, notFound } from "../core/errors.ts";
import { completeOauth, listLinks, startLink, unlink } from "../core/oauth/accounts.ts";
import {
  finishFlow,
  OAUTH_COOKIE,
  OAUTH_COOKIE_PATH,
  OAUTH_FLOW_TTL_MS,
  redirectUriOf,
  startFlow,
} from "../core/oauth/flow.ts";
import { presetOf } from "../core/oauth/providers.ts";
import { finishTotpStep, TOTP_TICKET_COOKIE, TOTP_TICKET_TTL_MS } from "../core/oauth/totp.ts";
import { selfView } from "../core/users.ts";
import { clientInfo } from "./client_info.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { type AppEnv, currentUser as me, requestSource } from "./env.ts";
import { CurrentPassword, SelfUserSchema, Timestamp } from "./schemas.ts";
import { setSessionCookie } from "./session_cookie.ts";
import { wantsPage } from "./web/mod.tsx";
import { oauthErrorPage } from "./web/oauth_error.tsx";

const Redirect = {
  description: "To the provider (start), or back to the dashboard (callback)",
  headers: z.object({ Location: z.string() }),
};

/** The provider named in the path. */
const ProviderParam = z.object({ provider: z.enum(["discord", "google", "github", "oidc"]) });

const oauthRoute = defineRoute({
  method: "get",
  path: "/auth/oauth/{provider}",
  auth: "none",
  rateLimit: { max: 10, seconds: 60 },
  tags: ["Auth"],
  summary: "Start or finish signing in with an OAuth provider",
  description: "Without `code` or `error`: 302 to the provider, with a short-lived cookie " +
    "binding the flow (state, PKCE verifier, nonce) to this browser. `state=link` (Zipline's " +
    "web client) links the provider's account to the signed-in user instead, only with a " +
    "session cookie signed in less than 10 minutes ago through the account's own factor " +
    "(its password; a passkey or a linked provider for an account without one) and from " +
    "the service's own pages (`Sec-Fetch-Site: same-origin`, or an `Origin`/`Referer` of " +
    "this host): an API token is 403; `POST /api/auth/oauth/{provider}/link` takes the " +
    "password instead. Called back by the " +
    "provider: checks the state, exchanges the code (PKCE), verifies the ID token (OpenID " +
    "Connect) or reads the user endpoint, then signs in (302 to `/dashboard`, or to " +
    "`/auth/login?oauth=totp` when the user has TOTP), registers (when " +
    "`featuresOauthRegistration` is on and `oauthLoginOnly` off) or links (302 to " +
    "`/dashboard/settings`).",
  request: {
    params: ProviderParam,
    query: z.object({
      state: z.string().max(200).optional(),
      code: z.string().max(4096).optional(),
      error: z.string().max(200).optional(),
      error_description: z.string().max(1000).optional(),
      iss: z.string().max(1000).optional(),
      scope: z.string().max(1000).optional(),
      session_state: z.string().max(1000).optional(),
    }).passthrough(),
  },
  responses: {
    302: Redirect,
    401: errorDoc("The provider is not configured, or linking without a session"),
    403: errorDoc(
      "OAuth registration disabled or closed, sign-in refused at the provider, or linking " +
        "with an API token or from another site",
    ),
    503: errorDoc("The provider could not be reached"),
  },
});

const linkRoute = defineRoute({
  method: "post",
  path: "/auth/oauth/{provider}/link",
  auth: "user",
  rateLimit: { max: 10, seconds: 60 },
  tags: ["Auth"],
  summary: "Start linking an OAuth provider's account to the signed-in user",
  description: "Needs the browser's session cookie (an API token is 403) and proof of the " +
    "owner: `currentPassword`, or a sign-in less than 10 minutes old through the account's " +
    "own factor (its password; for an account without one, its passkey or a linked " +
    "provider). Answers the provider's URL to send the browser to, and sets the flow's " +
    "cookie; the provider's callback links the account for this same session only, while " +
    "it lives (302 to `/dashboard/settings`).",
  request: {
    params: ProviderParam,
    body: jsonBody(z.object({ currentPassword: CurrentPassword })),
  },
  responses: {
    200: json(z.object({ url: z.string() }), "The provider's authorization URL"),
    400: errorDoc(
      "`currentPassword is required`, or an account without a password and no " +
        "fresh sign-in",
    ),
    403: errorDoc(
      "`Invalid current password`, an API token, or OAuth registration disabled",
    ),
    503: errorDoc("The provider could not be reached"),
  },
});

const totpRoute = defineRoute({
  method: "post",
  path: "/auth/oauth/totp",
  auth: "none",
  rateLimit: { max: 1, seconds: 2 },
  tags: ["Auth"],
  summary: "Finish an OAuth sign-in with the user's TOTP code",
  description: "After a callback that sent the browser to `/auth/login?oauth=totp`.",
  request: { body: jsonBody(z.object({ code: z.string().min(1).max(16) })) },
  responses: {
    200: json(z.object({ user: SelfUserSchema }), "Signed in"),
    400: errorDoc(
      "`Invalid code` (the ticket cookie is replaced: type the code again), or " +
        "`The sign-in has expired, start again` (no ticket, or one expired or used)",
    ),
    429: errorDoc(
      "`Rate limit exceeded, retry in N seconds`, or `Too many codes were tried for this " +
        "account; try again in N seconds` (5 codes checked per account in 5 minutes)",
    ),
  },
});

/** A linked OAuth account (never its tokens). */
export const LinkSchema = z.object({
  id: z.string(),
  provider: z.enum(OAUTH_PROVIDERS),
  username: z.string(),
  createdAt: Timestamp,
}).openapi("OauthLink");
const Links = json(z.array(LinkSchema), "The caller's linked accounts (never their tokens)");

const listRoute = defineRoute({
  method: "get",
  path: "/auth/oauth",
  auth: "user",
  tags: ["Auth"],
  summary: "The caller's linked OAuth accounts",
  responses: { 200: Links },
});

/** Unlinking a provider, with the proof of who asks. */
export const OauthUnlinkBody = z.object({
  provider: z.enum(OAUTH_PROVIDERS),
  currentPassword: CurrentPassword,
});

const unlinkRoute = defineRoute({
  method: "delete",
  path: "/auth/oauth",
  auth: "user",
  tags: ["Auth"],
  summary: "Unlink one of the caller's OAuth accounts",
  description: "Needs proof of the owner, as every credential change: `currentPassword`, or " +
    "a session cookie signed in less than 10 minutes ago through the account's own factor. " +
    "Refused when it is the caller's last way to sign in (no password, no passkey).",
  request: {
    body: jsonBody(OauthUnlinkBody),
  },
  responses: {
    200: Links,
    400: errorDoc(
      "`No providers to delete`, the last way to sign in, or `currentPassword is required`",
    ),
    403: errorDoc("`Invalid current password`"),
  },
});

/** Sets a short-lived cookie only the OAuth routes receive. */
function flowCookie(c: Context<AppEnv>, name: string, value: string, ttlMs: number) {
  setServiceCookie(c, name, value, {
    path: OAUTH_COOKIE_PATH,
    maxAge: ttlMs / 1000,
    httpOnly: true,
  });
}

/** The OAuth routes. */
export const oauthRoutes = newRouter()
  .openapi(listRoute, async (c) => c.json(await listLinks(c.var.services, me(c)), 200))
  .openapi(unlinkRoute, async (c) => {
    const caller = { user: me(c), session: c.var.session };
    return c.json(await unlink(c.var.services, caller, c.req.valid("json")), 200);
  })
  .openapi(linkRoute, async (c) => {
    const s = c.var.services;
    const preset = presetOf(c.req.valid("param").provider);
    if (!preset) throw notFound();
    const redirectUri = redirectUriOf(s, preset, new URL(c.req.url).host);
    const caller = { user: me(c), session: c.var.session };
    const flow = await startLink(s, preset, redirectUri, caller, c.req.valid("json"));
    flowCookie(c, OAUTH_COOKIE, flow.cookie, OAUTH_FLOW_TTL_MS);
    return c.json({ url: flow.url }, 200);
  })
  .openapi(totpRoute, async (c) => {
    const ticket = getCookie(c, TOTP_TICKET_COOKIE);
    const s = c.var.services;
    const result = await finishTotpStep(s, ticket, c.req.valid("json").code, clientInfo(c));
    if (result.kind === "retry") {
      flowCookie(c, TOTP_TICKET_COOKIE, result.ticket, TOTP_TICKET_TTL_MS);
      throw badRequest("Invalid code");
    }
    clearServiceCookie(c, TOTP_TICKET_COOKIE, OAUTH_COOKIE_PATH);
    setSessionCookie(c, result.secret);
    return c.json({ user: selfView(result.user) }, 200);
  })
  .openapi(oauthRoute, async (c) => {
    try {
      return await oauthStep(c);
    } catch (error) {
      if (error instanceof ApiError && wantsPage(c)) return await oauthErrorPage(c, error);
      throw error;
    }
  });

/** Starts or finishes a flow (see the route's description). */
async function oauthStep(c: Context<AppEnv>) {
  const s = c.var.services;
  const preset = presetOf(c.req.param("provider") ?? "");
  if (!preset) throw notFound();
  const query = c.req.query();
  const redirectUri = redirectUriOf(s, preset, new URL(c.req.url).host);
  const caller = { user: c.var.user, session: c.var.session };
  if (query.code === undefined && query.error === undefined) {
    const flow = query.state === "link"
      ? await startLink(s, preset, redirectUri, caller, { source: requestSource(c) })
      : await startFlow(s, preset, redirectUri, { kind: "login" });
    flowCookie(c, OAUTH_COOKIE, flow.cookie, OAUTH_FLOW_TTL_MS);
    return c.redirect(flow.url, 302);
  }
  const cookie = getCookie(c, OAUTH_COOKIE);
  clearServiceCookie(c, OAUTH_COOKIE, OAUTH_COOKIE_PATH);
  const result = await finishFlow(s, preset, redirectUri, new URL(c.req.url), cookie);
  const outcome = await completeOauth(s, preset, result, clientInfo(c), caller);
  if (outcome.kind === "linked") return c.redirect("/dashboard/settings", 302);
  if (outcome.kind === "totp") {
    flowCookie(c, TOTP_TICKET_COOKIE, outcome.ticket, TOTP_TICKET_TTL_MS);
    return c.redirect("/auth/login?oauth=totp", 302);
  }
  setSessionCookie(c, outcome.secret);
  return c.redirect("/dashboard", 302);
}
