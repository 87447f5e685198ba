/** User administration (spec §4.1): `/api/users` and `/api/users/:id`. */
import { z } from "@hono/zod-openapi";
import {
  adminCreateUser,
  adminDeleteUser,
  adminGetUser,
  adminUpdateUser,
  listUsers,
  usersUsage,
} from "../core/user_admin.ts";
import { deletedView, detailView } from "../core/users.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { currentUser as me } from "./env.ts";
import {
  DeletedUserSchema,
  IdParam,
  NewPassword,
  RoleSchema,
  UserDetailSchema,
  Username,
  UserSummarySchema,
} from "./schemas.ts";

const notFound = errorDoc("`Not Found`: no user has this id");

/** One user's files, bytes stored and short URLs (`GET /api/users/usage`). */
export const UserUsageSchema = z.object({
  id: z.string(),
  files: z.number().int(),
  storage: z.number().int().openapi({ description: "Bytes of the user's files" }),
  urls: z.number().int(),
});

/** The body of `POST /api/users`. */
export const UserCreateBody = z.object({
  username: Username,
  password: NewPassword,
  avatar: z.string().optional(),
  role: RoleSchema.optional().openapi({ description: "Default `USER`" }),
  noincl: z.boolean().optional().openapi({ description: "Accepted for Zipline clients" }),
});

const list = defineRoute({
  method: "get",
  path: "/users",
  auth: "admin",
  tags: ["Users"],
  summary: "Every user (without the caller when `noincl`)",
  request: {
    query: z.object({
      noincl: z.enum(["true", "false"]).optional().openapi({
        description: "`true` leaves out the caller",
      }),
    }),
  },
  responses: { 200: json(z.array(UserSummarySchema), "Users, oldest first") },
});

const usage = defineRoute({
  method: "get",
  path: "/users/usage",
  auth: "admin",
  tags: ["Users"],
  summary: "Every user's files, bytes stored and short URLs",
  description: "Ferry's addition for the administrators' user list: the counts the quotas use.",
  responses: {
    200: json(
      z.array(UserUsageSchema).openapi("UserUsage"),
      "One entry per user, oldest user first",
    ),
  },
});

const create = defineRoute({
  method: "post",
  path: "/users",
  auth: "admin",
  rateLimit: { max: 1, seconds: 1 },
  tags: ["Users"],
  summary: "Create a user with a role at or below the caller's",
  request: {
    body: jsonBody(UserCreateBody),
  },
  responses: {
    200: json(
      UserDetailSchema,
      "The created user: the spec's summary, with `updatedAt` and `view` as Zipline sends them",
    ),
    400: errorDoc("`Username already exists`, an invalid avatar, or a validation failure"),
    403: errorDoc("`You cannot create this role`, or `forbidden` for a non-admin"),
  },
});

const get = defineRoute({
  method: "get",
  path: "/users/{id}",
  auth: "admin",
  tags: ["Users"],
  summary: "One user's detail",
  request: { params: IdParam },
  responses: { 200: json(UserDetailSchema, "The user"), 404: notFound },
});

const QuotaInput = z.object({
  filesType: z.enum(["BY_BYTES", "BY_FILES", "NONE"]).optional(),
  maxBytes: z.string().min(1).max(50).nullable().optional().openapi({ example: "50gb" }),
  maxFiles: z.number().int().min(1).nullable().optional(),
  maxUrls: z.number().int().min(1).nullable().optional(),
});

/** A user change as `PATCH /api/users/:id` takes it (and the operator's `set-user`). */
export const UserPatchBody = z.object({
  username: Username.optional(),
  password: NewPassword.optional(),
  avatar: z.string().nullable().optional(),
  role: RoleSchema.optional(),
  quota: QuotaInput.optional(),
});

const update = defineRoute({
  method: "patch",
  path: "/users/{id}",
  auth: "admin",
  tags: ["Users"],
  summary: "Change a user the caller manages",
  description: "A new `password` also replaces the user's API token and ends all its sessions.",
  request: {
    params: IdParam,
    body: jsonBody(UserPatchBody),
  },
  responses: {
    200: json(
      UserDetailSchema,
      "The updated user: the spec's summary, with `updatedAt` and `view` as Zipline sends them",
    ),
    400: errorDoc("`Username already exists`, `maxBytes is required`, `maxFiles is required`, …"),
    403: errorDoc("`You cannot modify this user`, `You cannot assign this role`"),
    404: notFound,
  },
});

/** Deleting a user, with their files and URLs or not. */
export const UserDeleteBody = z.object({
  delete: z.boolean().optional().openapi({
    description: "`true` also removes the user's files and URLs; otherwise they stay",
  }),
});

const remove = defineRoute({
  method: "delete",
  path: "/users/{id}",
  auth: "admin",
  tags: ["Users"],
  summary: "Delete a user the caller manages",
  request: {
    params: IdParam,
    body: jsonBody(UserDeleteBody),
  },
  responses: {
    200: json(DeletedUserSchema, "The deleted user"),
    403: errorDoc("`You cannot delete yourself`, `You cannot delete this user`"),
    404: notFound,
  },
});

/** The user administration routes. */
export const usersRoutes = newRouter()
  .openapi(list, async (c) => {
    const noincl = c.req.valid("query").noincl === "true";
    return c.json(await listUsers(c.var.services, me(c), noincl), 200);
  })
  .openapi(usage, async (c) => c.json(await usersUsage(c.var.services), 200))
  .openapi(create, async (c) => {
    const user = await adminCreateUser(c.var.services, me(c), c.req.valid("json"));
    return c.json(detailView(user), 200);
  })
  .openapi(get, async (c) => {
    const user = await adminGetUser(c.var.services, c.req.valid("param").id);
    return c.json(detailView(user), 200);
  })
  .openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    const user = await adminUpdateUser(c.var.services, me(c), id, c.req.valid("json"));
    return c.json(detailView(user), 200);
  })
  .openapi(remove, async (c) => {
    const { id } = c.req.valid("param");
    const user = await adminDeleteUser(
      c.var.services,
      me(c),
      id,
      c.req.valid("json").delete ?? false,
    );
    return c.json(deletedView(user), 200);
  });
