/** Short URLs of the current user (`/api/user/urls`) and URL password checks. */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { setServiceCookie } from "./cookies.ts";
import { RESERVED_ROUTES } from "../core/settings/registry.ts";
import { linkOrigin, routeLink } from "../core/links.ts";
import {
  createUrl,
  deleteUrl,
  getOwnUrl,
  listUrls,
  pageUrls,
  updateUrl,
  urlView,
} from "../core/urls.ts";
import {
  URL_PASSWORD_COOKIE_SECONDS,
  urlPasswordCookie,
  verifyUrlPassword,
} from "../core/url_passwords.ts";
import { DEVICE_CLASSES, type UrlRecord } from "../db/urls.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { type AppEnv, attempter, currentUser as me } from "./env.ts";
import { IdParam, Password, Timestamp } from "./schemas.ts";

/** A URL as the API shows it. */
export const UrlSchema = z.object({
  id: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  code: z.string(),
  vanity: z.string().nullable(),
  destination: z.string(),
  views: z.number().int(),
  maxViews: z.number().int().nullable(),
  password: z.boolean().openapi({ description: "Whether a password protects it" }),
  enabled: z.boolean(),
  userId: z.string().nullable(),
  expiresAt: Timestamp.nullable().openapi({
    description: "When it stops redirecting (410 with a page saying so); null: never",
  }),
  deviceDestinations: z.partialRecord(z.enum(DEVICE_CLASSES), z.string()).nullable().openapi({
    description: "Destinations by the visitor's device class (`ios`, `android`, `desktop`); " +
      "other visitors get `destination`",
  }),
  forwardQuery: z.boolean().openapi({
    description: "Whether a visit's query string is added to the destination",
  }),
}).openapi("Url");

/** A page of URLs (`GET /api/user/urls?page=…`). */
export const UrlPageSchema = z.object({
  page: z.array(UrlSchema),
  total: z.number().int(),
  pages: z.number().int(),
}).openapi("UrlPage");

const Destination = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" })
  .max(10_000).openapi({ example: "https://example.com/some/page" });

/** The redirect rules a URL may be given, on create and update. */
const Rules = {
  expiresAt: z.iso.datetime({ offset: true }).nullable().optional().openapi({
    description: "When it stops redirecting; in the future, or null for never",
  }),
  deviceDestinations: z.partialRecord(z.enum(DEVICE_CLASSES), Destination).nullable()
    .optional().openapi({
      description: "A destination per device class: `ios` (iPhone, iPad), `android`, " +
        "`desktop`; null or {} removes them",
    }),
  forwardQuery: z.boolean().optional().openapi({
    description: "Add the visit's query string to the destination",
  }),
};

/** The rules of a request body as the core takes them (`expiresAt` a date). */
function rulesOf<T extends { expiresAt?: string | null }>(body: T) {
  const { expiresAt, ...rest } = body;
  return {
    ...rest,
    expiresAt: expiresAt === undefined
      ? undefined
      : expiresAt === null
      ? null
      : new Date(expiresAt),
  };
}

/** A vanity: 1–100 characters, no `/`, spaces, `?`, `#`, `%` or `\`, and not a reserved route. */
const Vanity = z.string().trim().min(1).max(100)
  .refine((v) => !/[\s/?#%\\]/.test(v), "must not contain /, spaces, ?, #, % or \\")
  .refine(
    (v) => !RESERVED_ROUTES.includes(`/${v.toLowerCase()}`),
    "Provided vanity is a reserved route",
  );

/** A header in its `x-service-` and `x-zipline-` spellings. */
function option<T extends z.ZodType>(name: string, schema: T, description: string) {
  return {
    [`x-service-${name}`]: schema.optional().openapi({ description }),
    [`x-zipline-${name}`]: schema.optional().openapi({ description: `Alias of x-service-${name}` }),
  };
}

const ShortenHeaders = z.object({
  ...option("max-views", z.coerce.number().int().min(1), "Redirects allowed before a 404"),
  ...option(
    "deletes-at",
    z.string().min(1).max(1000),
    "When the URL expires: a duration (`1d`), `date=<date>`, or `never`; the body's " +
      "`expiresAt` wins",
  ),
  ...option("password", z.string().min(1).max(1000), "Password asked before redirecting"),
  ...option(
    "domain",
    z.string().max(2000),
    "Host of the returned URL; a comma list picks one. Each must be `coreDefaultDomain`, one " +
      "of `domains` or the request's own host (else 400, nothing stored)",
  ),
  ...option("no-json", z.enum(["true", "false"]), "`true` answers the short URL as text/plain"),
});

/** The value of option `name` from either spelling. */
function header(headers: Record<string, unknown>, name: string) {
  return headers[`x-service-${name}`] ?? headers[`x-zipline-${name}`];
}

/** The body of `POST /api/user/urls` (its options travel as headers). */
export const UrlCreateBody = z.object({
  destination: Destination,
  vanity: Vanity.nullable().optional(),
  enabled: z.boolean().optional(),
  ...Rules,
});

/** A shortened URL with its short link `url`. */
export const ShortenedUrlSchema = UrlSchema.extend({ url: z.string() }).openapi("ShortenedUrl");

/** The body of `PATCH /api/user/urls/{id}`. */
export const UrlPatchBody = z.object({
  destination: Destination.optional(),
  vanity: Vanity.nullable().optional(),
  maxViews: z.number().int().min(0).nullable().optional(),
  password: z.string().max(1000).nullable().optional().openapi({
    description: '`""` or `null` removes the password',
  }),
  enabled: z.boolean().optional(),
  ...Rules,
});

const notFound = errorDoc("`Not Found`: no such URL of the caller's");

const create = defineRoute({
  method: "post",
  path: "/user/urls",
  auth: "user",
  scope: "urls:write",
  tags: ["URLs"],
  summary: "Shorten a URL",
  request: {
    headers: ShortenHeaders,
    body: jsonBody(UrlCreateBody),
  },
  responses: {
    200: {
      description: "The URL and its short link `url`",
      content: {
        "application/json": {
          schema: ShortenedUrlSchema,
        },
        "text/plain": { schema: z.string().openapi({ description: "With no-json: the link" }) },
      },
    },
    400: errorDoc("`Vanity already taken`, or a validation failure"),
    403: errorDoc("`Shortening this URL would exceed your quota of N URLs.`"),
  },
});

const list = defineRoute({
  method: "get",
  path: "/user/urls",
  auth: "user",
  scope: "urls:read",
  tags: ["URLs"],
  summary: "The caller's URLs, oldest first, optionally searched; a page of them with `page`",
  request: {
    query: z.object({
      page: z.coerce.number().int().min(1).optional().openapi({
        description: "A page of `perpage` URLs (Ferry); without it, every URL as a plain array " +
          "(as Zipline answers)",
        example: 1,
      }),
      perpage: z.coerce.number().int().min(1).max(1000).default(15).openapi({
        description: "URLs a page, with `page`",
      }),
      searchField: z.enum(["destination", "vanity", "code"]).optional().openapi({
        description: "Default `destination`",
      }),
      searchQuery: z.string().min(1).max(1000).optional().openapi({
        description: "Case-insensitive substring of the field",
      }),
    }),
  },
  responses: {
    200: json(
      z.union([z.array(UrlSchema), UrlPageSchema]),
      "Every URL; with `page`, the page, the number of URLs and of pages",
    ),
  },
});

const get = defineRoute({
  method: "get",
  path: "/user/urls/{id}",
  auth: "user",
  scope: "urls:read",
  tags: ["URLs"],
  summary: "One of the caller's URLs",
  request: { params: IdParam },
  responses: { 200: json(UrlSchema, "The URL"), 404: notFound },
});

const update = defineRoute({
  method: "patch",
  path: "/user/urls/{id}",
  auth: "user",
  scope: "urls:write",
  tags: ["URLs"],
  summary: "Change one of the caller's URLs",
  request: {
    params: IdParam,
    body: jsonBody(UrlPatchBody),
  },
  responses: {
    200: json(UrlSchema, "The updated URL"),
    400: errorDoc("`Vanity already exists`, or a validation failure"),
    404: notFound,
  },
});

const remove = defineRoute({
  method: "delete",
  path: "/user/urls/{id}",
  auth: "user",
  scope: "urls:write",
  tags: ["URLs"],
  summary: "Delete one of the caller's URLs",
  request: { params: IdParam },
  responses: { 200: json(UrlSchema, "The deleted URL"), 404: notFound },
});

const password = defineRoute({
  method: "post",
  path: "/user/urls/{id}/password",
  auth: "none",
  tags: ["URLs"],
  summary: "Verify a URL's password",
  description: "`id` is the URL's id, code or vanity. Sets the cookie `url_pw_<urlId>` (a " +
    "grant for this client's address, not the password; 60 seconds) that lets the short link " +
    "and its password page `/view/url/<id>` redirect. Every attempt at a URL's password, here " +
    "or through the cookie, counts against 2 a second per client IP and URL (429 past it) and " +
    "is logged.",
  request: { params: IdParam, body: jsonBody(z.object({ password: Password })) },
  responses: {
    200: json(z.object({ success: z.literal(true) }), "The password is right"),
    403: errorDoc("`Incorrect password`"),
    404: errorDoc("`Not Found`: no such URL, or it has no password"),
  },
});

/** The absolute short link of `url` under `origin`. */
function shortLink(c: Context<AppEnv>, url: UrlRecord, origin: string): string {
  return routeLink(origin, c.var.services.settings.get("urlsRoute"), url.vanity ?? url.code);
}

/** The short-URL routes. */
export const urlRoutes = newRouter()
  .openapi(create, async (c) => {
    const headers = c.req.valid("header") as Record<string, unknown>;
    const domains = header(headers, "domain") as string | undefined;
    const host = c.req.header("host") ?? new URL(c.req.url).host;
    // Picked (and a foreign domain refused) before anything is stored.
    const origin = linkOrigin(c.var.services, domains, host);
    const url = await createUrl(c.var.services, me(c), {
      ...rulesOf(c.req.valid("json")),
      deletesAt: header(headers, "deletes-at") as string | undefined,
      maxViews: header(headers, "max-views") as number | undefined,
      password: header(headers, "password") as string | undefined,
    }, (u) => shortLink(c, u, origin));
    const link = shortLink(c, url, origin);
    if (header(headers, "no-json") === "true") return c.text(link, 200);
    return c.json({ ...urlView(url), url: link }, 200);
  })
  .openapi(list, async (c) => {
    const { searchField = "destination", searchQuery, page, perpage } = c.req.valid("query");
    if (page !== undefined) {
      const found = await pageUrls(c.var.services, me(c), page, perpage, searchField, searchQuery);
      return c.json({ page: found.urls.map(urlView), total: found.total, pages: found.pages }, 200);
    }
    const urls = await listUrls(c.var.services, me(c), searchField, searchQuery);
    return c.json(urls.map(urlView), 200);
  })
  .openapi(get, async (c) => {
    const url = await getOwnUrl(c.var.services, me(c), c.req.valid("param").id);
    return c.json(urlView(url), 200);
  })
  .openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    const url = await updateUrl(c.var.services, me(c), id, rulesOf(c.req.valid("json")));
    return c.json(urlView(url), 200);
  })
  .openapi(remove, async (c) => {
    const url = await deleteUrl(c.var.services, me(c), c.req.valid("param").id);
    return c.json(urlView(url), 200);
  })
  .openapi(password, async (c) => {
    const given = c.req.valid("json").password;
    const { url, grant } = await verifyUrlPassword(
      c.var.services,
      c.req.valid("param").id,
      given,
      attempter(c),
    );
    setServiceCookie(c, urlPasswordCookie(url.id), grant, {
      path: "/",
      maxAge: URL_PASSWORD_COOKIE_SECONDS,
      httpOnly: true,
    });
    return c.json({ success: true as const }, 200);
  });
