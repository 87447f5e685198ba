/** `GET /api/healthcheck` and `GET /api/version`. */
import { z } from "@hono/zod-openapi";
import { healthcheck } from "../core/health.ts";
import { versionInfo } from "../core/server_info.ts";
import { defineRoute, errorDoc, json, newRouter } from "./define.ts";

const health = defineRoute({
  method: "get",
  path: "/healthcheck",
  auth: "none",
  rateLimit: "none",
  tags: ["Operations"],
  summary: "Check that the server and its store answer",
  responses: {
    200: json(z.object({ pass: z.literal(true) }), "Healthy"),
    404: errorDoc("`featuresHealthcheck` is off"),
  },
});

const VersionSchema = z.object({
  version: z.string().openapi({ example: "0.1.0" }),
  commit: z.string().nullable(),
  details: z.object({ version: z.string(), sha: z.string().nullable() }),
  data: z.object({
    isUpstream: z.boolean(),
    isRelease: z.boolean(),
    isLatest: z.boolean(),
    version: z.object({ tag: z.string(), sha: z.string().nullable() }),
  }).openapi({
    description: "For Zipline's version badge, in its version service's shape. Ferry asks no " +
      "version service: it reports its build as the current release.",
  }),
}).openapi("Version");

const version = defineRoute({
  method: "get",
  path: "/version",
  auth: "user",
  rateLimit: "none",
  tags: ["Operations"],
  summary: "The running build, from the local build only",
  responses: { 200: json(VersionSchema, "The build") },
});

/** The operational routes. */
export const healthRoutes = newRouter()
  .openapi(health, async (c) => c.json(await healthcheck(c.var.services), 200))
  .openapi(version, (c) => c.json(versionInfo(c.var.services.build), 200));
