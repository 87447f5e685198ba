/**
 * Export and import (spec §4.6), SUPERADMIN only: `POST|GET /api/server/export`
 * (a streamed download, or counts), `POST /api/server/import/v3` and
 * `/v4`. Import bodies (up to 24 GiB) are not declared as JSON bodies:
 * declared ones are read whole into memory, these are streamed by the core.
 */
import { z } from "@hono/zod-openapi";
import { exportCounts, exportStream } from "../core/transfer/export.ts";
import { importV3 } from "../core/transfer/v3.ts";
import { Export4Document, IMPORTED_KEYS, importV4 } from "../core/transfer/v4.ts";
import { ApiError, badRequest } from "../core/errors.ts";
import { essenceOf, normalizeType } from "../core/files/media_type.ts";
import type { Context } from "hono";
import { defineRoute, errorDoc, json, newRouter } from "./define.ts";
import { streamedBody } from "./middleware/body_limit.ts";
import { type AppEnv, currentUser } from "./env.ts";

const Flag = z.enum(["true", "false"]).optional();

/** How many records an export holds. */
export const CountsSchema = z.object({
  users: z.number().int(),
  files: z.number().int(),
  urls: z.number().int(),
  folders: z.number().int(),
  invites: z.number().int(),
  thumbnails: z.number().int(),
  metrics: z.number().int(),
}).openapi("ExportCounts");

const SkippedSchema = z.array(z.object({
  kind: z.string(),
  reason: z.string(),
  count: z.number().int(),
})).openapi({ description: "Skipped records by kind and reason; each is also logged with its id" });

const IdMap = z.record(z.string(), z.string());

const importErrors = {
  400: errorDoc("The body is not a valid export document; `issues` says where (at most 20)"),
  413: errorDoc("The body is larger than 24 GiB"),
  415: errorDoc("`The export document must be sent as application/json`"),
};

const exportRoute = (method: "get" | "post") =>
  defineRoute({
    method,
    path: "/server/export",
    auth: "super",
    tags: ["Server"],
    summary: "Export the instance as a Zipline v4 document",
    description: "A download (`ferry_export_<ms>.json`) that Zipline v4 and Ferry import: users " +
      "with password hashes and TOTP secrets, OAuth links, quotas, passkeys, files (metadata " +
      "only: copy the bytes yourself), URLs, invites, metrics and the settings. No process " +
      "environment. `counts=true` answers the record counts instead; `nometrics` (any value) " +
      "leaves the metrics out.",
    request: { query: z.object({ counts: Flag, nometrics: Flag }) },
    responses: {
      200: json(z.union([CountsSchema, Export4Document]), "The export document, or the counts"),
    },
  });

const importDoc = (body: string) =>
  `The body is ${body}, sent as \`Content-Type: application/json\` (415 otherwise, so that ` +
  "no HTML form, which can only send form and plain-text bodies, can post one). It is " +
  "streamed and validated whole before anything is written " +
  "(400 with `issues` otherwise); the import then runs in one transaction, so a failure " +
  "leaves nothing behind. Records that clash with existing ones are skipped and logged.";

/** What a v4 import answers: counts of imported records, skipped ones, settings. */
export const ImportV4ResultSchema = z.object({
  imported: z.object(
    Object.fromEntries(IMPORTED_KEYS.map((k) => [k, z.number().int()])) as Record<
      typeof IMPORTED_KEYS[number],
      z.ZodNumber
    >,
  ),
  skipped: SkippedSchema,
  settings: z.object({
    imported: z.array(z.string()),
    invalid: z.array(
      z.object({ path: z.array(z.string()), message: z.string(), code: z.string() }),
    ),
  }).optional(),
}).openapi("ImportV4Result");

const importV4Route = defineRoute({
  method: "post",
  path: "/server/import/v4",
  auth: "super",
  tags: ["Server"],
  summary: "Import a Zipline v4 (or Ferry) export",
  description: importDoc(
    "the v4 document, or `{export4: document, config: {settings?: boolean, mergeCurrentUser?: " +
      "exported user id}}`",
  ),
  responses: {
    200: json(ImportV4ResultSchema, "Counts of imported records"),
    ...importErrors,
  },
});

/** What a v3 import answers: old id → new id, and the skipped records. */
export const ImportV3ResultSchema = z.object({
  users: IdMap,
  files: IdMap,
  folders: IdMap,
  urls: IdMap,
  skipped: SkippedSchema,
}).openapi("ImportV3Result");

const importV3Route = defineRoute({
  method: "post",
  path: "/server/import/v3",
  auth: "super",
  tags: ["Server"],
  summary: "Import a Zipline v3 export",
  description: importDoc(
    "the v3 document, or `{export3: document, importFromUser?: v3 user id to merge into you}`",
  ),
  responses: {
    200: json(ImportV3ResultSchema, "Old id → new id of every imported user, file, folder and URL"),
    ...importErrors,
  },
});

/**
 * The request body as a stream: 415 unless it is declared `application/json`
 * (an HTML form can send only `application/x-www-form-urlencoded`,
 * `multipart/form-data` and `text/plain`), 400 without a body.
 */
function bodyOf(c: Context<AppEnv>): ReadableStream<Uint8Array> {
  const type = normalizeType(c.req.header("content-type") ?? "");
  if (type === null || essenceOf(type) !== "application/json") {
    throw new ApiError(415, "The export document must be sent as application/json");
  }
  const body = streamedBody(c);
  if (!body) throw badRequest("The body must be an export document");
  return body;
}

const exportHandler = async (c: Context<AppEnv>) => {
  const s = c.var.services;
  if (c.req.query("counts") === "true") return c.json(await exportCounts(s), 200);
  const stream = exportStream(s, currentUser(c), {
    nometrics: c.req.query("nometrics") !== undefined,
  });
  return c.body(stream, 200, {
    "content-type": "application/json",
    "content-disposition": `attachment; filename=ferry_export_${s.clock.now()}.json`,
  });
};

/** The export and import routes. */
export const transferRoutes = newRouter()
  .openapi(exportRoute("post"), exportHandler)
  .openapi(exportRoute("get"), exportHandler)
  .openapi(importV4Route, async (c) => {
    const result = await importV4(c.var.services, bodyOf(c), { caller: currentUser(c) });
    return c.json(result, 200);
  })
  .openapi(importV3Route, async (c) => {
    const result = await importV3(c.var.services, bodyOf(c), { caller: currentUser(c) });
    return c.json(result, 200);
  });
