/** `GET /api/healthcheck` and `GET /api/version`. */
import { z } from "@hono/zod-openapi";
import { healthcheck } from "../core/health.ts";
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
  .openapi(version, (c) => {
    const { version, commit } = c.var.services.build;
    return c.json({ version, commit, details: { version, sha: commit } }, 200);
  });
