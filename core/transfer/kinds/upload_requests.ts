/**
 * Upload requests (`data.ferryUploadRequests`): Ferry's own kind, absent from
 * Zipline's documents (an import without it reads as none). A request keeps
 * its code, so its link works on the new instance as it did, with its
 * limits, counts and password hash (the instance export is a SUPERADMIN's,
 * and carries file passwords' hashes too). Skipped when the owner was not
 * imported or a request with the same code exists; a folder that was not
 * imported leaves its files landing at the owner's root.
 */
import { z } from "zod";
import { IsoDate, type V4Kind } from "../context.ts";

const Count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const UploadRequestV4 = z.object({
  id: z.string(),
  createdAt: IsoDate,
  updatedAt: IsoDate,
  code: z.string().regex(/^[A-Za-z0-9]{16,100}$/, "must be a request's code"),
  userId: z.string(),
  name: z.string().min(1).max(100),
  message: z.string().max(2000).nullable(),
  folderId: z.string().nullable(),
  maxFiles: Count.nullable(),
  maxBytes: Count.nullable(),
  maxFileSize: Count.nullable(),
  expiresAt: IsoDate.nullable(),
  /** The argon2 hash of its password. */
  password: z.string().max(1000).nullable(),
  allowedTypes: z.array(z.string().max(300)).max(50),
  files: Count,
  bytes: Count,
});
type UploadRequestV4 = z.infer<typeof UploadRequestV4>;

/** `data.ferryUploadRequests`. */
export const uploadRequestsV4: V4Kind<UploadRequestV4> = {
  key: "ferryUploadRequests",
  counted: "uploadRequests",
  optional: true,
  schema: UploadRequestV4,
  async importRecord(ctx, r) {
    const userId = ctx.ids.users.get(r.userId);
    if (!userId) return ctx.report.skip("uploadRequests", r.id, "owner not imported");
    if (await ctx.store.uploadRequests.getByCode(r.code)) {
      return ctx.report.skip("uploadRequests", r.id, "a request with this code exists");
    }
    await ctx.store.uploadRequests.create({
      ...r,
      id: ctx.newId(),
      userId,
      folderId: r.folderId === null ? null : ctx.ids.folders.get(r.folderId) ?? null,
      expiresAt: r.expiresAt === null ? null : new Date(r.expiresAt),
      createdAt: new Date(r.createdAt),
      updatedAt: new Date(r.updatedAt),
    });
    ctx.report.add("uploadRequests");
  },
  async *exportRecords(x) {
    for (const user of x.users) {
      for (const r of await x.s.store.uploadRequests.listByUser(user.id)) {
        yield {
          ...r,
          expiresAt: r.expiresAt?.toISOString() ?? null,
          createdAt: r.createdAt.toISOString(),
          updatedAt: r.updatedAt.toISOString(),
        };
      }
    }
  },
};
