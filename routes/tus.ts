/**
 * tus 1.0.0 uploads (`/api/upload/tus`, `/api/upload/tus/{id}`): the core
 * protocol with creation, creation-with-upload, termination, expiration and
 * checksum (`core/files/tus.ts`). Every answer but `OPTIONS`'s carries
 * `Tus-Resumable`; a request without `Tus-Resumable: 1.0.0` is a 412 with
 * `Tus-Version`. The tus headers are exposed to browsers (CORS).
 */
import { z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { authenticate } from "../core/auth.ts";
import { ApiError } from "../core/errors.ts";
import {
  createTusUpload,
  patchTusUpload,
  terminateTusUpload,
  TUS_CHECKSUMS,
  TUS_EXTENSIONS,
  TUS_VERSION,
  type TusCaller,
  tusMaxSize,
  tusUploadInfo,
  type TusUploadView,
  type TusWritten,
} from "../core/files/tus.ts";
import { SESSION_COOKIE } from "../core/sessions.ts";
import { defineRoute, errorDoc, newRouter, STORAGE_FULL } from "./define.ts";
import type { AppEnv } from "./env.ts";
import { streamedBody } from "./middleware/body_limit.ts";
import { optionHeader, REQUEST_CLOSED, REQUEST_HEADERS, requestVia } from "./files.ts";

/** The media type of a PATCH body. */
const OFFSET_STREAM = "application/offset+octet-stream";

/** The response headers a browser may read (`Access-Control-Expose-Headers`). */
export const TUS_EXPOSED_HEADERS = [
  "Location",
  "Upload-Offset",
  "Upload-Length",
  "Upload-Metadata",
  "Upload-Expires",
  "Upload-Url",
  "X-Ferry-File-Id",
  "Tus-Resumable",
  "Tus-Version",
  "Tus-Extension",
  "Tus-Max-Size",
  "Tus-Checksum-Algorithm",
].join(", ");

const TUS_REQUEST_HEADERS = [
  "Authorization",
  "Content-Type",
  "Tus-Resumable",
  "Upload-Length",
  "Upload-Defer-Length",
  "Upload-Metadata",
  "Upload-Offset",
  "Upload-Checksum",
  "X-HTTP-Method-Override",
  "X-Requested-With",
  "x-service-request",
  "x-service-request-password",
  "x-service-request-uploader",
].join(", ");

const header = (description: string) => z.string().openapi({ description });

const tusVersion = z.string().optional().openapi({
  description: "`1.0.0` (required; a 412 with `Tus-Version` without it)",
  example: TUS_VERSION,
});

const IdParam = z.object({
  id: z.string().min(1).max(100).openapi({ param: { name: "id", in: "path" } }),
});

const FINISHED_HEADERS = {
  "Upload-Url": header("The file's link, once the last byte arrived"),
  "X-Ferry-File-Id": header("The file's id, once the last byte arrived"),
};

const notFound = errorDoc(
  "`Not Found`: no such upload (finished, terminated, expired) or not the caller's",
);
const busy = errorDoc("`Another request is writing to this upload`");

const options = defineRoute({
  method: "options",
  path: "/upload/tus",
  auth: "none",
  rateLimit: "none",
  tags: ["tus"],
  summary: "The server's tus capabilities (and the CORS preflight of the tus routes)",
  responses: {
    204: {
      description: "What the server supports",
      headers: z.object({
        "Tus-Version": header("`1.0.0`"),
        "Tus-Extension": header(TUS_EXTENSIONS.join(",")),
        "Tus-Max-Size": header("The largest upload, in bytes"),
        "Tus-Checksum-Algorithm": header(TUS_CHECKSUMS.join(",")),
      }),
    },
  },
});

const optionsOne = defineRoute({
  method: "options",
  path: "/upload/tus/{id}",
  auth: "none",
  rateLimit: "none",
  tags: ["tus"],
  summary: "The same as `OPTIONS /api/upload/tus`",
  request: { params: IdParam },
  responses: { 204: { description: "What the server supports" } },
});

const create = defineRoute({
  method: "post",
  path: "/upload/tus",
  auth: "none",
  scope: "files:write",
  rateLimit: "chunks",
  tags: ["tus"],
  summary: "Create a tus upload (creation; creation-with-upload when a body is sent)",
  description: "Authenticated by the token, an API key with `files:write`, the session cookie " +
    "(same-origin), or an upload request's code in `x-service-request`. `Upload-Metadata` " +
    "carries `filename`, `filetype` and the upload options, named as the option headers' " +
    "short names (`folder`, `password`, `deletes-at`, `max-views`, `format`, `original-name`, " +
    "`private`, `file-extension`, `domain`, `image-compression-percent`, " +
    "`image-compression-type`; an `x-service-<name>` header counts where the metadata is " +
    "silent). The length and one file are reserved in the owner's quota from here until " +
    "the upload completes, is terminated or expires (a day after its last byte).",
  request: {
    headers: z.object({
      "tus-resumable": tusVersion,
      "upload-length": z.string().optional().openapi({ description: "Total bytes (required)" }),
      "upload-metadata": z.string().optional().openapi({
        description: "Comma-separated `key base64value` pairs",
      }),
      "upload-checksum": z.string().optional().openapi({
        description: "`sha1|sha256 <base64 digest>` of the body sent along",
      }),
      ...REQUEST_HEADERS,
    }),
  },
  responses: {
    201: {
      description: "Created; `Location` is the upload's URL",
      headers: z.object({
        Location: header("The upload's URL (`/api/upload/tus/<id>`)"),
        "Upload-Offset": header("Bytes kept, with creation-with-upload"),
        "Upload-Expires": header("When the upload is dropped unless more bytes arrive"),
        ...FINISHED_HEADERS,
      }),
    },
    400: errorDoc(
      "`Upload-Length is required`, bad `Upload-Metadata`, a bad upload option " +
        "(`bad options[<name>]: …`), `Upload-Defer-Length is not supported: …`",
    ),
    403: errorDoc("`folder is not open`"),
    404: errorDoc("`Not Found`: no such folder"),
    410: REQUEST_CLOSED,
    413: errorDoc(
      "`File size is too large. Maximum file size is <bytes> bytes`, `Uploading this file " +
        "would exceed your quota of <size>`, an upload request's refusals",
    ),
    415: errorDoc("A body that is not `application/offset+octet-stream`, a refused type"),
    460: errorDoc("`Checksum mismatch: …` of the body sent along (the upload exists)"),
    507: STORAGE_FULL,
  },
});

const head = defineRoute({
  method: "get",
  path: "/upload/tus/{id}",
  auth: "none",
  scope: "files:write",
  rateLimit: "chunks",
  tags: ["tus"],
  summary: "Where a tus upload stands (send it as `HEAD`)",
  request: {
    params: IdParam,
    headers: z.object({ "tus-resumable": tusVersion, ...REQUEST_HEADERS }),
  },
  responses: {
    200: {
      description: "The upload's offset, length, metadata and expiry",
      headers: z.object({
        "Upload-Offset": header("Bytes kept: resume from here"),
        "Upload-Length": header("Total bytes"),
        "Upload-Metadata": header("As sent at creation"),
        "Upload-Expires": header("When the upload is dropped unless more bytes arrive"),
      }),
    },
    404: notFound,
    410: REQUEST_CLOSED,
  },
});

const patch = defineRoute({
  method: "patch",
  path: "/upload/tus/{id}",
  auth: "none",
  scope: "files:write",
  rateLimit: "chunks",
  tags: ["tus"],
  summary: "Append bytes to a tus upload (`application/offset+octet-stream`)",
  description: "The request that brings the last byte records the file, as `POST /api/upload` " +
    "would (name, quota, webhooks, thumbnails, compression), and answers its link in " +
    "`Upload-Url` and its id in `X-Ferry-File-Id`.",
  request: {
    params: IdParam,
    headers: z.object({
      "tus-resumable": tusVersion,
      "upload-offset": z.string().optional().openapi({
        description: "The upload's offset (required)",
      }),
      "upload-checksum": z.string().optional().openapi({
        description: "`sha1|sha256 <base64 digest>` of this body",
      }),
      ...REQUEST_HEADERS,
    }),
  },
  responses: {
    204: {
      description: "The bytes are kept",
      headers: z.object({
        "Upload-Offset": header("The new offset"),
        "Upload-Expires": header("When the upload is dropped unless more bytes arrive"),
        ...FINISHED_HEADERS,
      }),
    },
    400: errorDoc("`Upload-Offset must be a whole number`, a bad `Upload-Checksum`, …"),
    404: notFound,
    409: errorDoc("`Upload-Offset does not match …`: resume from the upload's offset"),
    410: REQUEST_CLOSED,
    413: errorDoc("`The body goes past the upload's Upload-Length`, and the file's refusals"),
    415: errorDoc("The body is not `application/offset+octet-stream`"),
    423: busy,
    460: errorDoc("`Checksum mismatch: the bytes were not kept`"),
    507: STORAGE_FULL,
  },
});

const terminate = defineRoute({
  method: "delete",
  path: "/upload/tus/{id}",
  auth: "none",
  scope: "files:write",
  rateLimit: "chunks",
  tags: ["tus"],
  summary: "Terminate a tus upload: its bytes and reservation go",
  request: {
    params: IdParam,
    headers: z.object({ "tus-resumable": tusVersion, ...REQUEST_HEADERS }),
  },
  responses: {
    204: { description: "Terminated" },
    404: notFound,
    410: REQUEST_CLOSED,
    423: busy,
  },
});

/**
 * Holds every tus request but `OPTIONS` to `Tus-Resumable: 1.0.0` and puts
 * `Tus-Resumable` and the CORS exposure on every answer, errors included.
 */
const tusHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method !== "OPTIONS" && c.req.header("tus-resumable") !== TUS_VERSION) {
    throw new ApiError(412, `Tus-Resumable ${TUS_VERSION} is required`, undefined, {
      "Tus-Version": TUS_VERSION,
      "Access-Control-Expose-Headers": TUS_EXPOSED_HEADERS,
    });
  }
  await next();
  const headers = c.res.headers;
  if (c.req.method !== "OPTIONS") headers.set("Tus-Resumable", TUS_VERSION);
  headers.set("Access-Control-Expose-Headers", TUS_EXPOSED_HEADERS);
};

/** The caller: an upload request's code, or else a user (401 without credentials). */
async function caller(c: Context<AppEnv>): Promise<TusCaller> {
  const host = new URL(c.req.url).host;
  const via = requestVia(c, optionHeader(c));
  if (via) return { user: null, via, host };
  const user = c.var.user ?? (await authenticate(
    c.var.services,
    {
      authorization: c.req.header("authorization"),
      sessionSecret: getCookie(c, SESSION_COOKIE),
    },
    "user",
    { scope: "files:write" },
  )).user;
  return { user, via: null, host };
}

/** The bytes of a PATCH (or a creation with upload), held to their media type. */
function bytesOf(c: Context<AppEnv>) {
  const body = streamedBody(c);
  const type = c.req.header("content-type")?.split(";")[0].trim().toLowerCase();
  if (type !== OFFSET_STREAM) {
    // No body: none declared, or neither a length nor a chunked one (`curl -X POST`).
    const declared = c.req.header("content-length");
    const none = !body ||
      (declared === undefined ? !c.req.header("transfer-encoding") : declared === "0");
    if (c.req.method === "POST" && none) return null;
    throw new ApiError(415, `The body must be ${OFFSET_STREAM}`);
  }
  return {
    offset: c.req.header("upload-offset"),
    checksum: c.req.header("upload-checksum"),
    contentLength: c.req.header("content-length"),
    body,
  };
}

/** The headers saying where an upload stands after a write, and its file once complete. */
function writtenHeaders(written: TusWritten): Record<string, string> {
  const { upload, file } = written;
  return {
    "Upload-Offset": String(upload.offset),
    ...(file
      ? { "Upload-Url": file.url, "X-Ferry-File-Id": file.id }
      : { "Upload-Expires": upload.expiresAt.toUTCString() }),
  };
}

function capabilities(c: Context<AppEnv>) {
  const requested = c.req.header("access-control-request-headers");
  return c.body(null, 204, {
    "Tus-Version": TUS_VERSION,
    "Tus-Extension": TUS_EXTENSIONS.join(","),
    "Tus-Max-Size": String(tusMaxSize(c.var.services)),
    "Tus-Checksum-Algorithm": TUS_CHECKSUMS.join(","),
    "Access-Control-Allow-Methods": "POST, GET, HEAD, PATCH, DELETE, OPTIONS",
    "Access-Control-Allow-Headers": requested ?? TUS_REQUEST_HEADERS,
    "Access-Control-Max-Age": "86400",
  });
}

/** The answer to a `HEAD`. */
function headHeaders(upload: TusUploadView): Record<string, string> {
  return {
    "Upload-Offset": String(upload.offset),
    "Upload-Length": String(upload.length),
    ...(upload.metadata ? { "Upload-Metadata": upload.metadata } : {}),
    "Upload-Expires": upload.expiresAt.toUTCString(),
    "Cache-Control": "no-store",
  };
}

/** The tus routes. */
export const tusRoutes = newRouter();
tusRoutes.use("/upload/tus", tusHeaders);
tusRoutes.use("/upload/tus/*", tusHeaders);
tusRoutes
  .openapi(options, (c) => capabilities(c))
  .openapi(optionsOne, (c) => capabilities(c))
  .openapi(create, async (c) => {
    const written = await createTusUpload(c.var.services, await caller(c), {
      length: c.req.header("upload-length"),
      deferLength: c.req.header("upload-defer-length"),
      metadata: c.req.header("upload-metadata"),
      header: optionHeader(c),
      patch: bytesOf(c),
    });
    return c.body(null, 201, {
      Location: `/api/upload/tus/${written.upload.id}`,
      ...writtenHeaders(written),
    });
  })
  .openapi(head, async (c) => {
    const upload = await tusUploadInfo(c.var.services, await caller(c), c.req.valid("param").id);
    return c.body(null, 200, headHeaders(upload));
  })
  .openapi(patch, async (c) => {
    const who = await caller(c);
    const bytes = bytesOf(c)!;
    const written = await patchTusUpload(c.var.services, who, c.req.valid("param").id, bytes);
    return c.body(null, 204, writtenHeaders(written));
  })
  .openapi(terminate, async (c) => {
    await terminateTusUpload(c.var.services, await caller(c), c.req.valid("param").id);
    return c.body(null, 204);
  });
