/** Tags of the current user (`/api/user/tags`) and of managed users (`/api/users/:id/tags`). */
import { z } from "@hono/zod-openapi";
import {
  createTag,
  deleteTag,
  getTag,
  listTags,
  listUserTags,
  updateTag,
} from "../core/files/tags.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { currentUser as me } from "./env.ts";
import { IdParam, Timestamp } from "./schemas.ts";

/** A tag as the API shows it, with the ids of its files (the dashboard types its calls with it). */
export const TagSchema = z.object({
  id: z.string(),
  name: z.string(),
  color: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  files: z.array(z.object({ id: z.string() })),
}).openapi("Tag");

const TagName = z.string().trim().min(1).max(255).openapi({ example: "work" });
const Color = z.string().regex(/^#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})$/, "must be a hex colour")
  .openapi({ example: "#ff8800" });
const notFound = errorDoc("`Not Found`: no such tag of the caller's");

const list = defineRoute({
  method: "get",
  path: "/user/tags",
  auth: "user",
  scope: "files:read",
  tags: ["Tags"],
  summary: "The caller's tags, oldest first",
  responses: { 200: json(z.array(TagSchema), "The tags") },
});

/** A new tag: name and colour. */
export const TagCreateBody = z.object({ name: TagName, color: Color });

const create = defineRoute({
  method: "post",
  path: "/user/tags",
  auth: "user",
  scope: "files:write",
  tags: ["Tags"],
  summary: "Create a tag; its name must be new among the caller's tags",
  request: { body: jsonBody(TagCreateBody) },
  responses: {
    200: json(TagSchema, "The new tag"),
    400: errorDoc("`Cannot create tag with the same name`, or a malformed body"),
  },
});

const get = defineRoute({
  method: "get",
  path: "/user/tags/{id}",
  auth: "user",
  scope: "files:read",
  tags: ["Tags"],
  summary: "One of the caller's tags",
  request: { params: IdParam },
  responses: { 200: json(TagSchema, "The tag"), 404: notFound },
});

/** A change of a tag: name and colour. */
export const TagPatchBody = z.object({ name: TagName.optional(), color: Color.optional() });

const patch = defineRoute({
  method: "patch",
  path: "/user/tags/{id}",
  auth: "user",
  scope: "files:write",
  tags: ["Tags"],
  summary: "Rename or recolour one of the caller's tags",
  request: {
    params: IdParam,
    body: jsonBody(TagPatchBody),
  },
  responses: {
    200: json(TagSchema, "The changed tag"),
    400: errorDoc("`Tag name already exists`, or a malformed body"),
    404: notFound,
  },
});

const remove = defineRoute({
  method: "delete",
  path: "/user/tags/{id}",
  auth: "user",
  scope: "files:write",
  tags: ["Tags"],
  summary: "Delete one of the caller's tags; its files keep everything else",
  request: { params: IdParam },
  responses: { 200: json(z.object({ success: z.literal(true) }), "Deleted"), 404: notFound },
});

const userTags = defineRoute({
  method: "get",
  path: "/users/{id}/tags",
  auth: "admin",
  tags: ["Tags"],
  summary: "The tags of a user the caller manages",
  request: { params: IdParam },
  responses: {
    200: json(z.array(TagSchema), "The tags"),
    404: errorDoc("`Not Found`: no such user, or not one the caller manages"),
  },
});

/** The tag routes. */
export const tagRoutes = newRouter()
  .openapi(list, async (c) => c.json(await listTags(c.var.services, me(c)), 200))
  .openapi(create, async (c) => {
    return c.json(await createTag(c.var.services, me(c), c.req.valid("json")), 200);
  })
  .openapi(get, async (c) => {
    return c.json(await getTag(c.var.services, me(c), c.req.valid("param").id), 200);
  })
  .openapi(patch, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await updateTag(c.var.services, me(c), id, c.req.valid("json")), 200);
  })
  .openapi(remove, async (c) => {
    await deleteTag(c.var.services, me(c), c.req.valid("param").id);
    return c.json({ success: true as const }, 200);
  })
  .openapi(userTags, async (c) => {
    return c.json(await listUserTags(c.var.services, me(c), c.req.valid("param").id), 200);
  });
