/**
 * Uploads (`POST /api/upload`), the user's files (`/api/user/files…`) and
 * password access to a protected file (spec §4.5).
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { setServiceCookie } from "./cookies.ts";
import { authenticate } from "../core/auth.ts";
import { ApiError } from "../core/errors.ts";
import {
  deleteFile,
  deleteFiles,
  fileView,
  findFile,
  flagFiles,
  listFiles,
  taggedViews,
  updateFile,
} from "../core/files/manage.ts";
import { moveFiles } from "../core/files/folder_files.ts";
import {
  OPTION_PREFIXES,
  type OptionHeader,
  optionHeaders,
  parseUploadOptions,
} from "../core/files/options.ts";
import { ACCESS_SECONDS, accessCookieName, verifyFileAccess } from "../core/files/passwords.ts";
import { upload } from "../core/files/upload.ts";
import {
  type RequestUpload,
  requestUploadOptions,
  uploaderName,
} from "../core/files/request_uploads.ts";
import { SESSION_COOKIE } from "../core/sessions.ts";
import { FILE_SEARCH_FIELDS, FILE_SORT_KEYS } from "../db/files.ts";
import type { UserRecord } from "../db/users.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter, STORAGE_FULL } from "./define.ts";
import { type AppEnv, attempter, currentUser as me } from "./env.ts";
import { declaredLength, fileParts, multipartBoundary } from "./multipart.ts";
import { Timestamp } from "./schemas.ts";

/** A tag as a file carries it. */
const FileTagSchema = z.object({
  id: z.string(),
  name: z.string(),
  color: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}).openapi("FileTag");

/** A file as the API shows it; `tags` where Zipline sends them (list, get, change). */
export const FileSchema = z.object({
  id: z.string(),
  name: z.string(),
  originalName: z.string().nullable(),
  size: z.number().int(),
  type: z.string(),
  views: z.number().int(),
  maxViews: z.number().int().nullable(),
  favorite: z.boolean(),
  password: z.boolean().openapi({ description: "Whether it has one; the hash is never sent" }),
  anonymous: z.boolean(),
  private: z.boolean().openapi({
    description: "Served at the public paths to nobody but its owner signed in; share links " +
      "still open it (Ferry)",
  }),
  folderId: z.string().nullable(),
  deletesAt: Timestamp.nullable(),
  thumbnail: z.object({ path: z.string() }).nullable().openapi({
    description: "Its thumbnail, served at `/raw/<path>` while the file has no password, and " +
      "to its owner at `/api/user/files/<path>/raw`",
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  url: z.string().openapi({ description: "Where it is served, relative: `/u/<name>`" }),
  tags: z.array(FileTagSchema).optional(),
  uploaderName: z.string().optional().openapi({
    description: "The name its uploader gave, for a file sent through an upload request",
  }),
}).openapi("File");

const IdParam = z.object({
  id: z.string().min(1).max(1024).openapi({
    param: { name: "id", in: "path" },
    description: "The file's id or its name",
    example: "aB3dE9.png",
  }),
});

const notFound = errorDoc("`Not Found`: no such file, or not one the caller may see");

const option = (name: string, description: string) =>
  z.string().optional().openapi({
    description: `${description} (\`x-zipline-${name}\` is accepted too)`,
  });

/** The headers of an upload through an upload request, on both upload routes. */
export const REQUEST_HEADERS = {
  "x-service-request": z.string().optional().openapi({
    description: "The code of an upload request to upload through (its link's last part); " +
      "no other credential is needed, and any sent is ignored",
  }),
  "x-service-request-password": z.string().optional().openapi({
    description: "The request's password, when it has one",
  }),
  "x-service-request-uploader": z.string().optional().openapi({
    description: "The uploader's name, percent-encoded, at most 100 characters: kept with " +
      "each file for the request's owner",
  }),
};

/** The 410 of an upload through a request that is closed. */
export const REQUEST_CLOSED = errorDoc(
  "`This upload request does not exist or was closed`, `This upload request has expired`",
);

/** What `POST /api/upload` answers (the dashboard types its uploads with it). */
export const UploadReplySchema = z.object({
  files: z.array(z.object({
    id: z.string(),
    name: z.string(),
    type: z.string(),
    url: z.string(),
    removedGps: z.literal(true).optional().openapi({
      description: "GPS data was removed from the image",
    }),
    compressed: z.object({
      mimetype: z.string(),
      ext: z.string(),
      failed: z.literal(true).optional(),
    }).optional().openapi({
      description: "The image was compressed into this type and extension " +
        "(`failed`: it did not decode and was stored as it came)",
    }),
  })),
  deletesAt: z.string().optional().openapi({ description: "`never` or an ISO time" }),
}).openapi("UploadReply");

const upload_ = defineRoute({
  method: "post",
  path: "/upload",
  auth: "none",
  scope: "files:write",
  tags: ["Files"],
  summary: "Upload files (multipart/form-data, any field names, one or more files)",
  description: "Needs a token or session, except an upload into a folder that accepts " +
    "anonymous uploads (`x-service-folder` and no credentials) and an upload through an " +
    "upload request (`x-service-request`, credentials ignored). An upload into another's " +
    "folder counts against the folder owner's quota and is never compressed (the compression " +
    "headers are ignored). An upload through a request goes into the request's folder as its " +
    "owner's, held to the owner's quota and the request's limits; the request decides every " +
    "option but `no-json`. Every option header has at most 1000 characters, " +
    "`x-service-folder` at most 100.",
  request: {
    headers: z.object({
      "x-service-deletes-at": option(
        "deletes-at",
        "Expiry: a duration (`30m`, `7d`), `date=<ISO time>` or `never`",
      ),
      "x-service-max-views": option("max-views", "Views after which the file is gone"),
      "x-service-password": option("password", "A password the file will need"),
      "x-service-format": option(
        "format",
        "`random`, `date`, `uuid`, `name`, `gfycat` or `random-words`",
      ),
      "x-service-filename": option("filename", "A name to use instead of the format's"),
      "x-service-original-name": option("original-name", "`true` keeps the client's file name"),
      "x-service-file-extension": option("file-extension", "An extension to use instead"),
      "x-service-folder": option("folder", "The folder to put the files in"),
      "x-service-domain": option(
        "domain",
        "Host names for the returned URLs, one picked; each must be `coreDefaultDomain`, " +
          "one of `domains` or the request's own host (else 400, nothing stored)",
      ),
      "x-service-no-json": option("no-json", "`true` answers the URLs as text"),
      "x-service-private": option(
        "private",
        "`true`: the files are private, served to nobody but the owner signed in; `false`: " +
          "not, whatever the owner's `privateByDefault` (Ferry)",
      ),
      "x-service-image-compression-percent": option(
        "image-compression-percent",
        "Compress uploaded PNG, JPEG and WebP images at this quality, 0 to 100; the name's " +
          "extension and the type follow the format written",
      ),
      "x-service-image-compression-type": option(
        "image-compression-type",
        "`jpg`, `jpeg`, `png`, `webp` or `jxl` (with the percent only; default " +
          "`filesDefaultCompressionFormat`)",
      ),
      ...REQUEST_HEADERS,
    }),
  },
  responses: {
    200: {
      description: "The stored files, or (`no-json`) their URLs separated by commas",
      content: {
        "application/json": {
          schema: UploadReplySchema,
        },
        "text/plain": { schema: z.string() },
      },
    },
    400: errorDoc(
      "`bad options[<header>]: …` (also `<header> is longer than <n> characters`), " +
        "`bad options, receieved: partial upload` (a " +
        "`Content-Range`: chunks go to `/api/upload/partial`), " +
        "`file[i]: File extension .<ext> is not allowed`, " +
        "`file[i]: Invalid characters in original filename`, a malformed body",
    ),
    401: errorDoc("`not logged in`, `no token`, `could not decrypt token`, …"),
    403: errorDoc(
      "`Uploading this file would exceed your quota of <size>` (`… the folder owner's quota` " +
        "into another's folder or through a request), `folder is not open`, " +
        "`Incorrect password` (a request's)",
    ),
    410: REQUEST_CLOSED,
    413: errorDoc(
      "`file[i]: File size is too large. Maximum file size is <bytes> bytes`, " +
        "`Uploading these files would exceed your quota` (`… the folder owner's quota`), " +
        "`This upload request accepts no more files (<n> at most)`, " +
        "`This upload request has room for <n> more bytes only`",
    ),
    415: errorDoc(
      "`the request is not multipart`, `file[i]: File type <type> is not accepted by this " +
        "upload request (…)`",
    ),
    507: STORAGE_FULL,
  },
});

/** A page of files, `GET /api/user/files` (the dashboard types its list with it). */
export const FilePageSchema = z.object({
  page: z.array(FileSchema),
  total: z.number().int(),
  pages: z.number().int(),
  search: z.object({
    field: z.enum([...FILE_SEARCH_FIELDS, "tags"]),
    query: z.union([z.string(), z.array(z.string())]),
  }).optional(),
}).openapi("FilePage");

const list = defineRoute({
  method: "get",
  path: "/user/files",
  auth: "user",
  scope: "files:read",
  tags: ["Files"],
  summary: "A page of the caller's files (or, for an administrator, a managed user's)",
  request: {
    query: z.object({
      page: z.coerce.number().int().min(1).openapi({ example: 1 }),
      perpage: z.coerce.number().int().min(1).max(1000).default(15),
      filter: z.enum(["dashboard", "none", "all"]).default("none"),
      favorite: z.enum(["true", "false"]).optional(),
      sortBy: z.enum(FILE_SORT_KEYS).default("createdAt"),
      order: z.enum(["asc", "desc"]).default("desc"),
      searchField: z.enum([...FILE_SEARCH_FIELDS, "tags"]).default("name"),
      searchQuery: z.string().max(1000).optional().openapi({
        description: "A substring; for `tags`, comma-separated tag ids the files must all carry",
      }),
      id: z.string().max(100).optional().openapi({ description: "Whose files (a user id)" }),
      folder: z.string().max(100).optional().openapi({ description: "Only this folder's" }),
    }),
  },
  responses: {
    200: json(
      FilePageSchema,
      "The page, the number of matching files and of pages",
    ),
    400: errorDoc("`Invalid tag specified`, or a malformed query"),
    404: errorDoc(
      "`Not Found`: the user is unknown or not one the caller manages, or the folder is not " +
        "one of that user's",
    ),
  },
});

const FileIds = z.array(z.string().min(1).max(1024)).min(1).max(1000);

/** A change of many files at once. */
export const FilesPatchBody = z.object({
  files: FileIds.openapi({ example: ["c0"] }),
  favorite: z.boolean().optional().openapi({ example: true }),
  private: z.boolean().optional().openapi({
    description: "`true`: served to nobody but the owner signed in (Ferry)",
  }),
  folder: z.string().min(1).max(100).optional().openapi({
    description: "A folder of the caller's to move the files into (when neither `favorite` " +
      "nor `private`)",
  }),
});

const bulkChange = defineRoute({
  method: "patch",
  path: "/user/files/transaction",
  auth: "user",
  scope: "files:write",
  tags: ["Files"],
  summary: "Favorite or unfavorite several files, make them private or not, or move the " +
    "caller's own into its folder",
  request: {
    body: jsonBody(FilesPatchBody),
  },
  responses: {
    200: json(
      z.object({
        count: z.number().int(),
        name: z.string().optional().openapi({ description: "The folder's name, on a move" }),
      }),
      "How many files changed",
    ),
    404: errorDoc("`Folder not found`, `No files were moved.`"),
  },
});

/** Deleting files, or taking them out of their folder. */
export const FilesDeleteBody = z.object({
  files: FileIds.openapi({ example: ["c0"] }),
  delete_datasourceFiles: z.boolean().optional().openapi({
    description: "`true` also removes the stored bytes; otherwise they stay in storage",
  }),
});

const bulkDelete = defineRoute({
  method: "delete",
  path: "/user/files/transaction",
  auth: "user",
  scope: "files:delete",
  tags: ["Files"],
  summary: "Delete several files",
  request: {
    body: jsonBody(FilesDeleteBody),
  },
  responses: { 200: json(z.object({ count: z.number().int() }), "How many files were deleted") },
});

const get = defineRoute({
  method: "get",
  path: "/user/files/{id}",
  auth: "user",
  scope: "files:read",
  tags: ["Files"],
  summary: "One file",
  request: { params: IdParam },
  responses: { 200: json(FileSchema, "The file"), 404: notFound },
});

/** A change of one file (`PATCH /api/user/files/{id}`). */
export const FilePatchBody = z.object({
  favorite: z.boolean().optional().openapi({ example: true }),
  maxViews: z.number().int().min(0).max(2_147_483_647).nullable().optional().openapi({
    description: "`0` or `null` removes the limit",
  }),
  password: z.string().max(1000).nullable().optional().openapi({
    description: '`""` or `null` removes the password',
  }),
  originalName: z.string().max(255).nullable().optional(),
  type: z.string().trim().min(1).max(255).optional(),
  name: z.string().trim().min(1).max(255).optional(),
  tags: z.array(z.string().min(1).max(100)).max(100).optional().openapi({
    description: "Tag ids of the file owner's; they replace the file's tags",
  }),
  private: z.boolean().optional().openapi({
    description: "`true`: served at the public paths to nobody but the owner signed in (Ferry)",
  }),
});

const patch = defineRoute({
  method: "patch",
  path: "/user/files/{id}",
  auth: "user",
  scope: "files:write",
  tags: ["Files"],
  summary: "Change a file; a new name renames the stored object too",
  request: {
    params: IdParam,
    body: jsonBody(FilePatchBody),
  },
  responses: {
    200: json(FileSchema, "The changed file"),
    400: errorDoc(
      "`File with this name already exists`, `name: invalid file name` (also a name Ferry " +
        "keeps for itself, such as `.thumbnail.…`), `type: invalid file type` (not one " +
        "`type/subtype`), `Invalid tag specified`, …",
    ),
    404: notFound,
    500: errorDoc("`Failed to rename file in datasource`, or `Internal Server Error`"),
  },
});

const remove = defineRoute({
  method: "delete",
  path: "/user/files/{id}",
  auth: "user",
  scope: "files:delete",
  tags: ["Files"],
  summary: "Delete a file, record and bytes",
  request: { params: IdParam },
  responses: { 200: json(FileSchema, "The deleted file"), 404: notFound },
});

const password = defineRoute({
  method: "post",
  path: "/user/files/{id}/password",
  auth: "none",
  rateLimit: { max: 2, seconds: 1 },
  tags: ["Files"],
  summary: "Verify a file's password: sets the cookie `file_pw_<fileId>` for 60 seconds",
  description: "Every attempt at a file's password, here, with `?pw=` or through the cookie, " +
    "counts against 2 a second per client IP and file (429 past it) and is logged.",
  request: {
    params: IdParam,
    body: jsonBody(z.object({
      password: z.string().trim().min(1).max(1000).openapi({ example: "hunter2" }),
    })),
  },
  responses: {
    200: json(z.object({ success: z.literal(true) }), "Verified; the cookie is set"),
    403: errorDoc("`Incorrect password`"),
    404: errorDoc("`Not Found`: no such file, or it has no password"),
  },
});

/**
 * The uploader: the authenticated caller; `null` for an anonymous folder
 * upload (a folder and no credentials at all); otherwise the 401 of `user` auth.
 */
export async function uploader(c: Context<AppEnv>): Promise<UserRecord | null> {
  if (c.var.user) return c.var.user;
  const authorization = c.req.header("authorization");
  const sessionSecret = getCookie(c, SESSION_COOKIE);
  const folder = OPTION_PREFIXES.some((p) => c.req.header(`${p}folder`));
  if (folder && authorization === undefined && sessionSecret === undefined) return null;
  return (await authenticate(c.var.services, { authorization, sessionSecret }, "user", {
    scope: "files:write",
  })).user;
}

/**
 * The upload request an upload goes through (`x-service-request`), with its
 * password and the uploader's name; `null` when it names none.
 */
export function requestVia(c: Context<AppEnv>, header: OptionHeader): RequestUpload | null {
  const code = header("request")?.trim();
  if (!code) return null;
  return {
    pass: { code, password: header("request-password") ?? null, attempt: attempter(c) },
    uploaderName: uploaderName(header("request-uploader")),
  };
}

/**
 * The options of an upload: the option headers', or, through an upload
 * request (`via`), the request's.
 */
export function uploadOptions(c: Context<AppEnv>, header: OptionHeader, via: unknown) {
  const s = c.var.services;
  const host = new URL(c.req.url).host;
  const settings = s.settings.all();
  if (!via) return parseUploadOptions(header, settings, s.clock.now(), s.random, host);
  const noJson = header("no-json")?.trim().toLowerCase() === "true";
  return requestUploadOptions(settings, s.clock.now(), s.random, noJson);
}

/** The request's option headers, each held to its bound (`optionHeaders`). */
export function optionHeader(c: Context<AppEnv>): OptionHeader {
  return optionHeaders(c.req.raw.headers);
}

/** The upload and files routes. */
export const fileRoutes = newRouter()
  .openapi(upload_, async (c) => {
    const s = c.var.services;
    const header = optionHeader(c);
    const via = requestVia(c, header);
    const user = via ? null : await uploader(c);
    // A chunk sent here would be stored as a whole file (Zipline's words, typo included).
    if (c.req.header("content-range") !== undefined) {
      throw new ApiError(400, "bad options, receieved: partial upload");
    }
    const boundary = multipartBoundary(c.req.header("content-type"));
    const body = c.req.raw.body;
    if (!boundary || !body) throw new ApiError(415, "the request is not multipart");
    const settings = s.settings.all();
    const host = new URL(c.req.url).host;
    const options = uploadOptions(c, header, via);
    const declaredBytes = declaredLength(c.req.header("content-length"));
    const result = await upload(s, {
      user,
      options,
      via,
      parts: fileParts(body, boundary, settings.filesMaxFilesPerUpload, declaredBytes),
      host,
      declaredBytes,
    });
    if (options.noJson) return c.text(result.files.map((f) => f.url).join(","), 200);
    return c.json(result, 200);
  })
  .openapi(list, async (c) => {
    const q = c.req.valid("query");
    const page = await listFiles(c.var.services, me(c), {
      ...q,
      favorite: q.favorite === undefined ? undefined : q.favorite === "true",
      userId: q.id,
      folderId: q.folder,
    });
    return c.json(page, 200);
  })
  .openapi(bulkChange, async (c) => {
    const { files, favorite, private: isPrivate, folder } = c.req.valid("json");
    const s = c.var.services;
    if (favorite !== undefined || isPrivate !== undefined) {
      const flags = { favorite, private: isPrivate };
      return c.json({ count: await flagFiles(s, me(c), files, flags) }, 200);
    }
    if (folder === undefined) throw new ApiError(400, "Cannot PATCH without an action");
    return c.json(await moveFiles(s, me(c), files, folder), 200);
  })
  .openapi(bulkDelete, async (c) => {
    const { files, delete_datasourceFiles } = c.req.valid("json");
    const count = await deleteFiles(c.var.services, me(c), files, delete_datasourceFiles ?? false);
    return c.json({ count }, 200);
  })
  .openapi(get, async (c) => {
    const s = c.var.services;
    const file = await findFile(s, me(c), c.req.valid("param").id);
    const [view] = await taggedViews(s, [file]);
    return c.json(view, 200);
  })
  .openapi(patch, async (c) => {
    const s = c.var.services;
    const file = await updateFile(s, me(c), c.req.valid("param").id, c.req.valid("json"));
    const [view] = await taggedViews(s, [file]);
    return c.json(view, 200);
  })
  .openapi(remove, async (c) => {
    const s = c.var.services;
    const file = await deleteFile(s, me(c), c.req.valid("param").id);
    return c.json(fileView(s.settings.all(), file), 200);
  })
  .openapi(password, async (c) => {
    const { password } = c.req.valid("json");
    const file = await verifyFileAccess(
      c.var.services,
      c.req.valid("param").id,
      password,
      attempter(c),
    );
    setServiceCookie(c, accessCookieName(file.id), password, {
      path: "/",
      maxAge: ACCESS_SECONDS,
      httpOnly: false,
    });
    return c.json({ success: true as const }, 200);
  });
