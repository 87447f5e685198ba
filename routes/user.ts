/** The current user: profile, API token and sessions (`/api/user/...`). */
import { z } from "@hono/zod-openapi";
import {
  avatarOf,
  listSessions,
  regenerateToken,
  revokeSessions,
  tokenFor,
  updateSelf,
} from "../core/account.ts";
import { preferencesOf, updatePreferences } from "../core/preferences.ts";
import { selfView } from "../core/users.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { currentUser as me } from "./env.ts";
import {
  CurrentPassword,
  NewPassword,
  SelfUserSchema,
  SessionSchema,
  Username,
  ViewSchema,
} from "./schemas.ts";

/** The current user, as `GET /api/user` answers it. */
export const UserReply = z.object({ user: SelfUserSchema }).openapi("UserReply");

/** The body of `PATCH /api/user`. */
export const SelfPatchBody = z.object({
  currentPassword: CurrentPassword,
  username: Username.optional(),
  password: NewPassword.optional(),
  avatar: z.string().nullable().optional().openapi({
    description: 'A base64 image data URI or an http(s) URL; `null` or `""` removes it.',
  }),
  view: ViewSchema.optional(),
});

const getUser = (path: string, summary: string) =>
  defineRoute({
    method: "get",
    path,
    auth: "user",
    scope: "account:read",
    tags: ["User"],
    summary,
    responses: { 200: json(UserReply, "The current user") },
  });

const patchUser = defineRoute({
  method: "patch",
  path: "/user",
  auth: "user",
  rateLimit: { max: 1, seconds: 1 },
  tags: ["User"],
  summary: "Change the current user's username, password, avatar or view settings",
  description: "A new `username` or `password` needs `currentPassword` (or a session signed in " +
    "less than 10 minutes ago). A new password also " +
    "replaces the API token (fetch the new one with `GET /api/user/token`) and ends every " +
    "other session; the session making the change stays.",
  request: {
    body: jsonBody(SelfPatchBody),
  },
  responses: {
    200: json(UserReply, "The updated user"),
    400: errorDoc(
      "`Username already exists`, `currentPassword is required`, an invalid avatar, or a " +
        "validation failure",
    ),
    403: errorDoc("`Invalid current password`"),
  },
});

/** The API token. */
export const TokenReply = z.object({
  token: z.string().openapi({ description: "Send it as the whole `Authorization` header." }),
}).openapi("TokenReply");

const getToken = defineRoute({
  method: "get",
  path: "/user/token",
  auth: "user",
  tags: ["User"],
  summary: "The API token",
  responses: { 200: json(TokenReply, "The token") },
});

const resetToken = defineRoute({
  method: "patch",
  path: "/user/token",
  auth: "user",
  tags: ["User"],
  summary: "Replace the API token; the old one stops working at once",
  responses: { 200: json(TokenReply.extend({ user: SelfUserSchema }), "The new token") },
});

/** The caller's sessions: this one and the others. */
export const SessionsReply = z.object({
  current: SessionSchema.nullable().openapi({ description: "`null` with token auth" }),
  other: z.array(SessionSchema),
}).openapi("SessionsReply");

const getSessions = defineRoute({
  method: "get",
  path: "/user/sessions",
  auth: "user",
  tags: ["User"],
  summary: "The sessions the user is logged in with",
  responses: { 200: json(SessionsReply, "Sessions") },
});

/** Which sessions to end: one, or all but this one. */
export const SessionsDeleteBody = z.object({
  sessionId: z.string().min(1).max(200).optional(),
  all: z.boolean().optional(),
});

const deleteSessions = defineRoute({
  method: "delete",
  path: "/user/sessions",
  auth: "user",
  tags: ["User"],
  summary: "Log out another session, or all other sessions",
  request: {
    body: jsonBody(SessionsDeleteBody),
  },
  responses: {
    200: json(SessionsReply, "The sessions left"),
    400: errorDoc("The current session, an unknown one, or neither field given"),
  },
});

const getAvatar = defineRoute({
  method: "get",
  path: "/user/avatar",
  auth: "user",
  scope: "account:read",
  tags: ["User"],
  summary: "The current user's avatar, as stored: a base64 data URI or an http(s) URL",
  responses: {
    200: { description: "The avatar", content: { "text/plain": { schema: z.string() } } },
    404: errorDoc("`Not Found`: the user has no avatar"),
  },
});

const ThemeId = z.string().trim().min(1).max(110).nullable();

/** The dashboard preferences of a user. */
export const PreferencesSchema = z.object({
  theme: ThemeId.openapi({
    description: "A theme id from `GET /api/server/themes`, or `system` to follow the device " +
      "with `themeDark` and `themeLight`; `null`: the server's default (`websiteThemeDefault`)",
    example: "builtin:dark_blue",
  }),
  themeDark: ThemeId.openapi({
    description: "The theme `system` uses in dark mode; `null`: `websiteThemeDark`",
  }),
  themeLight: ThemeId.openapi({
    description: "The theme `system` uses in light mode; `null`: `websiteThemeLight`",
  }),
  warnDeletion: z.boolean().openapi({
    description: 'Whether the dashboard asks before deleting (Zipline\'s "Warn on deletion")',
  }),
  disableMediaPreview: z.boolean().openapi({
    description: "Whether file lists show type icons instead of pictures (Zipline's " +
      '"Disable media preview")',
  }),
  privateByDefault: z.boolean().openapi({
    description: "Whether new uploads are private (served to nobody but the owner) unless the " +
      "upload's `x-service-private` header says otherwise",
  }),
}).openapi("Preferences");

const getPreferences = defineRoute({
  method: "get",
  path: "/user/preferences",
  auth: "user",
  tags: ["User"],
  summary: "The dashboard preferences of the current user (Ferry)",
  description: "Kept with the user, so they follow it to every browser: the theme and " +
    "whether deletions ask first.",
  responses: { 200: json(PreferencesSchema, "The preferences") },
});

const patchPreferences = defineRoute({
  method: "patch",
  path: "/user/preferences",
  auth: "user",
  tags: ["User"],
  summary: "Change the dashboard preferences of the current user (Ferry)",
  request: { body: jsonBody(PreferencesSchema.partial()) },
  responses: {
    200: json(PreferencesSchema, "The preferences"),
    400: errorDoc("A theme id that no installed theme has, or a validation failure"),
  },
});

/** The current-user routes. */
export const userRoutes = newRouter()
  .openapi(getUser("/user", "The current user"), (c) => c.json({ user: selfView(me(c)) }, 200))
  .openapi(
    getUser("/user/me", "The current user (alias)"),
    (c) => c.json({ user: selfView(me(c)) }, 200),
  )
  .openapi(patchUser, async (c) => {
    const user = await updateSelf(c.var.services, me(c), c.var.session, c.req.valid("json"));
    return c.json({ user: selfView(user) }, 200);
  })
  .openapi(getAvatar, (c) => c.text(avatarOf(me(c)), 200))
  .openapi(getPreferences, (c) => c.json(preferencesOf(me(c)), 200))
  .openapi(patchPreferences, async (c) => {
    return c.json(await updatePreferences(c.var.services, me(c), c.req.valid("json")), 200);
  })
  .openapi(getToken, (c) => c.json({ token: tokenFor(c.var.services, me(c)) }, 200))
  .openapi(resetToken, async (c) => {
    const user = await regenerateToken(c.var.services, me(c));
    return c.json({ user: selfView(user), token: tokenFor(c.var.services, user) }, 200);
  })
  .openapi(
    getSessions,
    async (c) => c.json(await listSessions(c.var.services, me(c), c.var.session), 200),
  )
  .openapi(deleteSessions, async (c) => {
    const s = c.var.services;
    return c.json(await revokeSessions(s, me(c), c.var.session, c.req.valid("json")), 200);
  });
