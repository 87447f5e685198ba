/**
 * Visits of short URLs and files (issue #35, Ferry's addition): per link
 * (`/user/urls/{id}/visits`), per file (`/user/files/{id}/visits`), across
 * all of the caller's (`/user/visits`), and server-wide for administrators
 * (`/server/visits`). Each answers a series over `from`–`to` cut into
 * `bucket`s (UTC hours, days or months) and the range's top referrers,
 * countries, browsers, OSes and device classes.
 */
import { z } from "@hono/zod-openapi";
import { type Bucket, BUCKETS, MAX_SPAN_MS, TOP_VALUES } from "../core/visits/query.ts";
import { ownerVisits, serverVisits, targetVisits } from "../core/visits/query.ts";
import { defineRoute, errorDoc, json, newRouter } from "./define.ts";
import { currentUser as me } from "./env.ts";
import { IdParam } from "./schemas.ts";

const DAY = 86_400_000;
const spans = BUCKETS.map((b: Bucket) => `${b}: ${MAX_SPAN_MS[b] / DAY} days`).join(", ");

/** The range and bucket size of a visits read. */
export const VisitsQuery = z.object({
  from: z.string().max(40).optional().openapi({
    description: "ISO 8601 date or milliseconds; widened to its bucket's start. Default: 30 " +
      "days before `to`",
    example: "2026-01-01T00:00:00Z",
  }),
  to: z.string().max(40).optional().openapi({
    description: "ISO 8601 date or milliseconds (exclusive), widened to its bucket's end. " +
      "Default: now",
  }),
  bucket: z.enum(BUCKETS).optional().openapi({
    description: `UTC buckets of the series (default \`day\`). Longest range: ${spans}`,
  }),
});

/** One bucket of a series. */
export const VisitPointSchema = z.object({
  t: z.string().openapi({ description: "The bucket's start (ISO 8601, UTC)" }),
  visits: z.number().int(),
  unique: z.number().int().openapi({
    description: "Unique visitors, estimated (HyperLogLog): exact in practice up to a few " +
      "thousand an hour, else within ±2.4 % in 99.7 % of cases (a standard error of 0.81 %); " +
      "an hour's and a day's are counted over the bucket, a month's is the sum of its days' " +
      "(the visitor hash is salted anew each day); never more than the bucket's visits",
  }),
});

/** One value of a dimension and its visits. */
export const VisitTopSchema = z.object({ value: z.string(), visits: z.number().int() });

const tops = z.array(VisitTopSchema).openapi({
  description: `At most ${TOP_VALUES}, most visits first`,
});

/** What a visits read answers. */
export const VisitsReportSchema = z.object({
  recording: z.boolean().openapi({
    description: "Whether visits are recorded now (the `analyticsEnabled` setting); when " +
      "not, the report holds those recorded before",
  }),
  from: z.string().openapi({ description: "The range's start, widened to its bucket" }),
  to: z.string().openapi({ description: "The range's end (exclusive), widened to its bucket" }),
  bucket: z.enum(BUCKETS),
  series: z.array(VisitPointSchema).openapi({
    description: "Every bucket of the range, oldest first",
  }),
  top: z.object({
    referrers: tops.openapi({ description: "Referrer hosts; visits without one are not listed" }),
    countries: tops.openapi({
      description: "ISO 3166 codes, with analyticsGeoLite2Path set; else empty",
    }),
    browsers: tops,
    os: tops,
    devices: tops.openapi({
      description: "desktop, mobile, tablet, console, tv, wearable, embedded, xr, bot",
    }),
  }),
}).openapi("VisitsReport");

const badRange = errorDoc(
  "`from must be before to`, a range longer than its bucket allows, or a date that does not parse",
);

/** The route of one target's visits: a URL's (`urls`) or a file's (`files`). */
function targetRoute(kind: "urls" | "files") {
  const [name, Name, tag] = kind === "urls" ? ["URL", "URL", "URLs"] : ["file", "File", "Files"];
  return defineRoute({
    method: "get",
    path: `/user/${kind}/{id}/visits`,
    auth: "user",
    scope: kind === "urls" ? "urls:read" : "files:read",
    tags: [tag],
    summary: `Visits of one of the caller's ${kind === "urls" ? "short URLs" : "files"}`,
    description: `An administrator may read any ${name}'s.`,
    request: { params: IdParam, query: VisitsQuery },
    responses: {
      200: json(VisitsReportSchema, "The series and the tops"),
      400: badRange,
      404: errorDoc(`\`${Name} not found\`: no such ${name} of the caller's`),
    },
  });
}

const urlVisits = targetRoute("urls");
const fileVisits = targetRoute("files");

const userVisits = defineRoute({
  method: "get",
  path: "/user/visits",
  auth: "user",
  scope: "account:read",
  tags: ["User"],
  summary: "Visits of all of the caller's short URLs and files",
  request: { query: VisitsQuery },
  responses: { 200: json(VisitsReportSchema, "The series and the tops"), 400: badRange },
});

const allVisits = defineRoute({
  method: "get",
  path: "/server/visits",
  auth: "admin",
  tags: ["Server"],
  summary: "Visits of every short URL and file of the server",
  request: { query: VisitsQuery },
  responses: { 200: json(VisitsReportSchema, "The series and the tops"), 400: badRange },
});

/** The visits routes. */
export const visitRoutes = newRouter()
  .openapi(urlVisits, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(
      await targetVisits(c.var.services, me(c), "url", id, c.req.valid("query")),
      200,
    );
  })
  .openapi(fileVisits, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(
      await targetVisits(c.var.services, me(c), "file", id, c.req.valid("query")),
      200,
    );
  })
  .openapi(userVisits, async (c) => {
    return c.json(await ownerVisits(c.var.services, me(c), c.req.valid("query")), 200);
  })
  .openapi(allVisits, async (c) => {
    return c.json(await serverVisits(c.var.services, me(c), c.req.valid("query")), 200);
  });
