/**
 * How every route is declared: once, with its method, path, auth level,
 * rate-limit class and zod schemas. The declaration drives validation (the
 * spec's 400 `issues` body), the handler's types, the auth middleware and the
 * OpenAPI document. Built on @hono/zod-openapi.
 */
import { createRoute, OpenAPIHono, type RouteConfig, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { isDeepStrictEqual } from "node:util";
import type { ApiKeyScope } from "../core/api_keys.ts";
import type { AuthLevel } from "../core/auth.ts";
import type { RateLimitPolicy } from "../core/rate_limit.ts";
import { ApiError } from "../core/errors.ts";
import type { AppEnv } from "./env.ts";
import { requireAuth } from "./middleware/auth.ts";
import { rateLimit } from "./middleware/rate_limit.ts";
import { bodyLimit, JSON_BODY_LIMIT } from "./middleware/body_limit.ts";
import { validationError } from "./middleware/errors.ts";

/** One validation problem. */
export const IssueSchema = z.object({
  path: z.array(z.string()),
  message: z.string(),
  code: z.string(),
}).openapi("Issue");

/** Every error body: `{error, statusCode}`, with `issues` on validation failures. */
export const ErrorSchema = z.object({
  error: z.string().openapi({ example: "forbidden" }),
  statusCode: z.number().int().openapi({ example: 403 }),
  issues: z.array(IssueSchema).optional(),
}).openapi("Error");

/** An error response with `description`, in the spec's error body. */
export function errorDoc(description: string) {
  return { description, content: { "application/json": { schema: ErrorSchema } } };
}

/** The 507 of a route that stores bytes on the local disk. */
export const STORAGE_FULL = errorDoc(
  "`Insufficient Storage: the server has no room left`: the disk is full; nothing was kept",
);

/** A JSON response of `schema` for the document. */
export function json<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** A required JSON request body. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true as const, content: { "application/json": { schema } } };
}

/** What a route declares beyond a plain OpenAPI route. */
export type RouteDeclaration = Omit<RouteConfig, "middleware" | "security"> & {
  /** Who may call it. */
  auth: AuthLevel;
  /**
   * The API key scope (`core/api_keys.ts`) that lets a key call it. Without
   * one, keys are refused (403): a route that manages users, settings, keys
   * or credentials declares none.
   */
  scope?: ApiKeyScope;
  /** Its rate limit: the settings' default unless it says otherwise. */
  rateLimit?: RateLimitPolicy;
  /**
   * The most bytes its declared JSON body may have (413 past it), when it
   * declares one: {@link JSON_BODY_LIMIT} unless it needs more.
   */
  bodyLimit?: number;
};

/**
 * What the shared 403 means, or `null` when a route has none: a role too low
 * for an administrators' route, an API key it does not admit (every route
 * that authenticates), and a change asked with the session cookie by another
 * site (`refuseCrossSite`), which every route but a `GET` may answer.
 */
function forbiddenCases(r: RouteDeclaration): string | null {
  const cases = [
    ...(r.auth === "admin" || r.auth === "super"
      ? ["`forbidden`: the caller's role is too low"]
      : []),
    ...(r.auth !== "none" || r.scope ? [keyRefused(r)] : []),
    ...(r.method === "get" ? [] : [
      "`Cross-site request refused: …`: the session cookie was sent by another site's page " +
      "(`Sec-Fetch-Site` `cross-site` or `same-site`, or a foreign `Origin`)",
    ]),
  ];
  return cases.length === 0 ? null : `${cases.join("; or ")}.`;
}

function errorResponses(r: RouteDeclaration) {
  const req = r.request;
  const forbidden = forbiddenCases(r);
  return {
    ...(req && (req.body || req.query || req.params || req.headers || req.cookies)
      ? { 400: errorDoc("The request failed validation; `issues` says where.") }
      : {}),
    ...(req?.body
      ? {
        413: errorDoc("`Request body is too large: at most N bytes` (see `x-body-limit`)."),
        415: errorDoc("The body is not of a declared media type."),
      }
      : {}),
    ...(r.auth === "none" && !r.scope ? {} : {
      401: errorDoc(
        "`no token`, `could not decrypt token`, `invalid authorization token` or " +
          "`not logged in`.",
      ),
    }),
    ...(r.rateLimit !== "none"
      ? { 429: errorDoc("`Rate limit exceeded, retry in N seconds`, with `Retry-After`.") }
      : {}),
    ...(forbidden === null ? {} : { 403: errorDoc(forbidden) }),
    500: errorDoc("`Internal Server Error`: logged on the server, never detailed here."),
    503: errorDoc(
      "`Service Unavailable`: the database (or the bucket) cannot be reached for now; try " +
        "again after `Retry-After` seconds.",
    ),
  };
}

/** How the 403 of an API key on route `r` reads in the document. */
function keyRefused(r: RouteDeclaration): string {
  return r.scope
    ? `\`This key may not …\`: an API key without the scope \`${r.scope}\``
    : "`This key may not call …`: no API key may call it";
}

/** The document's security of a route: who may call it, and with which API key scope. */
function securityOf(auth: AuthLevel, scope: ApiKeyScope | undefined): Record<string, string[]>[] {
  const key: Record<string, string[]>[] = scope ? [{ apiKey: [scope] }] : [];
  if (auth === "none") return scope ? [{}, { token: [] }, { session: [] }, ...key] : [];
  return [{ token: [] }, { session: [] }, ...key];
}

/** Declares a route: adds auth, security, the shared error responses and the response check. */
export function defineRoute<const R extends RouteDeclaration>(r: R) {
  const { auth, scope, rateLimit: limit = "default", bodyLimit: maxBody, ...route } = r;
  const responses = { ...errorResponses(r), ...mergeKeyRefusal(r, route.responses) };
  const bodyBytes = route.request?.body ? maxBody ?? JSON_BODY_LIMIT : undefined;
  const routeName = `${route.method.toUpperCase()} /api${route.path.replace(/\{(\w+)\}/g, ":$1")}`;
  const declared = createRoute({
    ...route,
    responses,
    security: securityOf(auth, scope),
    middleware: [
      requireAuth(auth, { scope, route: routeName }),
      rateLimit(limit),
      checkResponse(responses),
      ...(bodyBytes === undefined ? [] : [bodyLimit(bodyBytes)]),
    ],
    "x-auth-level": auth,
    ...(scope ? { "x-api-key-scope": scope } : {}),
    "x-rate-limit": limit,
    ...(bodyBytes === undefined ? {} : { "x-body-limit": bodyBytes }),
  });
  return declared as unknown as
    & Omit<R, "auth" | "scope" | "rateLimit" | "bodyLimit" | "responses">
    & {
      responses: R["responses"] & ReturnType<typeof errorResponses>;
      middleware: MiddlewareHandler<AppEnv>[];
      getRoutingPath(): RoutingPath<R["path"]>;
    };
}

/**
 * `responses` with a route's own 403 saying also how an API key is refused
 * there, so that the document tells both.
 */
function mergeKeyRefusal(r: RouteDeclaration, responses: RouteConfig["responses"]) {
  const own = responses[403] as { description: string } | undefined;
  if (!own || (r.auth === "none" && !r.scope)) return responses;
  const description = `${own.description}; or ${keyRefused(r)}.`;
  return { ...responses, 403: { ...own, description } };
}

/** `/users/{id}` as Hono routes it: `/users/:id`. */
type RoutingPath<T extends string> = T extends `${infer S}{${infer P}}${infer E}`
  ? RoutingPath<`${S}:${P}${E}`>
  : T;

/**
 * In tests (`checkResponses` set), fails a response whose status is not
 * declared or whose JSON body has a field its schema does not declare, so a
 * handler cannot leak a password hash or a token unnoticed.
 */
function checkResponse(responses: RouteConfig["responses"]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (!c.var.checkResponses) return;
    const declared = responses[c.res.status];
    if (!declared) throw new Error(`undeclared status ${c.res.status} for ${c.req.path}`);
    const content = (declared as { content?: Record<string, { schema?: unknown }> }).content;
    const schema = content?.["application/json"]?.schema;
    if (!schema || !(schema instanceof z.ZodType)) return;
    if (!c.res.headers.get("content-type")?.startsWith("application/json")) return;
    const body = await c.res.clone().json();
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new Error(`response does not match its schema: ${JSON.stringify(parsed.error.issues)}`);
    }
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(parsed.data)), body)) {
      throw new Error(`response carries undeclared fields: ${JSON.stringify(body)}`);
    }
  };
}

/** The path of the first string in `value` holding a NUL, which no store can keep as text. */
function nulPath(value: unknown, path: string[] = []): string[] | null {
  if (typeof value === "string") return value.includes("\u0000") ? path : null;
  if (value && typeof value === "object") {
    for (const [key, child] of Object.entries(value)) {
      const found = nulPath(child, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}

/** A router for one API area (or the app), with the shared validation hook. */
export function newRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.target, result.error);
      const path = nulPath(result.data);
      if (path) {
        const issue = { path, message: "must not contain NUL characters", code: "custom" };
        throw new ApiError(400, `${[result.target, ...path].join("/")} ${issue.message}`, [issue]);
      }
    },
  });
}
