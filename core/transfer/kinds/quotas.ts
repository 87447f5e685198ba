/**
 * Quotas (`data.userQuotas`). Zipline has no `NONE` mode: Ferry writes it as
 * `BY_BYTES` without `maxBytes` (no file limit either way) and reads that back
 * as `NONE`.
 */
import { z } from "zod";
import { IsoDate, type V4Kind } from "../context.ts";

const QuotaV4 = z.object({
  id: z.string(),
  createdAt: IsoDate,
  filesQuota: z.enum(["BY_BYTES", "BY_FILES"]),
  maxBytes: z.string().nullable(),
  maxFiles: z.number().int().nullable(),
  maxUrls: z.number().int().nullable(),
  userId: z.string().nullable(),
});
type QuotaV4 = z.infer<typeof QuotaV4>;

/** v4 `data.userQuotas`; kept on the user record. */
export const quotasV4: V4Kind<QuotaV4> = {
  key: "userQuotas",
  counted: "quotas",
  schema: QuotaV4,
  async importRecord(ctx, q) {
    const userId = q.userId && ctx.ids.users.get(q.userId);
    if (!userId) return ctx.report.skip("quotas", q.id, "owner not imported");
    const user = await ctx.store.users.get(userId);
    if (!user || user.quota) return ctx.report.skip("quotas", q.id, "user already has a quota");
    const none = q.filesQuota === "BY_BYTES" && q.maxBytes === null && q.maxFiles === null;
    const quota = {
      id: ctx.newId(),
      filesQuota: none ? "NONE" as const : q.filesQuota,
      maxBytes: q.maxBytes,
      maxFiles: q.maxFiles,
      maxUrls: q.maxUrls,
    };
    await ctx.store.users.update(userId, { quota }, ctx.now);
    if (ctx.caller?.id === userId) ctx.caller = { ...ctx.caller, quota };
    ctx.report.add("quotas");
  },
  async *exportRecords(x) {
    for (const u of x.users) {
      if (!u.quota) continue;
      yield {
        id: u.quota.id,
        createdAt: u.createdAt.toISOString(),
        filesQuota: u.quota.filesQuota === "NONE" ? "BY_BYTES" : u.quota.filesQuota,
        maxBytes: u.quota.maxBytes,
        maxFiles: u.quota.maxFiles,
        maxUrls: u.quota.maxUrls,
        userId: u.id,
      };
    }
  },
};
