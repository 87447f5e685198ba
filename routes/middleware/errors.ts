/**
 * The one place error bodies are made: `{error, statusCode}` (plus `issues` on
 * validation failures), the unknown-route 404, and the 500 that logs its cause
 * but never sends it.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError } from "zod";
import { ApiError, type Issue } from "../../core/errors.ts";
import { StorageFullError } from "../../storage/datasource.ts";
import type { AppEnv } from "../env.ts";

/** Where a validation issue was found, in Fastify's words (as Zipline answers). */
const TARGET_NAMES: Record<string, string> = {
  json: "body",
  form: "body",
  query: "querystring",
  param: "params",
  header: "headers",
  cookie: "cookies",
};

/** Converts zod issues into the spec's `issues` array. */
export function toIssues(error: ZodError): Issue[] {
  return error.issues.map((i) => ({
    path: i.path.map(String),
    message: i.message,
    code: i.code,
  }));
}

/** The 400 for a request that failed its schema. */
export function validationError(target: string, error: ZodError): ApiError {
  const issues = toIssues(error);
  const where = [TARGET_NAMES[target] ?? target, ...issues[0].path].join("/");
  return new ApiError(400, `${where} ${issues[0].message}`, issues);
}

/** The `Retry-After` of a 503 while the database or the bucket cannot be reached. */
const RETRY_SECONDS = 5;

/** The OS's codes for a service out of reach: refused, reset, timed out, unknown host. */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** `true` when `err` (or its cause) is a connection to a service that failed at the socket. */
function unreachable(err: Error): boolean {
  return [err, err.cause].some((e) => UNREACHABLE.has((e as { code?: string } | null)?.code ?? ""));
}

/** `app.onError`: the error body for anything thrown; 503 when a service cannot be reached. */
export function onError(err: Error, c: Context<AppEnv>): Response {
  if (err instanceof ApiError) {
    const body = err.issues
      ? { error: err.message, statusCode: err.status, issues: err.issues }
      : { error: err.message, statusCode: err.status };
    // 460 (tus's checksum mismatch) is no status Hono knows by name.
    return c.json(body, err.status as ContentfulStatusCode, err.headers);
  }
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    return c.json({ error: err.message || statusText(status), statusCode: status }, status);
  }
  if (err instanceof StorageFullError) {
    c.var.services?.logger.error("datasource full", { method: c.req.method, path: c.req.path });
    return c.json(
      { error: "Insufficient Storage: the server has no room left", statusCode: 507 },
      507,
    );
  }
  const services = c.var.services;
  if (
    unreachable(err) || services?.store.unavailable(err) || services?.store.unavailable(err.cause)
  ) {
    // The database or the bucket is down or restarting: the client may try again, and no
    // stack helps anyone.
    services?.logger.warn("unreachable: answered 503", {
      method: c.req.method,
      path: c.req.path,
      error: err.message,
    });
    return c.json(
      { error: "Service Unavailable", statusCode: 503 },
      503,
      { "retry-after": String(RETRY_SECONDS) },
    );
  }
  services?.logger.error("unhandled error", {
    method: c.req.method,
    path: c.req.path,
    error: err,
  });
  return c.json({ error: "Internal Server Error", statusCode: 500 }, 500);
}

/** `app.notFound`: the unknown-route body, as Zipline's framework words it. */
export function onNotFound(c: Context<AppEnv>): Response {
  return c.json(
    {
      message: `Route ${c.req.method}:${c.req.path} not found`,
      error: "Not Found",
      statusCode: 404,
    },
    404,
  );
}

function statusText(status: number): string {
  return { 400: "Bad Request", 413: "Payload Too Large", 415: "Unsupported Media Type" }[status] ??
    "Error";
}
