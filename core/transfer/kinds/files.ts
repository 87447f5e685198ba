/**
 * File records (`data.files`; v3 `files`). The bytes are not in the export:
 * they must already be in the datasource under the same name. A name that is
 * not a plain file name is replaced by a random one; a name in use (by any
 * user), or one Ferry keeps for itself (a thumbnail's), skips the file. The
 * type is normalised (`application/octet-stream` when it does not parse). Files are written 1000 at a time (`../batch.ts`).
 */
import { z } from "zod";
import type { FileRecord } from "../../../db/files.ts";
import { randomString } from "../../clock.ts";
import { fileFields } from "../../files/manage.ts";
import { storedType } from "../../files/media_type.ts";
import { reservedName, sanitizeFilename } from "../../files/naming.ts";
import { Batches, claimNames } from "../batch.ts";
import { dateOf, type ImportContext, IsoDate, type V4Kind } from "../context.ts";

const FileV4 = z.object({
  id: z.string(),
  createdAt: IsoDate,
  deletesAt: IsoDate.nullable(),
  name: z.string(),
  originalName: z.string().nullable(),
  size: z.number(),
  type: z.string(),
  views: z.number().int(),
  maxViews: z.number().int().nullable(),
  favorite: z.boolean(),
  password: z.string().nullable(),
  userId: z.string().nullable(),
  folderId: z.string().nullable(),
  /** Ferry's own: the name its uploader gave through an upload request. */
  uploaderName: z.string().max(100).nullish(),
});
type FileV4 = z.infer<typeof FileV4>;

/** A v3 file (`files[<id>]`). */
export const FileV3 = z.object({
  name: z.string(),
  original_name: z.string().nullish(),
  type: z.string(),
  size: z.union([z.number(), z.bigint()]),
  user: z.string().nullish(),
  thumbnail: z.string().nullish(),
  max_views: z.number().nullish(),
  views: z.number(),
  expires_at: z.string().nullish(),
  created_at: z.string(),
  favorite: z.boolean(),
  password: z.string().nullish(),
});
type FileV3 = z.infer<typeof FileV3>;

/** The fields of a file record an import takes from the export. */
type IncomingFile = Pick<
  FileRecord,
  | "name"
  | "originalName"
  | "size"
  | "type"
  | "views"
  | "maxViews"
  | "favorite"
  | "password"
  | "folderId"
  | "deletesAt"
  | "createdAt"
  | "uploaderName"
>;

/** A file waiting in its batch, with the exported id it maps from. */
interface PendingFile {
  oldId: string;
  file: FileRecord;
}

/** Writes a batch of files: those whose name is taken (or repeated) are skipped. */
const batches = new Batches<PendingFile>(1000, async (ctx, batch) => {
  const taken = await ctx.store.files.takenNames(batch.map((p) => p.file.name));
  const clashes = claimNames(batch, (p) => [p.file.name], taken);
  const accepted = batch.filter((p, i) => {
    if (clashes[i] !== null) ctx.report.skip("files", p.oldId, "a file of that name exists");
    return clashes[i] === null;
  });
  await ctx.store.files.createMany(accepted.map((p) => p.file));
  for (const { oldId, file } of accepted) {
    ctx.ids.files.set(oldId, file.id);
    ctx.report.add("files");
  }
});

/** Writes the files still waiting in the import's batch; call after the last file. */
export const finishFiles = (ctx: ImportContext) => batches.flush(ctx);

/** Queues one file of `owner` (an exported user id or null) for its batch. */
async function importFile(
  ctx: ImportContext,
  oldId: string,
  owner: string | null | undefined,
  file: IncomingFile,
): Promise<void> {
  const userId = owner ? ctx.ids.users.get(owner) : undefined;
  if (!userId) {
    return ctx.report.skip("files", oldId, owner ? "owner not imported" : "no owner");
  }
  if (reservedName(file.name)) {
    return ctx.report.skip("files", oldId, "the name is reserved by Ferry");
  }
  const name = sanitizeFilename(file.name) === file.name
    ? file.name
    : randomString(ctx.s.random, 12);
  await batches.add(ctx, {
    oldId,
    file: {
      ...file,
      type: storedType(file.type),
      id: ctx.newId(),
      name,
      anonymous: false,
      userId,
      pending: false,
      updatedAt: ctx.now,
    },
  });
}

/** v4 `data.files`. */
export const filesV4: V4Kind<FileV4> = {
  key: "files",
  counted: "files",
  schema: FileV4,
  async importRecord(ctx, f) {
    const { uploaderName, ...rest } = f;
    await importFile(ctx, f.id, f.userId, {
      ...rest,
      ...(uploaderName ? { uploaderName } : {}),
      folderId: f.folderId === null ? null : ctx.ids.folders.get(f.folderId) ?? null,
      deletesAt: f.deletesAt === null ? null : new Date(f.deletesAt),
      createdAt: new Date(f.createdAt),
    });
  },
  finish: finishFiles,
  async *exportRecords(x) {
    for await (const f of x.s.store.files.iterate()) {
      if (f.pending) continue;
      yield {
        ...fileFields(f),
        password: f.password,
        userId: f.userId,
        ...(f.uploaderName ? { uploaderName: f.uploaderName } : {}),
      };
    }
  },
};

/** Imports one v3 file (`[id, record]`). */
export async function importFileV3(ctx: ImportContext, [oldId, f]: [string, FileV3]) {
  await importFile(ctx, oldId, f.user, {
    name: f.name,
    originalName: f.original_name || null,
    size: Number(f.size),
    type: f.type,
    views: f.views || 0,
    maxViews: f.max_views || null,
    favorite: f.favorite,
    password: f.password ?? null,
    folderId: null,
    deletesAt: f.expires_at ? dateOf(f.expires_at, ctx.now) : null,
    createdAt: dateOf(f.created_at, ctx.now),
  });
}
