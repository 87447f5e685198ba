/** Folders of the current user (`/api/user/folders`) and their public view (`/api/server/folder`). */
import { z } from "@hono/zod-openapi";
import {
  createFolder,
  deleteFolder,
  getFolder,
  listFolders,
  updateFolder,
} from "../core/files/folders.ts";
import { changeFolderFile } from "../core/files/folder_files.ts";
import { publicFolder } from "../core/files/public_folder.ts";
import { ApiError } from "../core/errors.ts";
import { requireKeyScope } from "../core/api_keys.ts";
import { folderArchive } from "../core/files/archive.ts";
import { contentDisposition } from "../core/files/http.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { currentUser as me } from "./env.ts";
import { FileSchema } from "./files.ts";
import { IdParam, Timestamp } from "./schemas.ts";

/** A folder's parent; in a single folder's view, with its own parent, up to the root. */
const ParentSchema = z.object({
  id: z.string(),
  name: z.string(),
  parentId: z.string().nullable(),
  get parent() {
    return ParentSchema.nullable().optional();
  },
}).openapi("FolderParent");

const FolderBase = z.object({
  id: z.string(),
  name: z.string(),
  public: z.boolean(),
  allowUploads: z.boolean(),
  private: z.boolean().openapi({
    description: "Shown to nobody (its public page is as if not public) and its files served " +
      "to nobody but its owner signed in; share links still open it",
  }),
  parentId: z.string().nullable(),
  userId: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  _count: z.object({ children: z.number().int(), files: z.number().int() }),
  parent: ParentSchema.nullable(),
  files: z.array(FileSchema).optional().openapi({ description: "Newest first; not with noincl" }),
});

/** A folder as the API shows it (the dashboard types its calls with it). */
export const FolderSchema = FolderBase.extend({
  children: z.array(FolderBase).optional().openapi({ description: "In a single folder's view" }),
}).openapi("Folder");

const notFound = errorDoc("`Not Found`: no such folder, or not one the caller may see");
const Flag = z.enum(["true", "false"]).optional();
const FolderName = z.string().trim().min(1).max(255).openapi({ example: "holiday" });

const list = defineRoute({
  method: "get",
  path: "/user/folders",
  auth: "user",
  scope: "files:read",
  tags: ["Folders"],
  summary: "The caller's folders (or a managed user's), newest first",
  request: {
    query: z.object({
      noincl: Flag.openapi({ description: "`true` leaves out each folder's files" }),
      user: z.string().max(100).optional().openapi({ description: "Whose folders (a user id)" }),
      parentId: z.string().max(100).optional().openapi({ description: "Only this one's children" }),
      root: Flag.openapi({ description: "`true`: only top-level folders" }),
    }),
  },
  responses: {
    200: json(z.array(FolderSchema), "The folders"),
    404: errorDoc("`Not Found`: the user is unknown or not one the caller manages"),
  },
});

/** A new folder: name, public, files, parent. */
export const FolderCreateBody = z.object({
  name: FolderName,
  isPublic: z.boolean().optional(),
  files: z.array(z.string().min(1).max(100)).max(1000).optional(),
  parentId: z.string().min(1).max(100).nullable().optional(),
});

const create = defineRoute({
  method: "post",
  path: "/user/folders",
  auth: "user",
  scope: "folders:write",
  tags: ["Folders"],
  summary: "Create a folder, optionally holding some of the caller's files",
  request: {
    body: jsonBody(FolderCreateBody),
  },
  responses: {
    200: json(FolderSchema, "The new folder"),
    400: errorDoc(
      "`A folder with this name already exists`, `No files found for the given request`",
    ),
    403: errorDoc("`Parent folder does not belong to you`"),
    404: errorDoc("`Parent folder not found`"),
  },
});

const get = defineRoute({
  method: "get",
  path: "/user/folders/{id}",
  auth: "user",
  scope: "files:read",
  tags: ["Folders"],
  summary: "One folder with its files, subfolders and parent chain",
  request: { params: IdParam, query: z.object({ noincl: Flag }) },
  responses: { 200: json(FolderSchema, "The folder"), 404: notFound },
});

const put = defineRoute({
  method: "put",
  path: "/user/folders/{id}",
  auth: "user",
  scope: "folders:write",
  tags: ["Folders"],
  summary: "Put one of the folder owner's files into the folder",
  request: {
    params: IdParam,
    body: jsonBody(
      z.object({ id: z.string().min(1).max(100).openapi({ description: "File id" }) }),
    ),
  },
  responses: {
    200: json(FolderSchema, "The folder"),
    400: errorDoc("`File already in folder`"),
    404: errorDoc("`Not Found` (folder), `File not found`"),
  },
});

/** A change of a folder: name, public, uploads, privacy, parent. */
export const FolderPatchBody = z.object({
  name: FolderName.optional(),
  isPublic: z.boolean().optional(),
  allowUploads: z.boolean().optional().openapi({
    description: "Whether anyone may upload into it without an account",
  }),
  private: z.boolean().optional().openapi({
    description: "`true` hides it and its files from everyone but its owner",
  }),
  parentId: z.string().min(1).max(100).nullable().optional(),
});

const patch = defineRoute({
  method: "patch",
  path: "/user/folders/{id}",
  auth: "user",
  scope: "folders:write",
  tags: ["Folders"],
  summary: "Rename a folder, open or close it, or move it (`parentId: null`: to the root)",
  request: {
    params: IdParam,
    body: jsonBody(FolderPatchBody),
  },
  responses: {
    200: json(FolderSchema, "The changed folder"),
    400: errorDoc(
      "`A folder cannot be its own parent`, `Cannot move folder into one of its descendants`, " +
        "`A folder with this name already exists`",
    ),
    403: errorDoc("`Parent folder does not belong to you`"),
    404: errorDoc("`Not Found` (folder), `Parent folder not found`"),
  },
});

/** Deleting a folder, or taking a file out of it. */
export const FolderDeleteBody = z.object({
  delete: z.enum(["folder", "file"]),
  id: z.string().min(1).max(100).optional().openapi({ description: "The file, for `file`" }),
  childrenAction: z.enum(["root", "folder", "cascade", "cascade-files"]).optional(),
  targetFolderId: z.string().min(1).max(100).optional(),
});

const remove = defineRoute({
  method: "delete",
  path: "/user/folders/{id}",
  auth: "user",
  scope: "folders:write",
  tags: ["Folders"],
  summary: "Delete a folder (`delete: folder`) or take a file out of it (`delete: file`)",
  description: "Deleting a folder deletes no file unless `childrenAction` is `cascade-files`: " +
    "`root` (the default) moves its subfolders and files to the root, `folder` into " +
    "`targetFolderId`; `cascade` deletes the subfolders too and moves all their files to the root. " +
    "With an API key, `cascade-files` needs the scope `files:delete` too.",
  request: {
    params: IdParam,
    body: jsonBody(FolderDeleteBody),
  },
  responses: {
    200: json(
      z.union([z.object({ success: z.literal(true) }), z.object({ folder: FolderSchema })]),
      "`{success: true}` for a folder, `{folder}` for a file",
    ),
    400: errorDoc(
      "`File ID is required`, `File not in folder`, `targetFolderId is required`, " +
        "`Cannot move folder into one of its descendants`",
    ),
    404: errorDoc("`Not Found` (folder), `File not found`, `Target folder not found`"),
  },
});

const exportRoute = defineRoute({
  method: "get",
  path: "/user/folders/{id}/export",
  auth: "user",
  scope: "files:read",
  tags: ["Folders"],
  summary: "Download a folder as a zip",
  description: "The folder's files at the archive's root, each subfolder a directory (stored, " +
    "not compressed), streamed as it is read. For the folder's owner only, administrators " +
    "included. An empty folder is an empty archive.",
  request: { params: IdParam },
  responses: {
    200: {
      description: "The archive, `<folder name>.zip`",
      content: { "application/zip": { schema: z.string().openapi({ format: "binary" }) } },
    },
    403: errorDoc("`You do not own this folder`"),
    404: errorDoc("`Not Found`: no such folder"),
  },
});

const PublicFolderSchema = z.object({
  id: z.string(),
  name: z.string(),
  public: z.boolean(),
  allowUploads: z.boolean(),
  children: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
  parent: ParentSchema.nullable().optional(),
}).openapi("PublicFolder");

/** A public folder's page of files. */
export const PublicFolderPageSchema = z.object({
  folder: PublicFolderSchema,
  page: z.array(FileSchema),
  total: z.number().int(),
  pages: z.number().int(),
});

const publicView = defineRoute({
  method: "get",
  path: "/server/folder/{id}",
  auth: "none",
  tags: ["Folders"],
  summary: "A public folder's files, or an upload-only folder's name",
  request: {
    params: z.object({
      id: z.string().min(1).max(255).openapi({
        param: { name: "id", in: "path" },
        description: "The folder's id, or its name when it is public",
      }),
    }),
    query: z.object({
      page: z.coerce.number().int().min(1).default(1),
      perpage: z.coerce.number().int().min(1).max(1000).default(15),
      sortBy: z.enum(["createdAt", "name", "size", "views"]).default("createdAt"),
      order: z.enum(["asc", "desc"]).default("desc"),
    }),
  },
  responses: {
    200: json(
      PublicFolderPageSchema,
      "The folder and a page of its files (none for a folder that is not public)",
    ),
    404: errorDoc(
      "`Not Found`: no such folder, neither public nor open for uploads, or named (not by " +
        "id) and not public",
    ),
  },
});

/** The folder routes. */
export const folderRoutes = newRouter()
  .openapi(list, async (c) => {
    const q = c.req.valid("query");
    const folders = await listFolders(c.var.services, me(c), {
      userId: q.user,
      parentId: q.parentId,
      root: q.root === "true",
      withFiles: q.noincl !== "true",
    });
    return c.json(folders, 200);
  })
  .openapi(create, async (c) => {
    return c.json(await createFolder(c.var.services, me(c), c.req.valid("json")), 200);
  })
  .openapi(get, async (c) => {
    const { id } = c.req.valid("param");
    const withFiles = c.req.valid("query").noincl !== "true";
    return c.json(await getFolder(c.var.services, me(c), id, withFiles), 200);
  })
  .openapi(put, async (c) => {
    const { id } = c.req.valid("param");
    const fileId = c.req.valid("json").id;
    return c.json(await changeFolderFile(c.var.services, me(c), id, fileId, "add"), 200);
  })
  .openapi(patch, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await updateFolder(c.var.services, me(c), id, c.req.valid("json")), 200);
  })
  .openapi(remove, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const s = c.var.services;
    if (body.delete === "file") {
      if (!body.id) throw new ApiError(400, "File ID is required");
      return c.json({ folder: await changeFolderFile(s, me(c), id, body.id, "remove") }, 200);
    }
    if (body.childrenAction === "cascade-files") requireKeyScope(c.var.apiKey, "files:delete");
    await deleteFolder(s, me(c), id, body.childrenAction, body.targetFolderId);
    return c.json({ success: true as const }, 200);
  })
  .openapi(exportRoute, async (c) => {
    const archive = await folderArchive(c.var.services, me(c), c.req.valid("param").id);
    return c.body(archive.stream, 200, {
      "content-type": "application/zip",
      "content-disposition": contentDisposition("attachment", `${archive.name}.zip`),
      "cache-control": "no-store",
    });
  })
  .openapi(publicView, async (c) => {
    const page = await publicFolder(c.var.services, c.req.valid("param").id, c.req.valid("query"));
    return c.json(page, 200);
  });
