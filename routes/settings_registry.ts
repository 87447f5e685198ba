/**
 * `GET /api/server/settings/registry`: what the settings registry knows of
 * each key beyond its value (category, type, form control, default,
 * description, restart, secret, the environment variable that pins it), so
 * that a dashboard can generate its settings form rather than list keys.
 * Read-only; Ferry's addition.
 */
import { z } from "@hono/zod-openapi";
import { settingsMetadata } from "../core/settings/metadata.ts";
import { CATEGORIES } from "../core/settings/registry.ts";
import { defineRoute, json, newRouter } from "./define.ts";

/** What the registry knows of one key beyond its value. */
export const SettingMetaSchema = z.object({
  key: z.string(),
  category: z.enum(CATEGORIES),
  label: z.string().openapi({
    description: "What a person reads beside the field",
    example: "Return HTTPS URLs",
  }),
  type: z.enum(["boolean", "integer", "string", "list", "json"]).openapi({
    description: "How the environment variable is read",
  }),
  control: z.enum(["switch", "number", "size", "duration", "text", "path", "list", "json"])
    .openapi({
      description: "The form control for the value: `size` takes `50gb`, `duration` takes " +
        "`30m`, `path` a file or directory on the server",
    }),
  unit: z.enum(["size", "duration", "ms"]).nullable(),
  options: z.array(z.string()).nullable().openapi({
    description: "The values a `text` key accepts, when they are a fixed list",
  }),
  nullable: z.boolean().openapi({ description: "Whether `null` (an empty field) is accepted" }),
  default: z.unknown(),
  description: z.string(),
  restart: z.boolean().openapi({ description: "A change takes effect after a restart" }),
  secret: z.boolean().openapi({ description: "An ADMIN reads the value masked" }),
  superadminOnly: z.boolean().openapi({
    description: "Only a SUPERADMIN may change it; an ADMIN's change is refused (403)",
  }),
  path: z.enum(["file", "directory"]).nullable(),
  alias: z.string().nullable().openapi({
    description: "Zipline's name for the key, accepted by `PATCH` and shown beside it by `GET`",
  }),
  env: z.string().openapi({
    description: "The environment variable that pins the key (then listed in `tampered`)",
    example: "SERVICE_CORE_RETURN_HTTPS_URLS",
  }),
}).openapi("SettingMeta");

/** The categories in order and every key's metadata. */
export const SettingsRegistrySchema = z.object({
  categories: z.array(z.enum(CATEGORIES)),
  settings: z.array(SettingMetaSchema),
}).openapi("SettingsRegistry");

const registry = defineRoute({
  method: "get",
  path: "/server/settings/registry",
  auth: "admin",
  tags: ["Server"],
  summary: "Every setting's category, type, control, default and description, for forms",
  responses: {
    200: json(
      SettingsRegistrySchema,
      "The categories in order and every key, in registry order",
    ),
  },
});

/** The settings registry route. */
export const settingsRegistryRoutes = newRouter()
  .openapi(
    registry,
    (c) => c.json({ categories: [...CATEGORIES], settings: settingsMetadata() }, 200),
  );
