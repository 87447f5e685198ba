/** The current user's exports of its files (`/api/user/export`, reference §4.3). */
import { z } from "@hono/zod-openapi";
import { contentDisposition } from "../core/files/http.ts";
import {
  deleteUserExport,
  downloadUserExport,
  listUserExports,
  startUserExport,
} from "../core/files/user_export.ts";
import type { UserExportRecord } from "../db/user_exports.ts";
import { defineRoute, errorDoc, json, newRouter } from "./define.ts";
import { currentUser as me } from "./env.ts";
import { Timestamp } from "./schemas.ts";

/** One export of a user's files. */
export const UserExportSchema = z.object({
  id: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  completed: z.boolean(),
  path: z.string().openapi({ description: "Where the archive is kept in the datasource" }),
  files: z.number().int(),
  size: z.string().openapi({ description: "The archive's bytes, as a string; `0` until done" }),
}).openapi("UserExport");

const IdQuery = z.object({ id: z.string().min(1).max(100).optional() });

const list = defineRoute({
  method: "get",
  path: "/user/export",
  auth: "user",
  tags: ["User"],
  summary: "The caller's exports, or one finished export's zip",
  description: "Without `id`: every export, oldest first. With `id`: the archive " +
    "(`zexport_<userId>_<ms>_<files>.zip`, files stored at its root).",
  request: { query: IdQuery },
  responses: {
    200: {
      description: "The exports, or the archive",
      content: {
        "application/json": { schema: z.array(UserExportSchema) },
        "application/zip": { schema: z.string().openapi({ format: "binary" }) },
      },
    },
    400: errorDoc("`Export is not completed`"),
    404: errorDoc("`Not Found`: no such export of the caller's"),
  },
});

const start = defineRoute({
  method: "post",
  path: "/user/export",
  auth: "user",
  tags: ["User"],
  summary: "Start a zip export of all the caller's files",
  description: "Answers at once; the archive is built in the background. `GET " +
    "/api/user/export` shows when it is `completed`. A user has one export at a time; it is " +
    "removed a day after it completes.",
  responses: {
    200: json(z.object({ running: z.literal(true) }), "The export started"),
    400: errorDoc("`No files to export`"),
    409: errorDoc("`You already have an export: delete it to start another (…)`"),
  },
});

const remove = defineRoute({
  method: "delete",
  path: "/user/export",
  auth: "user",
  tags: ["User"],
  summary: "Delete one of the caller's exports",
  request: { query: IdQuery },
  responses: {
    200: json(z.object({ deleted: z.literal(true) }), "The export and its archive are gone"),
    400: errorDoc("`No ID provided`"),
    404: errorDoc("`Not Found`: no such export of the caller's"),
  },
});

const view = (e: UserExportRecord) => ({
  id: e.id,
  createdAt: e.createdAt.toISOString(),
  updatedAt: e.updatedAt.toISOString(),
  completed: e.completed,
  path: e.path,
  files: e.files,
  size: String(e.size),
});

/** The user export routes. */
export const userExportRoutes = newRouter()
  .openapi(list, async (c) => {
    const s = c.var.services;
    const { id } = c.req.valid("query");
    if (id === undefined) return c.json((await listUserExports(s, me(c))).map(view), 200);
    const archive = await downloadUserExport(s, me(c), id);
    return c.body(archive.stream, 200, {
      "content-type": "application/zip",
      "content-length": String(archive.size),
      "content-disposition": contentDisposition("attachment", archive.name),
      "cache-control": "private, no-store",
    });
  })
  .openapi(start, async (c) => {
    await startUserExport(c.var.services, me(c));
    return c.json({ running: true as const }, 200);
  })
  .openapi(remove, async (c) => {
    await deleteUserExport(c.var.services, me(c), c.req.valid("query").id);
    return c.json({ deleted: true as const }, 200);
  });
