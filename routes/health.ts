/** `GET /api/healthcheck` and `GET /api/version`. */
import { z } from "@hono/zod-openapi";
import { healthcheck } from "../core/health.ts";
import { VersionDataSchema, versionInfo } from "../core/version_check.ts";
import { defineRoute, errorDoc, json, newRouter } from "./define.ts";

const health = defineRoute({
  method: "get",
  path: "/healthcheck",
  auth: "none",
  rateLimit: "none",
  tags: ["Operations"],
  summary: "Check that the server, its store and its datasource answer",
  description: "Answered from a probe of the store and the datasource at most a second old " +
    "(one probe at a time), so frequent polling costs them nothing.",
  responses: {
    200: json(z.object({ pass: z.literal(true) }), "Healthy"),
    404: errorDoc("`featuresHealthcheck` is off"),
  },
});

const VersionSchema = z.object({
  version: z.string().openapi({ example: "0.1.0" }),
  commit: z.string().nullable(),
  details: z.object({ version: z.string(), sha: z.string().nullable() }),
  data: VersionDataSchema.openapi({
    description: "Zipline's version badge reads this, in its version service's shape: the " +
      "service's answer while `featuresVersionChecking` is on with a `featuresVersionAPI` and " +
      "it answers; otherwise the build itself as a current release (`isLatest: true`)",
  }),
  cached: z.boolean().openapi({
    description: "`data` is a remembered answer (the service is asked at most every 6 hours, " +
      "every 10 minutes after a failure)",
  }),
}).openapi("Version");

const version = defineRoute({
  method: "get",
  path: "/version",
  auth: "user",
  scope: "account:read",
  rateLimit: "none",
  tags: ["Operations"],
  summary: "The running build, and what the version service says of it when checking is on",
  responses: { 200: json(VersionSchema, "The build") },
});

/** The operational routes. */
export const healthRoutes = newRouter()
  .openapi(health, async (c) => c.json(await healthcheck(c.var.services), 200))
  .openapi(version, async (c) => c.json(await versionInfo(c.var.services), 200));
