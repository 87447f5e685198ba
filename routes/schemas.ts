/** Response shapes shared by several API areas. */
import { z } from "@hono/zod-openapi";
import { ROLES } from "../db/store.ts";

/** A quota as the API shows it. */
export const QuotaSchema = z.object({
  id: z.string(),
  filesQuota: z.enum(["BY_BYTES", "BY_FILES", "NONE"]),
  maxBytes: z.string().nullable(),
  maxFiles: z.number().int().nullable(),
  maxUrls: z.number().int().nullable(),
}).openapi("Quota");

/** The user as it sees itself (no secrets). */
export const SelfUserSchema = z.object({
  id: z.string(),
  username: z.string(),
  role: z.enum(ROLES),
  avatar: z.string().nullable(),
  view: z.record(z.string(), z.unknown()),
  totp: z.boolean().openapi({ description: "Whether TOTP is enabled; the secret is never sent." }),
  quota: QuotaSchema.nullable(),
  createdAt: z.string().openapi({ format: "date-time" }),
  updatedAt: z.string().openapi({ format: "date-time" }),
}).openapi("SelfUser");
