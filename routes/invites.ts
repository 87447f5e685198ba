/** Invites (`/api/auth/invites`) and registration (`POST /api/auth/register`). */
import { z } from "@hono/zod-openapi";
import {
  createInvite,
  deleteInvite,
  getInvite,
  inviteView,
  listInvites,
  publicInvite,
  register,
} from "../core/invites.ts";
import { selfView } from "../core/users.ts";
import { clientInfo } from "./client_info.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { currentUser as me } from "./env.ts";
import { IdParam, NewPassword, SelfUserSchema, Timestamp, Username } from "./schemas.ts";
import { setSessionCookie } from "./session_cookie.ts";

const InviteSchema = z.object({
  id: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  expiresAt: Timestamp.nullable(),
  code: z.string(),
  uses: z.number().int(),
  maxUses: z.number().int().nullable(),
  inviterId: z.string(),
}).openapi("Invite");

/** An invite with the user who made it. */
export const InviteWithInviter = InviteSchema.extend({
  inviter: z.object({ id: z.string(), username: z.string(), role: z.string() }).nullable(),
}).openapi("InviteWithInviter");

const notFound = errorDoc("`Invite not found`");

const web = defineRoute({
  method: "get",
  path: "/auth/invites/web",
  auth: "none",
  rateLimit: { max: 1, seconds: 10 },
  tags: ["Invites"],
  summary: "What the registration page shows about an invite code",
  request: { query: z.object({ code: z.string().min(1).max(100).optional() }) },
  responses: {
    200: json(
      z.object({
        invite: z.object({
          code: z.string(),
          maxUses: z.number().int().nullable(),
          uses: z.number().int(),
          inviter: z.object({ username: z.string().nullable() }),
        }).nullable(),
      }),
      "The invite, or `null` without a code",
    ),
    404: errorDoc("`Not Found`: invites are off, or the code is unknown, expired or used up"),
  },
});

const list = defineRoute({
  method: "get",
  path: "/auth/invites",
  auth: "admin",
  tags: ["Invites"],
  summary: "Every invite, with its inviter",
  responses: { 200: json(z.array(InviteWithInviter), "Invites, oldest first") },
});

/** A new invite: expiry and uses. */
export const InviteCreateBody = z.object({
  expiresAt: z.string().min(1).max(200).openapi({
    description: "`never`, a duration such as `1d`, or `date=<date>`",
    example: "7d",
  }),
  maxUses: z.number().int().min(1).nullable().optional().openapi({ example: 5 }),
});

const create = defineRoute({
  method: "post",
  path: "/auth/invites",
  auth: "admin",
  tags: ["Invites"],
  summary: "Create an invite",
  request: {
    body: jsonBody(InviteCreateBody),
  },
  responses: {
    200: json(InviteWithInviter, "The invite, with its inviter (the caller)"),
    400: errorDoc("An expiry that is not a future time, or a validation failure"),
  },
});

const get = defineRoute({
  method: "get",
  path: "/auth/invites/{id}",
  auth: "admin",
  tags: ["Invites"],
  summary: "One invite, by id or code",
  request: { params: IdParam },
  responses: { 200: json(InviteWithInviter, "The invite"), 404: notFound },
});

const remove = defineRoute({
  method: "delete",
  path: "/auth/invites/{id}",
  auth: "admin",
  tags: ["Invites"],
  summary: "Delete an invite",
  request: { params: IdParam },
  responses: { 200: json(InviteSchema, "The deleted invite"), 404: notFound },
});

const registerRoute = defineRoute({
  method: "post",
  path: "/auth/register",
  auth: "none",
  rateLimit: { max: 1, seconds: 5 },
  tags: ["Auth"],
  summary: "Create a USER account (open registration or an invite) and log in",
  description: "Sets the `service_session` cookie. Needs `featuresUserRegistration`, or " +
    "`invitesEnabled` and a usable invite `code`.",
  request: {
    body: jsonBody(z.object({
      // No examples: on a fresh instance registration is off, so none would succeed.
      username: Username.openapi({ example: undefined }),
      password: NewPassword.openapi({ example: undefined }),
      code: z.string().min(1).max(100).optional().openapi({ description: "Invite id or code" }),
    })),
  },
  responses: {
    200: json(z.object({ user: SelfUserSchema }), "Registered and logged in"),
    400: errorDoc(
      "`User registration is disabled`, `Invites aren't enabled`, `Invalid invite code`, " +
        "`Username is taken`, or a validation failure",
    ),
  },
});

/** The invite and registration routes. */
export const inviteRoutes = newRouter()
  .openapi(web, async (c) => {
    return c.json({ invite: await publicInvite(c.var.services, c.req.valid("query").code) }, 200);
  })
  .openapi(list, async (c) => {
    const invites = await listInvites(c.var.services);
    return c.json(invites.map((i) => inviteView(i.invite, i.inviter)), 200);
  })
  .openapi(create, async (c) => {
    const caller = me(c);
    const invite = await createInvite(c.var.services, caller, c.req.valid("json"));
    return c.json(inviteView(invite, caller), 200);
  })
  .openapi(get, async (c) => {
    const { invite, inviter } = await getInvite(c.var.services, c.req.valid("param").id);
    return c.json(inviteView(invite, inviter), 200);
  })
  .openapi(remove, async (c) => {
    return c.json(inviteView(await deleteInvite(c.var.services, c.req.valid("param").id)), 200);
  })
  .openapi(registerRoute, async (c) => {
    const { user, secret } = await register(c.var.services, c.req.valid("json"), clientInfo(c));
    setSessionCookie(c, secret);
    return c.json({ user: selfView(user) }, 200);
  });
