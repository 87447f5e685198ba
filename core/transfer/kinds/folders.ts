/**
 * Folders (`data.folders`; v3 `folders`). v4: skipped when the owner was not
 * imported or already has a folder of that name; the tree is rebuilt in a
 * second pass, so the order of the array does not matter, and a folder whose
 * parent was skipped stays at the root. v3 folders are flat: one is skipped
 * whole when any of its files was not imported. An export lists each folder's
 * file ids (informational: imports go by `files[].folderId`), one folder's
 * ids in memory at a time.
 */
import { z } from "zod";
import type { FolderRecord } from "../../../db/folders.ts";
import {
  dateOf,
  type ExportContext,
  type ImportContext,
  IsoDate,
  type V4Kind,
} from "../context.ts";

const FolderV4 = z.object({
  id: z.string(),
  createdAt: IsoDate,
  name: z.string(),
  public: z.boolean(),
  allowUploads: z.boolean(),
  files: z.array(z.string()),
  userId: z.string(),
  parentId: z.string().nullish(),
});
type FolderV4 = z.infer<typeof FolderV4>;

/** A v3 folder (`folders[<id>]`). */
export const FolderV3 = z.object({
  name: z.string(),
  public: z.boolean(),
  created_at: z.string(),
  user: z.string().nullish(),
  files: z.array(z.string()),
});
type FolderV3 = z.infer<typeof FolderV3>;

/** New folder id → exported parent id, for the second pass. */
const parents = new WeakMap<ImportContext, [string, string][]>();

/** Creates the folder unless its owner has one of that name; returns its id or `null` (skipped). */
async function importFolder(
  ctx: ImportContext,
  oldId: string,
  owner: string | null | undefined,
  folder: Pick<FolderRecord, "name" | "public" | "allowUploads" | "createdAt">,
): Promise<string | null> {
  const userId = owner ? ctx.ids.users.get(owner) : undefined;
  if (!userId) {
    ctx.report.skip("folders", oldId, owner ? "owner not imported" : "no owner");
    return null;
  }
  const mine = await ctx.store.folders.listByUser(userId);
  if (mine.some((f) => f.name === folder.name)) {
    ctx.report.skip("folders", oldId, "the user has a folder of that name");
    return null;
  }
  const id = ctx.newId();
  await ctx.store.folders.create({ ...folder, id, parentId: null, userId, updatedAt: ctx.now });
  ctx.ids.folders.set(oldId, id);
  ctx.report.add("folders");
  return id;
}

/** The ids of the (complete) files in `folder`, oldest first, read a page at a time. */
async function fileIds(x: ExportContext, folder: FolderRecord): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0;; offset += PAGE) {
    const { files } = await x.s.store.files.list({
      userId: folder.userId,
      folderId: folder.id,
      offset,
      limit: PAGE,
      sortBy: "createdAt",
      order: "asc",
    });
    ids.push(...files.map((f) => f.id));
    if (files.length < PAGE) return ids;
  }
}

const PAGE = 1000;

/** v4 `data.folders`. */
export const foldersV4: V4Kind<FolderV4> = {
  key: "folders",
  counted: "folders",
  schema: FolderV4,
  async importRecord(ctx, f) {
    const id = await importFolder(ctx, f.id, f.userId, {
      name: f.name,
      public: f.public,
      allowUploads: f.allowUploads,
      createdAt: new Date(f.createdAt),
    });
    if (id && f.parentId) {
      const pending = parents.get(ctx) ?? [];
      parents.set(ctx, pending);
      pending.push([id, f.parentId]);
    }
  },
  async finish(ctx) {
    for (const [id, oldParent] of parents.get(ctx) ?? []) {
      const parentId = ctx.ids.folders.get(oldParent);
      if (parentId) await ctx.store.folders.update(id, { parentId }, ctx.now);
      else ctx.s.logger.warn("import: parent folder not imported", { id, parent: oldParent });
    }
    parents.delete(ctx);
  },
  async *exportRecords(x) {
    for await (const f of x.s.store.folders.iterate()) {
      yield {
        id: f.id,
        createdAt: f.createdAt.toISOString(),
        name: f.name,
        public: f.public,
        allowUploads: f.allowUploads,
        files: await fileIds(x, f),
        userId: f.userId,
        parentId: f.parentId,
      };
    }
  },
};

/** Imports one v3 folder (`[id, record]`) and moves its files into it. */
export async function importFolderV3(ctx: ImportContext, [oldId, f]: [string, FolderV3]) {
  const files = f.files.map((id) => ctx.ids.files.get(id));
  if (files.some((id) => id === undefined)) {
    return ctx.report.skip("folders", oldId, "some of its files were not imported");
  }
  const id = await importFolder(ctx, oldId, f.user, {
    name: f.name,
    public: f.public,
    allowUploads: false,
    createdAt: dateOf(f.created_at, ctx.now),
  });
  if (!id) return;
  for (const fileId of files) await ctx.store.files.update(fileId!, { folderId: id }, ctx.now);
}
