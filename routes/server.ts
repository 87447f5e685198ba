/**
 * `/api/server/...` beyond settings and transfers (reference §4.8): what the
 * server tells clients about itself, and maintenance for administrators (the
 * temp directory, files recorded with no bytes, file sizes re-read from the
 * datasource).
 */
import { z } from "@hono/zod-openapi";
import { clearTemp, clearZeroSizeFiles, requerySizes, zeroSizeFiles } from "../core/maintenance.ts";
import { publicSettings, serverStatus, webSettings } from "../core/server_info.ts";
import { runThumbnails } from "../core/files/thumbnails.ts";
import { themesView } from "../core/themes.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { currentUser as me } from "./env.ts";

const OauthEnabled = z.object({
  discord: z.boolean(),
  github: z.boolean(),
  google: z.boolean(),
  oidc: z.boolean(),
}).openapi({ description: "Configured, with `featuresOauthRegistration` on" });

const OauthSummary = z.object({ bypassLocalLogin: z.boolean(), loginOnly: z.boolean() });

const PublicSettings = z.object({
  oauth: OauthSummary,
  oauthEnabled: OauthEnabled,
  website: z.object({
    loginBackground: z.string().nullable(),
    loginBackgroundBlur: z.boolean(),
    title: z.string(),
    tos: z.boolean().openapi({ description: "Whether terms of service are configured" }),
  }),
  features: z.object({
    oauthRegistration: z.boolean(),
    userRegistration: z.boolean(),
    metrics: z.object({ adminOnly: z.literal(true) }).optional().openapi({
      description: "Present when metrics are for administrators only",
    }),
  }),
  mfa: z.object({ passkeys: z.boolean() }),
  tos: z.string().optional().openapi({ description: "The terms of service, markdown" }),
  files: z.object({
    maxFileSize: z.string(),
    defaultFormat: z.string(),
    maxExpiration: z.string().nullable(),
  }),
  chunks: z.object({ max: z.string(), size: z.string(), enabled: z.boolean() }),
  firstSetup: z.boolean().openapi({ description: "`true` until the first user exists" }),
  domains: z.array(z.string()),
  returnHttps: z.boolean(),
}).openapi("PublicSettings");

const publicRoute = defineRoute({
  method: "get",
  path: "/server/public",
  auth: "none",
  tags: ["Server"],
  summary: "What login and upload pages need to know, without signing in; no secrets",
  responses: { 200: json(PublicSettings, "The public settings") },
});

const webRoute = defineRoute({
  method: "get",
  path: "/server/settings/web",
  auth: "user",
  scope: "account:read",
  tags: ["Server"],
  summary: "The settings a dashboard reads; no secrets",
  responses: {
    200: json(
      z.object({
        config: z.record(z.string(), z.unknown()).openapi({
          description: "Settings grouped by the key's first word (`files.maxFileSize`), " +
            "without the core, rate-limit, webhook and OAuth ones; plus `oauth` " +
            "(`bypassLocalLogin`, `loginOnly`), `oauthEnabled` and `version`. The groups " +
            "also hold Zipline v4's nested form, which its web client reads: " +
            "`features.thumbnails` (`enabled`, `num_threads`, `format`, `instantaneous`), " +
            "`features.metrics` (`enabled`, `adminOnly`, `showUserSpecific`: whether the " +
            "caller gets the per-user metrics, always for administrators), `website.theme` " +
            "(`default`, `dark`, `light`), `mfa.totp` (`enabled`, `issuer`) and `mfa.passkeys` " +
            "(a boolean: passkeys are enabled)",
        }),
        codeMap: z.array(z.object({ ext: z.string(), mime: z.string(), name: z.string() }))
          .openapi({
            description: "The languages a text upload may be written in: file extension, " +
              "MIME type and name",
          }),
      }).openapi("WebSettings"),
      "The settings",
    ),
  },
});

const ThemeSchema = z.object({
  id: z.string().openapi({ example: "builtin:dark_gray" }),
  name: z.string(),
  colorScheme: z.enum(["dark", "light"]),
  primaryColor: z.string(),
  mainBackgroundColor: z.string(),
  colors: z.record(z.string(), z.array(z.string())),
}).openapi("Theme");

/** The dashboard themes and the server's default choice (`GET /api/server/themes`). */
export const ThemesSchema = z.object({
  themes: z.array(ThemeSchema),
  defaultTheme: z.object({
    default: z.string().openapi({ description: "A theme id, or `system`" }),
    dark: z.string(),
    light: z.string(),
  }),
}).openapi("Themes");

const themesRoute = defineRoute({
  method: "get",
  path: "/server/themes",
  auth: "none",
  tags: ["Server"],
  summary: "The dashboard themes, and the server's default choice",
  description: "Ferry's built-in themes, in the shape Zipline v4's web client applies " +
    "(Mantine theme overrides); `defaultTheme` is the `websiteTheme*` settings.",
  responses: {
    200: json(
      ThemesSchema,
      "The themes",
    ),
  },
});

const statusRoute = defineRoute({
  method: "get",
  path: "/server/status",
  auth: "admin",
  tags: ["Server"],
  summary: "Which datasource holds the files, and how much it takes up",
  responses: {
    200: json(
      z.object({
        datasource: z.enum(["local", "s3"]),
        storage: z.object({
          used: z.number().int().openapi({
            description: "Bytes in use: on the local datasource's file system, or the sum of " +
              "the sizes of the bucket's objects (under its subdirectory)",
          }),
          total: z.number().int().nullable().openapi({
            description: "The file system's size; `null` for S3",
          }),
          available: z.number().int().nullable().openapi({
            description: "Bytes still free on the file system; `null` for S3",
          }),
          path: z.string().openapi({
            description: "The upload directory, or `<bucket>[/<subdirectory>]`",
          }),
        }),
      }).openapi("ServerStatus"),
      "The datasource and its use",
    ),
  },
});

/** What a maintenance task answers. */
export const Status = z.object({ status: z.string() }).openapi("MaintenanceStatus");

const clearTempRoute = defineRoute({
  method: "delete",
  path: "/server/clear_temp",
  auth: "admin",
  tags: ["Server"],
  summary: "Remove Ferry's temporary files (import spools) from `coreTempDirectory`",
  responses: {
    200: json(
      Status,
      "`Cleared N temporary zipline files.`, `No temporary zipline files found, so no files " +
        "were cleared.` or `Temp directory does not exist, so no files were cleared.`",
    ),
  },
});

/** The files recorded with a size of 0. */
export const ZeroFilesSchema = z.object({
  files: z.array(z.object({ id: z.string(), name: z.string() })),
});

const listZeros = defineRoute({
  method: "get",
  path: "/server/clear_zeros",
  auth: "admin",
  tags: ["Server"],
  summary: "The files recorded with a size of 0",
  responses: {
    200: json(ZeroFilesSchema, "The files"),
  },
});

const clearZeros = defineRoute({
  method: "delete",
  path: "/server/clear_zeros",
  auth: "admin",
  tags: ["Server"],
  summary: "Remove the files recorded with a size of 0, records and bytes",
  responses: { 200: json(Status, "`Cleared N files with a size of 0.`") },
});

/** What the size requery does beyond files recorded as 0 bytes. */
export const RequerySizeBody = z.object({
  forceDelete: z.boolean().default(false).openapi({
    description: "Remove the records of files whose bytes are gone",
  }),
  forceUpdate: z.boolean().default(false).openapi({
    description: "Re-read every file's size, not only those recorded as 0",
  }),
});

const requery = defineRoute({
  method: "post",
  path: "/server/requery_size",
  auth: "admin",
  tags: ["Server"],
  summary: "Set recorded file sizes to the size of their bytes in the datasource",
  request: {
    body: jsonBody(RequerySizeBody),
  },
  responses: {
    200: json(
      Status,
      "`Finished requerying all files.`, or a sentence saying that at least one file's bytes " +
        "are gone and `forceDelete` removes such files",
    ),
  },
});

/** Whether the thumbnail pass remakes existing thumbnails. */
export const ThumbnailsBody = z.object({
  rerun: z.boolean().default(false).openapi({
    description: "Remake the thumbnails of files that have one too",
  }),
});

const thumbnailsRoute = defineRoute({
  method: "post",
  path: "/server/thumbnails",
  auth: "admin",
  tags: ["Server"],
  summary: "Start making the missing thumbnails of images and videos (all of them with `rerun`)",
  request: {
    body: jsonBody(ThumbnailsBody),
  },
  responses: {
    200: json(
      Status,
      "`Thumbnails are being generated[ (rerun)]. This may take a while, check your logs for " +
        "progress.`, answered at once: the pass runs in the background and logs what it made",
    ),
    404: errorDoc("`Thumbnails task not found`: `featuresThumbnailsEnabled` is off"),
  },
});

/** The server information and maintenance routes. */
export const serverRoutes = newRouter()
  .openapi(publicRoute, async (c) => c.json(await publicSettings(c.var.services), 200))
  .openapi(webRoute, (c) => c.json(webSettings(c.var.services, me(c).role), 200))
  .openapi(
    themesRoute,
    (c) => c.json(themesView(c.var.services.settings.all(), c.var.services.themes), 200),
  )
  .openapi(statusRoute, async (c) => c.json(await serverStatus(c.var.services), 200))
  .openapi(clearTempRoute, async (c) => c.json({ status: await clearTemp(c.var.services) }, 200))
  .openapi(listZeros, async (c) => c.json({ files: await zeroSizeFiles(c.var.services) }, 200))
  .openapi(
    clearZeros,
    async (c) => c.json({ status: await clearZeroSizeFiles(c.var.services) }, 200),
  )
  .openapi(thumbnailsRoute, (c) => {
    const { rerun } = c.req.valid("json");
    return c.json({ status: runThumbnails(c.var.services, rerun) }, 200);
  })
  .openapi(requery, async (c) => {
    const status = await requerySizes(c.var.services, c.req.valid("json"));
    return c.json({ status }, 200);
  });
