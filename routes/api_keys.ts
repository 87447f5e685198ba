/**
 * Scoped API keys (`core/api_keys.ts`): the caller's own (`/api/user/keys`)
 * and, for administrators, those of users below their role
 * (`/api/users/:id/keys`). None of these routes declares a scope: no key
 * manages keys.
 */
import { z } from "@hono/zod-openapi";
import {
  API_KEY_SCOPE_NAMES,
  API_KEY_SCOPES,
  apiKeyScopes,
  createApiKey,
  listApiKeys,
  listUserApiKeys,
  renameApiKey,
  revokeAllApiKeys,
  revokeAllUserApiKeys,
  revokeApiKey,
  revokeUserApiKey,
} from "../core/api_keys.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { currentUser as me } from "./env.ts";
import { IdParam, Timestamp } from "./schemas.ts";

/** One scope a key may hold. */
const ScopeSchema = z.enum(API_KEY_SCOPE_NAMES).openapi("ApiKeyScope", {
  description: Object.entries(API_KEY_SCOPES).map(([name, s]) => `\`${name}\`: ${s.allows}.`)
    .join(" "),
});

/** A scope as the server lists it, with what it allows. */
export const ScopeInfoSchema = z.object({ name: ScopeSchema, allows: z.string() });

const KeyName = z.string().trim().min(1).max(100).openapi({ example: "ShareX" });

/** A key as lists show it: never the key itself. */
export const ApiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(ScopeSchema),
  createdAt: Timestamp,
  expiresAt: Timestamp.nullable().openapi({ description: "`null`: never expires" }),
  lastUsedAt: Timestamp.nullable().openapi({
    description: "When it last authenticated a request, to within a minute; `null`: never",
  }),
}).openapi("ApiKey");

/** The answer to a key's creation: the one time the key is shown. */
export const NewApiKeySchema = ApiKeySchema.extend({
  key: z.string().openapi({
    description: "The key, shown this once (the server keeps only its hash). Send it as the " +
      "whole `Authorization` header.",
  }),
}).openapi("NewApiKey");

const Revoked = z.object({ deleted: z.number().int() }).openapi("ApiKeysRevoked");

const keyNotFound = errorDoc("`Not Found`: the user has no key with this id");
const KeyParams = z.object({
  id: z.string().min(1).max(100).openapi({ param: { name: "id", in: "path" }, example: "c0" }),
  keyId: z.string().min(1).max(100).openapi({
    param: { name: "keyId", in: "path" },
    example: "c1",
  }),
});

const scopes = defineRoute({
  method: "get",
  path: "/user/keys/scopes",
  auth: "user",
  tags: ["API keys"],
  summary: "Every scope a key may hold, with what it allows (for a scope picker)",
  responses: {
    200: json(z.array(ScopeInfoSchema), "The scopes"),
  },
});

const list = defineRoute({
  method: "get",
  path: "/user/keys",
  auth: "user",
  tags: ["API keys"],
  summary: "The caller's API keys, oldest first (never the keys themselves)",
  responses: { 200: json(z.array(ApiKeySchema), "Keys") },
});

/** A new API key: name, scopes, expiry. */
export const ApiKeyCreateBody = z.object({
  name: KeyName,
  scopes: z.array(ScopeSchema).min(1).max(API_KEY_SCOPE_NAMES.length).openapi({
    example: ["files:write"],
  }),
  expiresAt: z.iso.datetime({ offset: true }).nullable().optional().openapi({
    description: "When it stops working (ISO 8601); absent or `null`: never",
  }),
});

const create = defineRoute({
  method: "post",
  path: "/user/keys",
  auth: "user",
  rateLimit: { max: 5, seconds: 10 },
  tags: ["API keys"],
  summary: "Make an API key with some scopes and an optional expiry; the answer shows it once",
  description: "A key is sent like the token (`Authorization: fk_…`) and may call only the " +
    "routes whose scope it holds (each operation's `x-api-key-scope`); others answer 403 " +
    "`This key may not …`. No key may manage users, settings, keys or credentials. " +
    "After `expiresAt`, or once revoked, it answers 401 (on every server process within a " +
    "second). A password change does not revoke keys.",
  request: {
    body: jsonBody(ApiKeyCreateBody),
  },
  responses: {
    200: json(NewApiKeySchema, "The new key"),
    400: errorDoc("`expiresAt must be in the future`, too many keys, or a validation failure"),
  },
});

const rename = defineRoute({
  method: "patch",
  path: "/user/keys/{id}",
  auth: "user",
  tags: ["API keys"],
  summary: "Rename one of the caller's API keys",
  request: { params: IdParam, body: jsonBody(z.object({ name: KeyName })) },
  responses: { 200: json(ApiKeySchema, "The renamed key"), 404: keyNotFound },
});

const revoke = defineRoute({
  method: "delete",
  path: "/user/keys/{id}",
  auth: "user",
  tags: ["API keys"],
  summary: "Revoke one of the caller's API keys: it answers 401 from now on",
  request: { params: IdParam },
  responses: { 200: json(ApiKeySchema, "The revoked key"), 404: keyNotFound },
});

const revokeAll = defineRoute({
  method: "delete",
  path: "/user/keys",
  auth: "user",
  tags: ["API keys"],
  summary: "Revoke every API key of the caller (the token and sessions stay)",
  responses: { 200: json(Revoked, "How many keys were revoked") },
});

const ownerErrors = {
  403: errorDoc("`You cannot manage this user's keys`: the user's role is not below the caller's"),
  404: errorDoc("`Not Found`: no such user (or key)"),
};

const adminList = defineRoute({
  method: "get",
  path: "/users/{id}/keys",
  auth: "admin",
  tags: ["API keys"],
  summary: "The API keys of a user below the caller's role",
  request: { params: IdParam },
  responses: { 200: json(z.array(ApiKeySchema), "Keys, oldest first"), ...ownerErrors },
});

const adminRevoke = defineRoute({
  method: "delete",
  path: "/users/{id}/keys/{keyId}",
  auth: "admin",
  tags: ["API keys"],
  summary: "Revoke one API key of a user below the caller's role",
  request: { params: KeyParams },
  responses: { 200: json(ApiKeySchema, "The revoked key"), ...ownerErrors },
});

const adminRevokeAll = defineRoute({
  method: "delete",
  path: "/users/{id}/keys",
  auth: "admin",
  tags: ["API keys"],
  summary: "Revoke every API key of a user below the caller's role",
  request: { params: IdParam },
  responses: { 200: json(Revoked, "How many keys were revoked"), ...ownerErrors },
});

/** The API key routes. */
export const apiKeyRoutes = newRouter()
  .openapi(scopes, (c) => c.json(apiKeyScopes(), 200))
  .openapi(list, async (c) => c.json(await listApiKeys(c.var.services, me(c)), 200))
  .openapi(create, async (c) => {
    const { expiresAt, ...input } = c.req.valid("json");
    const key = await createApiKey(c.var.services, me(c), {
      ...input,
      expiresAt: expiresAt ? new Date(expiresAt) : null,
    });
    return c.json(key, 200);
  })
  .openapi(rename, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await renameApiKey(c.var.services, me(c), id, c.req.valid("json").name), 200);
  })
  .openapi(revoke, async (c) => {
    return c.json(await revokeApiKey(c.var.services, me(c), c.req.valid("param").id), 200);
  })
  .openapi(revokeAll, async (c) => c.json(await revokeAllApiKeys(c.var.services, me(c)), 200))
  .openapi(adminList, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await listUserApiKeys(c.var.services, me(c), id), 200);
  })
  .openapi(adminRevoke, async (c) => {
    const { id, keyId } = c.req.valid("param");
    return c.json(await revokeUserApiKey(c.var.services, me(c), id, keyId), 200);
  })
  .openapi(adminRevokeAll, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await revokeAllUserApiKeys(c.var.services, me(c), id), 200);
  });
