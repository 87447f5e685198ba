/** Request and response shapes shared by several API areas. */
import { z } from "@hono/zod-openapi";
import {
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  PASSWORD_TOO_SHORT,
  passwordProblem,
} from "../core/password_policy.ts";
import { TOTP_SECRET_MARKER } from "../core/users.ts";
import { ROLES } from "../db/users.ts";

/** An ISO 8601 timestamp string. */
export const Timestamp = z.string().openapi({ format: "date-time" });

/** A role. */
export const RoleSchema = z.enum(ROLES).openapi("Role");

/** A quota as the API shows it. */
export const QuotaSchema = z.object({
  id: z.string(),
  filesQuota: z.enum(["BY_BYTES", "BY_FILES", "NONE"]),
  maxBytes: z.string().nullable().openapi({ example: "50gb" }),
  maxFiles: z.number().int().nullable(),
  maxUrls: z.number().int().nullable(),
}).openapi("Quota");

/** A user's view (public page) settings, as Zipline keeps them. */
export const ViewSchema = z.object({
  enabled: z.boolean(),
  disableTextFiles: z.boolean(),
  align: z.enum(["left", "center", "right"]),
  showMimetype: z.boolean(),
  showTags: z.boolean(),
  showFolder: z.boolean(),
  content: z.string().max(10_000).nullable(),
  embed: z.boolean(),
  embedMediaOnly: z.boolean(),
  embedTitle: z.string().max(1000).nullable(),
  embedDescription: z.string().max(1000).nullable(),
  embedColor: z.string().regex(/^#?([a-fA-F0-9]{6}|[a-fA-F0-9]{3})$/).nullable(),
  embedSiteName: z.string().max(1000).nullable(),
}).partial();

/** The spec's user summary (list element, create and update response). */
export const UserSummarySchema = z.object({
  id: z.string(),
  username: z.string(),
  role: RoleSchema,
  avatar: z.string().nullable(),
  createdAt: Timestamp,
  quota: QuotaSchema.nullable(),
}).openapi("UserSummary");

/** The spec's user detail. */
export const UserDetailSchema = UserSummarySchema.extend({
  updatedAt: Timestamp,
  view: ViewSchema.extend({ enabled: z.boolean(), embedColor: z.string().nullable() }),
}).openapi("UserDetail");

/** The user as it sees itself: its detail and whether TOTP is on. */
export const SelfUserSchema = UserDetailSchema.extend({
  totp: z.boolean().openapi({ description: "Whether TOTP is enabled; the secret is never sent." }),
  totpSecret: z.literal(TOTP_SECRET_MARKER).nullable().openapi({
    description: `For Zipline's clients: \`${TOTP_SECRET_MARKER}\` while TOTP is enabled, ` +
      "else `null`. A marker, never the secret.",
  }),
}).openapi("SelfUser");

/** The spec's deletion response. */
export const DeletedUserSchema = z.object({
  id: z.string(),
  username: z.string(),
  role: RoleSchema,
  avatar: z.string().nullable(),
  createdAt: Timestamp,
}).openapi("DeletedUser");

/** A login session. */
export const SessionSchema = z.object({
  id: z.string(),
  createdAt: Timestamp,
  lastSeenAt: Timestamp.openapi({
    description: "When the session last made a request (to within five minutes)",
  }),
  client: z.string(),
  device: z.string(),
  ua: z.string(),
}).openapi("Session");

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0001-\u001f\u007f]/;

/** A username: trimmed, 1–100 characters, no control characters. */
export const Username = z.string().trim().min(1).max(100)
  .refine((v) => !CONTROL.test(v), "must not contain control characters")
  .openapi({ example: "alice" });
/** A file's or short URL's password as presented: trimmed, 1–1000 characters (as Zipline). */
export const Password = z.string().trim().min(1).max(1000).openapi({ example: "correct horse" });
/** An account's password as presented to be checked (login): 1–1000 characters, kept as typed. */
export const GivenPassword = z.string().min(1).max(MAX_PASSWORD_LENGTH).openapi({
  example: "correct horse",
});
/**
 * A new account password: the policy's (`core/password_policy.ts`) at least
 * 8 characters, kept as typed (leading and trailing spaces included).
 */
export const NewPassword = z.string().max(MAX_PASSWORD_LENGTH)
  .refine((v) => passwordProblem(v) === null, PASSWORD_TOO_SHORT)
  .openapi({
    example: "correct horse",
    minLength: MIN_PASSWORD_LENGTH,
    description: `At least ${MIN_PASSWORD_LENGTH} characters, kept as typed (spaces included); ` +
      "shorter is 400 `" + PASSWORD_TOO_SHORT + "`",
  });
/** The caller's current password, the proof a change to its own credentials asks for. */
export const CurrentPassword = GivenPassword.optional().openapi({
  description: "The caller's current password. Required when the account has a password, " +
    "unless the request comes with a session cookie signed in less than 10 minutes ago: " +
    "missing is 400 `currentPassword is required`, wrong is 403 `Invalid current password`. " +
    "An account without a password (made by OAuth or a passkey) sends none.",
});

/** A record id in the path (`/{id}`). */
export const IdParam = z.object({
  id: z.string().min(1).max(100).openapi({ param: { name: "id", in: "path" }, example: "c0" }),
});
