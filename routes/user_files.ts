/**
 * The caller's files at a glance and in progress (`/api/user/recent`,
 * `/api/user/stats`, `/api/user/activity`, `/api/user/files/incomplete`) and an owner's read of a
 * file's bytes (`/api/user/files/{id}/raw`) or of several as a zip
 * (`/api/user/files/zip`). Mounted before `files.ts`, whose `/user/files/{id}`
 * would otherwise answer for `incomplete` and `zip`.
 */
import { z } from "@hono/zod-openapi";
import { CHOSEN_FILES_MAX, chosenFilesArchive } from "../core/files/archive.ts";
import { dropUploads, incompleteUploads } from "../core/files/chunked.ts";
import { contentDisposition } from "../core/files/http.ts";
import { serveFileOfUser } from "../core/files/manage.ts";
import { recentFiles, userActivity, userStats } from "../core/files/overview.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { currentUser as me } from "./env.ts";
import { FileSchema } from "./files.ts";
import { bytesRequest, fileResponse } from "./public.ts";
import { Timestamp } from "./schemas.ts";

/** Totals over a user's files and short URLs (`GET /api/user/stats`). */
export const UserStatsSchema = z.object({
  filesUploaded: z.number().int(),
  favoriteFiles: z.number().int(),
  views: z.number().int().openapi({ description: "Views of all the files" }),
  avgViews: z.number().openapi({ description: "Views per file" }),
  storageUsed: z.number().int().openapi({ description: "Bytes of all the files" }),
  avgStorageUsed: z.number().openapi({ description: "Bytes per file" }),
  urlsCreated: z.number().int(),
  urlViews: z.number().int(),
  sortTypeCount: z.record(z.string(), z.number().int()).openapi({
    description: "Files per MIME type",
    example: { "image/png": 3, "text/plain": 1 },
  }),
}).openapi("UserStats");

const recent = defineRoute({
  method: "get",
  path: "/user/recent",
  auth: "user",
  scope: "files:read",
  tags: ["Files"],
  summary: "The caller's newest files, newest first",
  request: {
    query: z.object({
      take: z.coerce.number().int().min(1).max(100).default(3).openapi({ example: 3 }),
    }),
  },
  responses: { 200: json(z.array(FileSchema), "Up to `take` files") },
});

const stats = defineRoute({
  method: "get",
  path: "/user/stats",
  auth: "user",
  scope: "account:read",
  tags: ["User"],
  summary: "Totals over the caller's files and short URLs",
  responses: {
    200: json(
      UserStatsSchema,
      "The totals",
    ),
  },
});

const activity = defineRoute({
  method: "get",
  path: "/user/activity",
  auth: "user",
  scope: "account:read",
  tags: ["User"],
  summary: "The caller's uploads and logins per day",
  request: {
    query: z.object({
      days: z.coerce.number().int().min(1).max(90).default(14).openapi({ example: 14 }),
    }),
  },
  responses: {
    200: json(
      z.object({
        days: z.number().int(),
        series: z.array(z.object({
          date: Timestamp.openapi({ description: "The day's start, UTC" }),
          uploads: z.number().int().openapi({ description: "Files uploaded that day, still kept" }),
          logins: z.number().int().openapi({
            description: "Sessions started that day, still kept",
          }),
        })).openapi({ description: "One entry a day, oldest first, today last" }),
        totals: z.object({ uploads: z.number().int(), logins: z.number().int() }),
      }).openapi("UserActivity"),
      "The activity",
    ),
  },
});

const IncompleteFileSchema = z.object({
  id: z.string().openapi({ description: "The upload's identifier" }),
  createdAt: Timestamp,
  updatedAt: Timestamp.openapi({ description: "When the last chunk arrived" }),
  status: z.enum(["PENDING", "PROCESSING"]).openapi({
    description: "`PENDING` while chunks arrive, `PROCESSING` while they are joined",
  }),
  chunksTotal: z.number().int(),
  chunksComplete: z.number().int(),
  userId: z.string(),
  metadata: z.object({
    file: z.object({
      filename: z.string(),
      type: z.string(),
      id: z.string().openapi({ description: "The upload's identifier (no file exists yet)" }),
    }),
  }),
}).openapi("IncompleteFile");

const incomplete = defineRoute({
  method: "get",
  path: "/user/files/incomplete",
  auth: "user",
  scope: "files:write",
  tags: ["Files"],
  summary: "The caller's unfinished chunked uploads",
  responses: { 200: json(z.array(IncompleteFileSchema), "Oldest first") },
});

const dropIncomplete = defineRoute({
  method: "delete",
  path: "/user/files/incomplete",
  auth: "user",
  scope: "files:write",
  tags: ["Files"],
  summary: "Abandon some of the caller's unfinished chunked uploads",
  request: {
    body: jsonBody(z.object({
      id: z.array(z.string().min(1).max(100)).min(1).max(1000).openapi({
        description: "Upload identifiers; others' and unknown ones are passed over",
      }),
    })),
  },
  responses: { 200: json(z.object({ count: z.number().int() }), "How many were dropped") },
});

const Binary = z.string().openapi({ format: "binary" });
const bytes = (description: string) => ({
  description,
  content: { "application/octet-stream": { schema: Binary } },
});

const raw = defineRoute({
  method: "get",
  path: "/user/files/{id}/raw",
  auth: "user",
  scope: "files:read",
  tags: ["Files"],
  summary: "A file's bytes, for its owner or a manager of the owner; no view is counted",
  description: "The headers, ranges and conditional requests of `/raw/<name>`. A " +
    "password-protected file still needs its access cookie `file_pw_<id>` (or `?pw=`); either " +
    "counts against the file's password attempts (2 a second per client IP, 429 past it).",
  request: {
    params: z.object({
      id: z.string().min(1).max(1024).openapi({
        param: { name: "id", in: "path" },
        description: "The file's id or its name, or the `thumbnail.path` of a file (its thumbnail)",
      }),
    }),
    query: z.object({
      download: z.enum(["true", "false"]).optional().openapi({
        description: "`true` sends it as an attachment",
      }),
      pw: z.string().max(1000).optional().openapi({ description: "The file's password" }),
    }),
  },
  responses: {
    200: bytes("The file"),
    206: bytes("The requested range"),
    304: { description: "The client's copy is current" },
    403: errorDoc("`Password protected`, `Incorrect password`"),
    404: errorDoc("`Not Found`: no such file, not one the caller may see, expired or used up"),
    416: { description: "The range starts past the end (`Content-Range: bytes */<size>`)" },
  },
});

const zip = defineRoute({
  method: "get",
  path: "/user/files/zip",
  auth: "user",
  scope: "files:read",
  tags: ["Files"],
  summary: "Several of the caller's own files as one zip",
  description: "The files at the archive's root, streamed as they are read. Every file named " +
    "must be the caller's, complete and not expired, or the answer is 404.",
  request: {
    query: z.object({
      files: z.string().min(1).max(CHOSEN_FILES_MAX * 101).openapi({
        description: `Comma-separated file ids or names, at most ${CHOSEN_FILES_MAX}`,
        example: "c0a1,c0a2",
      }).transform((v) => v.split(",").map((id) => id.trim()).filter(Boolean))
        .pipe(z.array(z.string().min(1).max(100)).min(1).max(CHOSEN_FILES_MAX)),
    }),
  },
  responses: {
    200: {
      description: "The archive, `<username>-files.zip`",
      content: { "application/zip": { schema: z.string().openapi({ format: "binary" }) } },
    },
    404: errorDoc("`Not Found`: a file is missing, not the caller's, pending or expired"),
  },
});

/** The overview, incomplete-upload, owner-read and zip routes. */
export const userFileRoutes = newRouter()
  .openapi(recent, async (c) => {
    return c.json(await recentFiles(c.var.services, me(c), c.req.valid("query").take), 200);
  })
  .openapi(stats, async (c) => c.json(await userStats(c.var.services, me(c)), 200))
  .openapi(activity, async (c) => {
    const { days } = c.req.valid("query");
    return c.json(await userActivity(c.var.services, me(c), days), 200);
  })
  .openapi(incomplete, async (c) => c.json(await incompleteUploads(c.var.services, me(c)), 200))
  .openapi(dropIncomplete, async (c) => {
    const count = await dropUploads(c.var.services, me(c), c.req.valid("json").id);
    return c.json({ count }, 200);
  })
  .openapi(zip, async (c) => {
    const archive = await chosenFilesArchive(c.var.services, me(c), c.req.valid("query").files);
    return c.body(archive.stream, 200, {
      "content-type": "application/zip",
      "content-disposition": contentDisposition("attachment", `${archive.name}.zip`),
      "cache-control": "no-store",
    });
  })
  .openapi(raw, async (c) => {
    const s = c.var.services;
    const { download, pw } = c.req.valid("query");
    const req = bytesRequest(c, download === "true", pw);
    return fileResponse(await serveFileOfUser(s, me(c), c.req.valid("param").id, req));
  });
