/** Invites (`data.invites`): skipped when the inviter was not imported or the code is taken. */
import { z } from "zod";
import { IsoDate, type V4Kind } from "../context.ts";

const InviteV4 = z.object({
  id: z.string(),
  createdAt: IsoDate,
  expiresAt: IsoDate.nullable(),
  code: z.string(),
  uses: z.number().int(),
  maxUses: z.number().int().nullable(),
  inviterId: z.string(),
});
type InviteV4 = z.infer<typeof InviteV4>;

/** A v3 invite; never imported (as in Zipline). */
export const InviteV3 = z.object({
  code: z.string(),
  expires_at: z.string().nullish(),
  created_at: z.string(),
  used: z.boolean(),
  created_by_user: z.string().nullish(),
});

/** v4 `data.invites`. */
export const invitesV4: V4Kind<InviteV4> = {
  key: "invites",
  counted: "invites",
  schema: InviteV4,
  async importRecord(ctx, i) {
    const inviterId = ctx.ids.users.get(i.inviterId);
    if (!inviterId) return ctx.report.skip("invites", i.id, "inviter not imported");
    if (await ctx.store.invites.getByCode(i.code)) {
      return ctx.report.skip("invites", i.id, "an invite with that code exists");
    }
    await ctx.store.invites.create({
      id: ctx.newId(),
      code: i.code,
      expiresAt: i.expiresAt === null ? null : new Date(i.expiresAt),
      uses: i.uses,
      maxUses: i.maxUses,
      inviterId,
      createdAt: new Date(i.createdAt),
      updatedAt: ctx.now,
    });
    ctx.report.add("invites");
  },
  async *exportRecords(x) {
    for (const i of await x.s.store.invites.list()) {
      yield {
        id: i.id,
        createdAt: i.createdAt.toISOString(),
        expiresAt: i.expiresAt?.toISOString() ?? null,
        code: i.code,
        uses: i.uses,
        maxUses: i.maxUses,
        inviterId: i.inviterId,
      };
    }
  },
};
