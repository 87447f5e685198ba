/**
 * Server settings (spec §4.2): `GET` and `PATCH /api/server/settings`, and the
 * settings audit trail, `GET /api/server/audit`. The shapes are generated from
 * the settings registry.
 */
import { z } from "@hono/zod-openapi";
import { ALIASES, MASK, REGISTRY, SETTING_KEYS, settingDef } from "../core/settings/registry.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { currentUser } from "./env.ts";
import { Timestamp } from "./schemas.ts";

const SECRET_NOTE = `secret: an ADMIN reads \`${MASK}\` when it is set (see \`secretsSet\`), ` +
  `and a \`${MASK}\` sent back leaves it unchanged; a SUPERADMIN reads the value`;

/** Every key with its registry schema and description; a secret also takes the mask. */
const shape = Object.fromEntries(
  SETTING_KEYS.map((key) => {
    const def = settingDef(key);
    const flags = [def.restart && "needs a restart", def.secret && SECRET_NOTE].filter(Boolean);
    const description = def.description + (flags.length ? ` (${flags.join("; ")})` : "");
    const schema = def.secret ? def.schema.or(z.literal(MASK)) : def.schema;
    return [key, schema.describe(description)];
  }),
) as { [K in keyof typeof REGISTRY]: (typeof REGISTRY)[K]["schema"] };

/** Each alias (Zipline v4's name of a key), with its key's schema. */
const aliasShape = Object.fromEntries(
  [...ALIASES].map(([alias, key]) => [
    alias,
    shape[key].optional().describe(`Zipline v4's name of \`${key}\`: the same value`),
  ]),
);

const SettingsSchema = z.object({ ...shape, ...aliasShape }).openapi("Settings");

/** Every setting, with the keys the environment pins and the secrets that hold a value. */
export const SettingsViewSchema = z.object({
  settings: SettingsSchema,
  tampered: z.array(z.string()).openapi({
    description: "Keys set by SERVICE_<KEY> environment variables; they cannot be changed here.",
  }),
  secretsSet: z.array(z.string()).openapi({
    description: `The secret keys that hold a value; an ADMIN sees their values as \`${MASK}\`.`,
  }),
}).openapi("SettingsView");

const get = defineRoute({
  method: "get",
  path: "/server/settings",
  auth: "admin",
  tags: ["Server"],
  summary: "Every setting, and the keys the environment sets",
  responses: { 200: json(SettingsViewSchema, "The settings") },
});

/** A change of some settings, applied all or none. */
export const SettingsPatchBody = z.looseObject({ ...shape, ...aliasShape }).partial();

const patch = defineRoute({
  method: "patch",
  path: "/server/settings",
  auth: "admin",
  rateLimit: { max: 1, seconds: 1 },
  // Room for every key at once: five lists of up to 1000 entries and two embeds.
  bodyLimit: 4 * 1024 * 1024,
  tags: ["Server"],
  summary: "Change any subset of the settings, all or nothing",
  description: "Every key is validated before any is written; unknown keys, keys set by the " +
    "environment and an empty body are refused. Changes apply at once, on every server process " +
    "within seconds, except keys marked as needing a restart. A key may be sent by its Zipline " +
    "v4 name (`discordWebhookUrl` for `chatWebhookUrl`, `mfaPasskeys` for " +
    "`mfaPasskeysEnabled`); when both names are sent, the one that changes the value counts.",
  // Loose, so that unknown keys reach the core and are refused by name.
  request: { body: jsonBody(SettingsPatchBody) },
  responses: {
    200: json(SettingsViewSchema, "The settings after the change"),
    400: errorDoc("A key failed validation, is unknown or is set by the environment; see `issues`"),
  },
});

const AuditQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50).openapi({
    description: "At most this many records (default 50, at most 500)",
  }),
  before: z.string().optional().transform((v, ctx) => {
    if (v === undefined) return undefined;
    if (/^\d+$/.test(v)) return Number(v);
    if (/^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v))) return new Date(v);
    ctx.addIssue({ code: "custom", message: "must be an audit record id or an ISO 8601 date" });
    return z.NEVER;
  }).openapi({ description: "Only records older than this record id or ISO 8601 date" }),
});

/** One settings change in the audit trail. */
export const AuditRecordSchema = z.object({
  id: z.number().int().openapi({ description: "The settings version the change produced" }),
  createdAt: Timestamp,
  user: z.object({ id: z.string(), username: z.string() }),
  changes: z.array(z.object({
    key: z.string(),
    old: z.unknown().openapi({ description: "Secrets show as ********" }),
    new: z.unknown(),
  })),
}).openapi("SettingsAuditRecord");

const audit = defineRoute({
  method: "get",
  path: "/server/audit",
  auth: "super",
  tags: ["Server"],
  summary: "Who changed which settings, newest first",
  request: { query: AuditQuery },
  responses: { 200: json(z.array(AuditRecordSchema), "Audit records, newest first") },
});

/** The settings routes. */
export const settingsRoutes = newRouter()
  .openapi(get, (c) => c.json(c.var.services.settings.view(currentUser(c).role), 200))
  .openapi(patch, async (c) => {
    const user = currentUser(c);
    const view = await c.var.services.settings.update(c.req.valid("json"), user);
    return c.json(view, 200);
  })
  .openapi(audit, async (c) => {
    const records = await c.var.services.settings.history(c.req.valid("query"));
    return c.json(
      records.map((r) => ({
        id: r.id,
        createdAt: r.at.toISOString(),
        user: { id: r.userId, username: r.username },
        changes: r.changes,
      })),
      200,
    );
  });
