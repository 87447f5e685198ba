/**
 * Chunked uploads (`POST /api/upload/partial`) and where one stands
 * (`GET /api/upload/partial/{identifier}`), for resuming after a failure or a
 * server restart.
 */
import { z } from "@hono/zod-openapi";
import { getCookie } from "hono/cookie";
import { authenticate } from "../core/auth.ts";
import { chunkStatus, uploadChunk } from "../core/files/chunked.ts";
import { ApiError } from "../core/errors.ts";
import { SESSION_COOKIE } from "../core/sessions.ts";
import { defineRoute, errorDoc, json, newRouter, STORAGE_FULL } from "./define.ts";
import { streamedBody } from "./middleware/body_limit.ts";
import {
  optionHeader,
  REQUEST_CLOSED,
  REQUEST_HEADERS,
  requestVia,
  uploader,
  uploadOptions,
} from "./files.ts";
import { fileParts, multipartBoundary } from "./multipart.ts";

const pHeader = (name: string, description: string) =>
  z.string().optional().openapi({
    description: `${description} (\`x-zipline-p-${name}\` is accepted too)`,
  });

const partial = defineRoute({
  method: "post",
  path: "/upload/partial",
  auth: "none",
  scope: "files:write",
  rateLimit: "chunks",
  tags: ["Files"],
  summary: "Upload one chunk of a large file (multipart/form-data, one file part)",
  description: "The first chunk (`Content-Range: bytes 0-…`) starts an upload and fixes its " +
    "chunk size: every later chunk but the last has that size and starts at a multiple of it; " +
    "they may be sent in any order and at once, each with the `partialIdentifier` of the first " +
    "answer. The request whose chunk completes the file answers with it, like `POST " +
    "/api/upload`; the others answer `files: []`. Progress is kept by the server across " +
    "restarts: `GET /api/upload/partial/{identifier}` says which ranges it has. Every option " +
    "header of `POST /api/upload` applies, as sent with the completing chunk. The later " +
    "chunks (with `x-service-p-filename` and `x-service-p-identifier`) of an upload the " +
    "authenticated caller started are not rate limited; first chunks and anonymous chunks " +
    "are. From its first chunk until it completes, an upload counts against the owner's " +
    "quota (the folder owner's, for an upload into another's folder) with its total size and " +
    "as one file (so uploads in progress cannot together pass it). Uploads idle for a day " +
    "are dropped.",
  request: {
    headers: z.object({
      "content-range": z.string().optional().openapi({
        description: "`bytes <start>-<end>/<total>`, inclusive (required)",
        example: "bytes 0-26214399/104857600",
      }),
      "x-service-p-filename": pHeader("filename", "The file's name"),
      "x-service-p-content-type": pHeader("content-type", "The file's MIME type"),
      "x-service-p-content-length": pHeader("content-length", "The file's total size"),
      "x-service-p-identifier": pHeader("identifier", "The upload, on every chunk but the first"),
      "x-service-p-lastchunk": pHeader("lastchunk", "`true` on the last chunk (informative)"),
      ...REQUEST_HEADERS,
    }),
  },
  responses: {
    200: json(
      z.object({
        files: z.array(z.object({
          id: z.string(),
          name: z.string(),
          type: z.string(),
          url: z.string(),
          removedGps: z.literal(true).optional(),
        })),
        deletesAt: z.string().optional().openapi({ description: "`never` or an ISO time" }),
        partialSuccess: z.literal(true),
        partialIdentifier: z.string().openapi({ description: "Send it with the next chunks" }),
      }).openapi("PartialUploadReply"),
      "The chunk is stored; `files` holds the file once every chunk arrived",
    ),
    400: errorDoc(
      "`Partial upload was not detected` (no Content-Range), `Invalid partial upload: …`, " +
        "`Partial upload identifier is invalid`, `Partial uploads only support one file field`, " +
        "`Chunked uploads are disabled`, and the upload's own 400s",
    ),
    401: errorDoc("`not logged in`, `no token`, …"),
    403: errorDoc(
      "`Uploading this file would exceed your quota of <size>` (`… the folder owner's quota` " +
        "into another's folder), `folder is not open`",
    ),
    410: REQUEST_CLOSED,
    413: errorDoc(
      "`File size is too large. Maximum file size is <bytes> bytes` (the total), " +
        "`Chunk is too large. Maximum chunk size is <bytes> bytes`, and an upload request's " +
        "refusals (`This upload request accepts no more files …`, `… has room for …`)",
    ),
    415: errorDoc("`the request is not multipart`, a type an upload request does not accept"),
    507: STORAGE_FULL,
  },
});

const status = defineRoute({
  method: "get",
  path: "/upload/partial/{identifier}",
  auth: "none",
  scope: "files:write",
  tags: ["Files"],
  summary: "Which byte ranges of a chunked upload the server has, to resume it",
  description: "Needs the credentials that started the upload, none for an anonymous one.",
  request: {
    params: z.object({
      identifier: z.string().min(1).max(100).openapi({ param: { name: "identifier", in: "path" } }),
    }),
  },
  responses: {
    200: json(
      z.object({
        identifier: z.string(),
        size: z.number().int().openapi({ description: "Total bytes" }),
        partSize: z.number().int().openapi({ description: "Bytes of every chunk but the last" }),
        received: z.array(z.tuple([z.number().int(), z.number().int()])).openapi({
          description: "Received ranges, inclusive, merged and ascending",
          example: [[0, 26214399], [52428800, 78643199]],
        }),
        complete: z.boolean().openapi({ description: "Every byte arrived; it is being joined" }),
      }).openapi("PartialUploadStatus"),
      "The upload's progress",
    ),
    401: errorDoc("`no token`, `could not decrypt token`, …: credentials were sent but are bad"),
    404: errorDoc("`Not Found`: no such upload in progress (finished, dropped, or not yours)"),
  },
});

/** The chunked-upload routes. */
export const chunkedRoutes = newRouter()
  .openapi(partial, async (c) => {
    const s = c.var.services;
    const header = optionHeader(c);
    const via = requestVia(c, header);
    const user = via ? null : await uploader(c);
    const boundary = multipartBoundary(c.req.header("content-type"));
    const body = streamedBody(c);
    if (!boundary || !body) throw new ApiError(415, "the request is not multipart");
    const host = new URL(c.req.url).host;
    const result = await uploadChunk(s, {
      user,
      via,
      contentRange: c.req.header("content-range"),
      header,
      options: uploadOptions(c, header, via),
      parts: fileParts(body, boundary, 2),
      host,
    });
    return c.json(result, 200);
  })
  .openapi(status, async (c) => {
    const authorization = c.req.header("authorization");
    const sessionSecret = getCookie(c, SESSION_COOKIE);
    const user = authorization === undefined && sessionSecret === undefined
      ? null
      : (await authenticate(c.var.services, { authorization, sessionSecret }, "user", {
        scope: "files:write",
      })).user;
    return c.json(await chunkStatus(c.var.services, user, c.req.valid("param").identifier), 200);
  });
