/**
 * Upload requests (`core/upload_requests.ts`): the caller's own
 * (`/api/user/requests`; a key needs `files:write` to make, change or close
 * one, `files:read` to list them) and what an uploader reads of one
 * (`/api/requests/{code}`, public). The uploads themselves go to
 * `POST /api/upload` and `/api/upload/partial` with `x-service-request`.
 */
import { z } from "@hono/zod-openapi";
import {
  createUploadRequest,
  deleteUploadRequest,
  describeRequest,
  getUploadRequest,
  listUploadRequests,
  unlockRequest,
  updateUploadRequest,
} from "../core/upload_requests.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { attempter, currentUser as me } from "./env.ts";
import { IdParam, Timestamp } from "./schemas.ts";

const Size = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** A type an upload request accepts: `type/subtype`, `type/*` or `.ext`. */
const AllowedType = z.string().trim().toLowerCase().regex(
  /^(?:[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/(?:\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})|\.[a-z0-9][a-z0-9_+-]{0,30})$/,
  "must be a MIME type (image/png), a family (image/*) or an extension (.pdf)",
).openapi({ example: "image/*" });

/** An upload request as its owner sees it. */
export const UploadRequestSchema = z.object({
  id: z.string(),
  code: z.string().openapi({ description: "The code of its link: `/request/<code>`" }),
  url: z.string().openapi({ description: "Its page, where anyone holding the link uploads" }),
  name: z.string(),
  message: z.string().nullable(),
  folderId: z.string().nullable().openapi({
    description: "Where its files land; `null`: the owner's root (its folder was deleted)",
  }),
  maxFiles: z.number().int().nullable(),
  maxBytes: z.number().int().nullable(),
  maxFileSize: z.number().int().nullable(),
  expiresAt: Timestamp.nullable().openapi({ description: "`null`: never" }),
  expired: z.boolean(),
  password: z.boolean().openapi({ description: "Whether it has one; the hash is never sent" }),
  allowedTypes: z.array(z.string()).openapi({ description: "Empty: any type" }),
  files: z.number().int().openapi({ description: "Files received, or arriving" }),
  bytes: z.number().int().openapi({ description: "Bytes received, or reserved by arrivals" }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}).openapi("UploadRequest");

/** What an uploader reads of a request. */
export const PublicUploadRequestSchema = z.object({
  name: z.string(),
  owner: z.string().openapi({ description: "The owner's username" }),
  message: z.string().nullable().openapi({
    description: "`null` until its password is given, when it has one",
  }),
  password: z.boolean(),
  maxFiles: z.number().int().nullable(),
  maxBytes: z.number().int().nullable(),
  maxFileSize: z.number().int().nullable(),
  allowedTypes: z.array(z.string()),
  filesLeft: z.number().int().nullable(),
  bytesLeft: z.number().int().nullable(),
  expiresAt: Timestamp.nullable(),
}).openapi("PublicUploadRequest");

const limits = {
  message: z.string().trim().max(2000).nullable().optional(),
  folderId: z.string().min(1).max(100).optional().openapi({
    description: "A folder of the caller's; absent: a new folder named after the request",
  }),
  maxFiles: z.number().int().min(1).max(1_000_000).nullable().optional(),
  maxBytes: Size.nullable().optional().openapi({ description: "Bytes it accepts in all" }),
  maxFileSize: Size.nullable().optional().openapi({
    description: "Its largest file (the server's own limit still applies)",
  }),
  expiresAt: z.iso.datetime({ offset: true }).nullable().optional().openapi({
    description: "When it closes (ISO 8601); absent or `null`: never",
  }),
  password: z.string().max(1000).nullable().optional().openapi({
    description: 'A password uploaders must give; `null` or `""` removes it',
  }),
  allowedTypes: z.array(AllowedType).max(50).optional().openapi({
    description: "Types it accepts (both the file's type and its name's must match); " +
      "empty or absent: any",
  }),
};

const RequestName = z.string().trim().min(1).max(100).openapi({ example: "Wedding photos" });
const notFound = errorDoc("`Not Found`: the caller has no request with this id");
const CodeParam = z.object({
  code: z.string().min(1).max(100).openapi({ param: { name: "code", in: "path" } }),
});
const closed = errorDoc(
  "`This upload request does not exist or was closed`, `This upload request has expired`",
);

const list = defineRoute({
  method: "get",
  path: "/user/requests",
  auth: "user",
  scope: "files:read",
  tags: ["Upload requests"],
  summary: "The caller's upload requests, oldest first, with their counts",
  responses: { 200: json(z.array(UploadRequestSchema), "Requests") },
});

/** A new upload request: its name and limits. */
export const RequestCreateBody = z.object({ name: RequestName, ...limits });

const create = defineRoute({
  method: "post",
  path: "/user/requests",
  auth: "user",
  scope: "files:write",
  rateLimit: { max: 10, seconds: 60 },
  tags: ["Upload requests"],
  summary: "Ask anyone for files: make an upload request and its link",
  description: "Anyone holding the link uploads, without an account, with " +
    "`x-service-request: <code>` on `POST /api/upload` or `/api/upload/partial` (and " +
    "`x-service-request-password` when it has one). The files are the caller's, land in the " +
    "request's folder and count against the caller's quota; the request refuses what passes " +
    "its limits (413), types (415) or expiry (410).",
  request: { body: jsonBody(RequestCreateBody) },
  responses: {
    200: json(UploadRequestSchema, "The new request"),
    400: errorDoc("`expiresAt must be in the future`, too many requests, or a validation failure"),
    404: errorDoc("`Folder not found`: `folderId` is not one of the caller's folders"),
  },
});

const get = defineRoute({
  method: "get",
  path: "/user/requests/{id}",
  auth: "user",
  scope: "files:read",
  tags: ["Upload requests"],
  summary: "One of the caller's upload requests",
  request: { params: IdParam },
  responses: { 200: json(UploadRequestSchema, "The request"), 404: notFound },
});

/** A change of an upload request. */
export const RequestPatchBody = z.object({ name: RequestName.optional(), ...limits });

const patch = defineRoute({
  method: "patch",
  path: "/user/requests/{id}",
  auth: "user",
  scope: "files:write",
  tags: ["Upload requests"],
  summary: "Change an upload request: name, message, folder, limits, expiry, password, types",
  description: "`null` removes a limit, the expiry, the message or the password. Lowering a " +
    "limit below what the request received already closes it to further files.",
  request: {
    params: IdParam,
    body: jsonBody(RequestPatchBody),
  },
  responses: {
    200: json(UploadRequestSchema, "The changed request"),
    400: errorDoc("`expiresAt must be in the future`, or a validation failure"),
    404: errorDoc("`Not Found` (no such request), `Folder not found`"),
  },
});

const remove = defineRoute({
  method: "delete",
  path: "/user/requests/{id}",
  auth: "user",
  scope: "files:write",
  tags: ["Upload requests"],
  summary: "Close an upload request: its link answers 410; the files it received stay",
  request: { params: IdParam },
  responses: { 200: json(UploadRequestSchema, "The closed request"), 404: notFound },
});

const describe = defineRoute({
  method: "get",
  path: "/requests/{code}",
  auth: "none",
  tags: ["Upload requests"],
  summary: "What an uploader reads of an upload request (its message once its password is given)",
  request: { params: CodeParam },
  responses: { 200: json(PublicUploadRequestSchema, "The request"), 410: closed },
});

/** The password that opens an upload request. */
export const RequestPasswordBody = z.object({ password: z.string().min(1).max(1000) });

const unlock = defineRoute({
  method: "post",
  path: "/requests/{code}/password",
  auth: "none",
  rateLimit: { max: 2, seconds: 1 },
  tags: ["Upload requests"],
  summary: "Give an upload request's password: answers the request with its message",
  description: "Every attempt counts against 2 a second per client IP and request (429 past " +
    "it) and is logged. A right password opens the request to this address for an hour: its " +
    "uploads then carry it in `x-service-request-password` without a new check.",
  request: {
    params: CodeParam,
    body: jsonBody(RequestPasswordBody),
  },
  responses: {
    200: json(PublicUploadRequestSchema, "The request, with its message"),
    401: errorDoc("`This upload request needs its password`"),
    403: errorDoc("`Incorrect password`"),
    410: closed,
  },
});

/** The upload request routes. */
export const uploadRequestRoutes = newRouter()
  .openapi(list, async (c) => {
    const host = new URL(c.req.url).host;
    return c.json(await listUploadRequests(c.var.services, me(c), host), 200);
  })
  .openapi(create, async (c) => {
    const { expiresAt, ...input } = c.req.valid("json");
    const host = new URL(c.req.url).host;
    const request = await createUploadRequest(c.var.services, me(c), {
      ...input,
      expiresAt: expiresAt ? new Date(expiresAt) : null,
    }, host);
    return c.json(request, 200);
  })
  .openapi(get, async (c) => {
    const host = new URL(c.req.url).host;
    const { id } = c.req.valid("param");
    return c.json(await getUploadRequest(c.var.services, me(c), id, host), 200);
  })
  .openapi(patch, async (c) => {
    const { expiresAt, ...change } = c.req.valid("json");
    const host = new URL(c.req.url).host;
    const { id } = c.req.valid("param");
    const request = await updateUploadRequest(c.var.services, me(c), id, {
      ...change,
      ...(expiresAt === undefined ? {} : { expiresAt: expiresAt ? new Date(expiresAt) : null }),
    }, host);
    return c.json(request, 200);
  })
  .openapi(remove, async (c) => {
    const host = new URL(c.req.url).host;
    const { id } = c.req.valid("param");
    return c.json(await deleteUploadRequest(c.var.services, me(c), id, host), 200);
  })
  .openapi(describe, async (c) => {
    return c.json(await describeRequest(c.var.services, c.req.valid("param").code), 200);
  })
  .openapi(unlock, async (c) => {
    const { code } = c.req.valid("param");
    const { password } = c.req.valid("json");
    const view = await unlockRequest(c.var.services, { code, password, attempt: attempter(c) });
    return c.json(view, 200);
  });
