/**
 * Server maintenance for administrators (reference §4.8): the temp
 * directory, files recorded with no bytes, and file sizes re-read from the
 * datasource.
 */
import { z } from "@hono/zod-openapi";
import { clearTemp, clearZeroSizeFiles, requerySizes, zeroSizeFiles } from "../core/maintenance.ts";
import { defineRoute, json, jsonBody, newRouter } from "./define.ts";

const Status = z.object({ status: z.string() }).openapi("MaintenanceStatus");

const clearTempRoute = defineRoute({
  method: "delete",
  path: "/server/clear_temp",
  auth: "admin",
  rateLimit: { max: 1, seconds: 1 },
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

const listZeros = defineRoute({
  method: "get",
  path: "/server/clear_zeros",
  auth: "admin",
  tags: ["Server"],
  summary: "The files recorded with a size of 0",
  responses: {
    200: json(
      z.object({ files: z.array(z.object({ id: z.string(), name: z.string() })) }),
      "The files",
    ),
  },
});

const clearZeros = defineRoute({
  method: "delete",
  path: "/server/clear_zeros",
  auth: "admin",
  rateLimit: { max: 1, seconds: 1 },
  tags: ["Server"],
  summary: "Remove the files recorded with a size of 0, records and bytes",
  responses: { 200: json(Status, "`Cleared N files with a size of 0.`") },
});

const requery = defineRoute({
  method: "post",
  path: "/server/requery_size",
  auth: "admin",
  rateLimit: { max: 1, seconds: 1 },
  tags: ["Server"],
  summary: "Set recorded file sizes to the size of their bytes in the datasource",
  request: {
    body: jsonBody(z.object({
      forceDelete: z.boolean().default(false).openapi({
        description: "Remove the records of files whose bytes are gone",
      }),
      forceUpdate: z.boolean().default(false).openapi({
        description: "Re-read every file's size, not only those recorded as 0",
      }),
    })),
  },
  responses: {
    200: json(
      Status,
      "`Finished requerying all files.`, or a sentence saying that at least one file's bytes " +
        "are gone and `forceDelete` removes such files",
    ),
  },
});

/** The maintenance routes. */
export const serverRoutes = newRouter()
  .openapi(clearTempRoute, async (c) => c.json({ status: await clearTemp(c.var.services) }, 200))
  .openapi(listZeros, async (c) => c.json({ files: await zeroSizeFiles(c.var.services) }, 200))
  .openapi(
    clearZeros,
    async (c) => c.json({ status: await clearZeroSizeFiles(c.var.services) }, 200),
  )
  .openapi(requery, async (c) => {
    const status = await requerySizes(c.var.services, c.req.valid("json"));
    return c.json({ status }, 200);
  });
