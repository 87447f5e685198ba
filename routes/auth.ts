/**
 * Logging in and out: `POST /api/auth/login`, `POST /api/auth/logout`, and
 * `GET /api/auth/logout` (Zipline's web client's) for same-origin requests.
 */
import { z } from "@hono/zod-openapi";
import { login } from "../core/login.ts";
import { endSession } from "../core/sessions.ts";
import { selfView } from "../core/users.ts";
import { clientInfo } from "./client_info.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { GivenPassword, SelfUserSchema, Username } from "./schemas.ts";
import { clearSessionCookie, setSessionCookie } from "./session_cookie.ts";
import { requestSource } from "./env.ts";

const loginRoute = defineRoute({
  method: "post",
  path: "/auth/login",
  auth: "none",
  rateLimit: { max: 1, seconds: 2 },
  tags: ["Auth"],
  summary: "Log in with a username and password (and a TOTP code when enabled)",
  description: "Sets the `service_session` cookie. A user with TOTP who sends no `code` gets " +
    "`{totp: true}` and no cookie, and sends the request again with the code.",
  request: {
    body: jsonBody(z.object({
      username: Username.openapi({ example: "admin" }),
      password: GivenPassword,
      code: z.string().min(1).max(16).optional().openapi({ description: "The TOTP code" }),
    })),
  },
  responses: {
    200: json(
      z.union([z.object({ user: SelfUserSchema }), z.object({ totp: z.literal(true) })]),
      "Logged in, or a TOTP code is needed",
    ),
    400: errorDoc("`Invalid username or password`, `Invalid code`, or a validation failure"),
  },
});

const LoggedOut = json(z.object({ loggedOut: z.literal(true) }), "Logged out");

const logoutRoute = defineRoute({
  method: "post",
  path: "/auth/logout",
  auth: "user",
  tags: ["Auth"],
  summary: "End the current session (other sessions stay)",
  responses: { 200: LoggedOut },
});

const logoutGetRoute = defineRoute({
  method: "get",
  path: "/auth/logout",
  auth: "user",
  tags: ["Auth"],
  summary: "End the current session, for Zipline's web client; prefer `POST`",
  description: "With a session cookie, the request must come from the service's own pages: " +
    "`Sec-Fetch-Site` `same-origin` or `none`, or else an `Origin` or `Referer` on one of its " +
    "hosts (the request's, `coreDefaultDomain`, `domains`). " +
    "Anything else (an image on another site) is 403 `Cross-site logout refused`. A request " +
    "authenticated by API token ends no session and is not checked.",
  responses: { 200: LoggedOut, 403: errorDoc("`Cross-site logout refused`") },
});

/** The login and logout routes. */
export const authRoutes = newRouter()
  .openapi(loginRoute, async (c) => {
    const result = await login(c.var.services, c.req.valid("json"), clientInfo(c));
    if ("totp" in result) return c.json({ totp: true as const }, 200);
    setSessionCookie(c, result.secret);
    return c.json({ user: selfView(result.user) }, 200);
  })
  .openapi(logoutRoute, async (c) => {
    await endSession(c.var.services, c.var.session);
    clearSessionCookie(c);
    return c.json({ loggedOut: true as const }, 200);
  })
  .openapi(logoutGetRoute, async (c) => {
    await endSession(c.var.services, c.var.session, requestSource(c));
    clearSessionCookie(c);
    return c.json({ loggedOut: true as const }, 200);
  });
