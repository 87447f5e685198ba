/** `GET /api/stats`: the instance's metrics snapshots over a time range. */
import { z } from "@hono/zod-openapi";
import { instanceStats, MAX_POINTS, topFiles } from "../core/metrics.ts";
import { defineRoute, errorDoc, json, newRouter } from "./define.ts";
import { currentUser as me } from "./env.ts";
import { Timestamp } from "./schemas.ts";

/** One metrics snapshot. */
export const MetricSchema = z.object({
  id: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  data: z.object({
    users: z.number(),
    files: z.number(),
    fileViews: z.number(),
    urls: z.number(),
    urlViews: z.number(),
    storage: z.number().openapi({ description: "Bytes" }),
    filesUsers: z.array(z.object({
      username: z.string().nullable(),
      sum: z.number(),
      storage: z.number(),
      views: z.number(),
    })),
    urlsUsers: z.array(z.object({
      username: z.string().nullable(),
      sum: z.number(),
      views: z.number(),
    })),
    types: z.array(z.object({ type: z.string(), sum: z.number() })),
  }),
}).openapi("Metric");

/** One of the most viewed files, with its owner's name. */
export const TopFileSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  size: z.number().int(),
  views: z.number().int(),
  username: z.string().nullable(),
});

const StatsReply = z.array(MetricSchema).openapi("StatsReply", {
  description: `The range's snapshots, newest first, evenly thinned to at most ${MAX_POINTS}, ` +
    "as Zipline v4.4's web client reads them: the first in full, the others with their " +
    "totals and empty `filesUsers`, `urlsUsers` and `types`. `filesUsers` and `urlsUsers` " +
    "name users: they are empty for a USER unless `featuresMetricsShowUserSpecific` is on " +
    "(off by default); administrators always get them",
});

const stats = defineRoute({
  method: "get",
  path: "/stats",
  auth: "user",
  scope: "account:read",
  tags: ["Operations"],
  summary: "Instance metrics over a time range",
  request: {
    query: z.object({
      from: z.string().max(100).optional().openapi({ description: "Default: a week ago" }),
      to: z.string().max(100).optional().openapi({ description: "Default: now" }),
      all: z.enum(["true", "false"]).optional().openapi({
        description: "`true`: every snapshot, `from` and `to` ignored",
      }),
    }),
  },
  responses: {
    200: json(StatsReply, "The snapshots"),
    400: errorDoc(
      "`From date must be before to date`, `From date must be in the past`, or a date that " +
        "does not parse",
    ),
    403: errorDoc(
      "`Admin only` (`featuresMetricsAdminOnly`) or `Metrics are disabled` " +
        "(`featuresMetricsEnabled` off)",
    ),
  },
});

const top = defineRoute({
  method: "get",
  path: "/stats/files",
  auth: "admin",
  tags: ["Operations"],
  summary: "The most viewed files of the instance, most views first",
  description: "Ferry's addition for the statistics page, for administrators, who always see " +
    "the owners' names.",
  request: {
    query: z.object({
      take: z.coerce.number().int().min(1).max(100).default(10).openapi({ example: 10 }),
    }),
  },
  responses: {
    200: json(
      z.array(TopFileSchema).openapi("TopFiles"),
      "Up to `take` files",
    ),
    403: errorDoc("`Metrics are disabled` (`featuresMetricsEnabled` off), or not an administrator"),
  },
});

/** The metrics routes. */
export const statsRoutes = newRouter()
  .openapi(top, async (c) => {
    return c.json(await topFiles(c.var.services, me(c), c.req.valid("query").take), 200);
  })
  .openapi(stats, async (c) => {
    const { from, to, all } = c.req.valid("query");
    return c.json(
      await instanceStats(c.var.services, me(c), { from, to, all: all === "true" }),
      200,
    );
  });
