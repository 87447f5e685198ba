/**
 * Share links and private files and folders (`data.ferryShares`,
 * `data.ferryPrivate`): Ferry's own kinds, absent from Zipline's documents
 * (an import without them reads as none). A link travels with its code and
 * its password's hash (the instance export carries file passwords' hashes
 * too), so it keeps working on the new instance; skipped when its owner or
 * target was not imported, or its code is taken. `ferryPrivate` names the
 * private files and folders, marked private again once imported.
 */
import { z } from "zod";
import { UniqueError } from "../../../db/errors.ts";
import { IsoDate, type V4Kind } from "../context.ts";

const ShareV4 = z.object({
  id: z.string(),
  code: z.string().min(1).max(100),
  userId: z.string(),
  fileId: z.string().nullable(),
  folderId: z.string().nullable(),
  password: z.string().nullable(),
  expiresAt: IsoDate.nullable(),
  maxViews: z.number().int().min(1).nullable(),
  views: z.number().int().min(0),
  createdAt: IsoDate,
});
type ShareV4 = z.infer<typeof ShareV4>;

/** `data.ferryShares`. */
export const sharesV4: V4Kind<ShareV4> = {
  key: "ferryShares",
  counted: "shares",
  optional: true,
  schema: ShareV4,
  async importRecord(ctx, share) {
    const userId = ctx.ids.users.get(share.userId);
    if (!userId) return ctx.report.skip("shares", share.id, "owner not imported");
    const fileId = share.fileId === null ? null : ctx.ids.files.get(share.fileId) ?? null;
    const folderId = share.folderId === null ? null : ctx.ids.folders.get(share.folderId) ?? null;
    if ((fileId === null) === (folderId === null)) {
      return ctx.report.skip("shares", share.id, "target not imported");
    }
    try {
      await ctx.store.shares.create({
        id: ctx.newId(),
        code: share.code,
        userId,
        fileId,
        folderId,
        password: share.password,
        expiresAt: share.expiresAt === null ? null : new Date(share.expiresAt),
        maxViews: share.maxViews,
        views: share.views,
        createdAt: new Date(share.createdAt),
      });
    } catch (error) {
      if (error instanceof UniqueError) return ctx.report.skip("shares", share.id, "code taken");
      throw error;
    }
    ctx.report.add("shares");
  },
  async *exportRecords(x) {
    for (const user of x.users) {
      for (const s of await x.s.store.shares.listByUser(user.id)) {
        yield {
          id: s.id,
          code: s.code,
          userId: s.userId,
          fileId: s.fileId,
          folderId: s.folderId,
          password: s.password,
          expiresAt: s.expiresAt?.toISOString() ?? null,
          maxViews: s.maxViews,
          views: s.views,
          createdAt: s.createdAt.toISOString(),
        };
      }
    }
  },
};

const PrivateV4 = z.object({ kind: z.enum(["file", "folder"]), id: z.string() });
type PrivateV4 = z.infer<typeof PrivateV4>;

/** `data.ferryPrivate`: the private files and folders. */
export const privateV4: V4Kind<PrivateV4> = {
  key: "ferryPrivate",
  counted: "private",
  optional: true,
  schema: PrivateV4,
  async importRecord(ctx, item) {
    const id = (item.kind === "file" ? ctx.ids.files : ctx.ids.folders).get(item.id);
    if (!id) return ctx.report.skip("private", item.id, `${item.kind} not imported`);
    const updated = item.kind === "file"
      ? await ctx.store.files.update(id, { private: true }, ctx.now)
      : await ctx.store.folders.update(id, { private: true }, ctx.now);
    if (!updated) return ctx.report.skip("private", item.id, `${item.kind} not imported`);
    ctx.report.add("private");
  },
  async *exportRecords(x) {
    for (const user of x.users) {
      for (const f of await x.s.store.folders.listByUser(user.id)) {
        if (f.private) yield { kind: "folder", id: f.id };
      }
    }
    for await (const f of x.s.store.files.iterate()) {
      if (f.private) yield { kind: "file", id: f.id };
    }
  },
};
