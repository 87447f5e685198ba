/**
 * Share links (`core/shares.ts`): make one to a file or folder of the
 * caller's, list them, revoke one; and the check of a link's password, which
 * its page asks for (`core/shared.ts`). The links themselves, `/s/<code>`,
 * are pages and bytes (`web/shared.tsx`), outside the API.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ShareTarget } from "../db/shares.ts";
import { createShare, listShares, revokeShare } from "../core/shares.ts";
import { SHARE_ACCESS_SECONDS, shareCookieName, verifySharePassword } from "../core/shared.ts";
import { setServiceCookie } from "./cookies.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { type AppEnv, attempter, currentUser as me } from "./env.ts";
import { IdParam, Password, Timestamp } from "./schemas.ts";

/** A share link as its owner sees it. */
/** A share link as its owner sees it. */
export const ShareSchema = z.object({
  id: z.string(),
  code: z.string().openapi({ description: "The link's secret part: 128 random bits, base64url" }),
  url: z.string().openapi({ example: "https://ferry.example/s/3q2-7wEjRkKZ1rNcJ5aFbw" }),
  createdAt: Timestamp,
  expiresAt: Timestamp.nullable().openapi({ description: "`null`: never expires" }),
  maxViews: z.number().int().nullable().openapi({ description: "`null`: no limit" }),
  views: z.number().int(),
  password: z.boolean().openapi({ description: "Whether it asks for one; never the password" }),
  target: z.object({
    kind: z.enum(["file", "folder"]),
    id: z.string(),
    name: z.string().openapi({
      description: "The file's original (else stored) name, the folder's",
    }),
  }),
}).openapi("Share");

/** A new share link: expiry, view limit, password. */
export const ShareCreateBody = z.object({
  expiresAt: z.iso.datetime({ offset: true }).nullable().optional().openapi({
    description: "When the link stops working; `null` or absent: never",
  }),
  maxViews: z.number().int().min(0).max(2_147_483_647).nullable().optional().openapi({
    description: "Views after which the link stops working; `0`, `null` or absent: no limit",
  }),
  password: z.string().max(1000).nullable().optional().openapi({
    description: 'A password the link asks for on its page; `""`, `null` or absent: none',
  }),
});

const ShareBody = jsonBody(ShareCreateBody);

const made = (what: string) => ({
  200: json(ShareSchema, "The new link"),
  400: errorDoc("`expiresAt: must be in the future`, too many links, or a validation failure"),
  404: errorDoc(`\`Not Found\`: no such ${what} of the caller's`),
});

const description = "The link, `/s/<code>`, opens its target whether or not it is private, " +
  "with its own password, expiry and view limit (the file's own do not apply through it); a " +
  "view is counted when bytes are read. It goes when revoked, or with its target or its user.";

const forFile = defineRoute({
  method: "post",
  path: "/user/files/{id}/shares",
  auth: "user",
  scope: "files:write",
  tags: ["Shares"],
  summary: "Make a share link to one of the caller's files",
  description,
  request: { params: IdParam, body: ShareBody },
  responses: made("file"),
});

const forFolder = defineRoute({
  method: "post",
  path: "/user/folders/{id}/shares",
  auth: "user",
  scope: "folders:write",
  tags: ["Shares"],
  summary: "Make a share link to one of the caller's folders (a gallery of its files, and a zip)",
  description,
  request: { params: IdParam, body: ShareBody },
  responses: made("folder"),
});

const list = defineRoute({
  method: "get",
  path: "/user/shares",
  auth: "user",
  scope: "files:read",
  tags: ["Shares"],
  summary: "The caller's share links, oldest first, each with its target",
  request: {
    query: z.object({
      fileId: z.string().min(1).max(100).optional().openapi({ description: "Only this file's" }),
      folderId: z.string().min(1).max(100).optional().openapi({
        description: "Only this folder's",
      }),
    }),
  },
  responses: { 200: json(z.array(ShareSchema), "The links") },
});

const revoke = defineRoute({
  method: "delete",
  path: "/user/shares/{id}",
  auth: "user",
  scope: "files:write",
  tags: ["Shares"],
  summary: "Revoke a share link, at once",
  request: { params: IdParam },
  responses: {
    200: json(ShareSchema, "The revoked link"),
    404: errorDoc("`Not Found`: the caller has no link with this id"),
  },
});

const password = defineRoute({
  method: "post",
  path: "/shares/{code}/password",
  auth: "none",
  tags: ["Shares"],
  summary: "Verify a share link's password",
  description: "Sets the cookie `share_pw_<shareId>` (a grant for this client's address, not " +
    "the password; an hour) that opens the link's page and bytes. Every attempt, here or " +
    "through the cookie, counts against 2 a second per client IP and link (429 past it) and " +
    "is logged.",
  request: {
    params: z.object({
      code: z.string().min(1).max(100).openapi({ param: { name: "code", in: "path" } }),
    }),
    body: jsonBody(z.object({ password: Password })),
  },
  responses: {
    200: json(z.object({ success: z.literal(true) }), "The password is right"),
    403: errorDoc("`Incorrect password`"),
    404: errorDoc("`Not Found`: no such live link, or it has no password"),
  },
});

/** The host the request was sent to, for the links' origin. */
const hostOf = (c: Context<AppEnv>) => c.req.header("host") ?? new URL(c.req.url).host;

/** The share routes. */
export const shareRoutes = newRouter()
  .openapi(forFile, async (c) => {
    const target: ShareTarget = { kind: "file", id: c.req.valid("param").id };
    return c.json(await make(c, target, c.req.valid("json")), 200);
  })
  .openapi(forFolder, async (c) => {
    const target: ShareTarget = { kind: "folder", id: c.req.valid("param").id };
    return c.json(await make(c, target, c.req.valid("json")), 200);
  })
  .openapi(list, async (c) => {
    const { fileId, folderId } = c.req.valid("query");
    const target: ShareTarget | undefined = fileId
      ? { kind: "file", id: fileId }
      : folderId
      ? { kind: "folder", id: folderId }
      : undefined;
    return c.json(await listShares(c.var.services, me(c), hostOf(c), target), 200);
  })
  .openapi(revoke, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await revokeShare(c.var.services, me(c), id, hostOf(c)), 200);
  })
  .openapi(password, async (c) => {
    const { share, grant } = await verifySharePassword(
      c.var.services,
      c.req.valid("param").code,
      c.req.valid("json").password,
      attempter(c),
    );
    setServiceCookie(c, shareCookieName(share.id), grant, {
      path: "/s",
      maxAge: SHARE_ACCESS_SECONDS,
      httpOnly: true,
    });
    return c.json({ success: true as const }, 200);
  });

/** Makes a link to `target` with the body's options. */
function make(
  c: Context<AppEnv>,
  target: ShareTarget,
  body: { expiresAt?: string | null; maxViews?: number | null; password?: string | null },
) {
  return createShare(c.var.services, me(c), target, {
    ...body,
    expiresAt: body.expiresAt ? new Date(body.expiresAt) : null,
  }, hostOf(c));
}
