/** OAuth links (`data.userOauthProviders`; v3 `users[].oauth`): skipped when the account is linked already. */
import { z } from "zod";
import { OAUTH_PROVIDERS, type OauthLinkRecord } from "../../../db/oauth.ts";
import { openProviderToken, sealProviderToken } from "../../oauth/accounts.ts";
import { type ImportContext, IsoDate, type V4Kind } from "../context.ts";

const OauthV4 = z.object({
  id: z.string(),
  createdAt: IsoDate,
  provider: z.enum(OAUTH_PROVIDERS),
  username: z.string(),
  accessToken: z.string(),
  refreshToken: z.string().nullable(),
  oauthId: z.string().nullable(),
  userId: z.string(),
});
type OauthV4 = z.infer<typeof OauthV4>;

/**
 * Links the account to the (imported) user `userId` unless it is linked
 * already; the tokens are stored sealed, as a flow stores them.
 */
export async function importOauthLink(
  ctx: ImportContext,
  oldId: string,
  userId: string,
  link: Omit<OauthLinkRecord, "id" | "userId">,
): Promise<void> {
  if (await ctx.store.oauth.find(link.provider, link.oauthId)) {
    ctx.report.skip("oauthProviders", oldId, "provider account already linked");
    return;
  }
  await ctx.store.oauth.create({
    ...link,
    id: ctx.newId(),
    userId,
    accessToken: sealProviderToken(ctx.s, link.accessToken),
    refreshToken: link.refreshToken && sealProviderToken(ctx.s, link.refreshToken),
  });
  ctx.report.add("oauthProviders");
}

/** v4 `data.userOauthProviders`. */
export const oauthV4: V4Kind<OauthV4> = {
  key: "userOauthProviders",
  counted: "oauthProviders",
  schema: OauthV4,
  async importRecord(ctx, o) {
    const userId = ctx.ids.users.get(o.userId);
    if (!userId) return ctx.report.skip("oauthProviders", o.id, "owner not imported");
    await importOauthLink(ctx, o.id, userId, { ...o, createdAt: new Date(o.createdAt) });
  },
  async *exportRecords(x) {
    for (const user of x.users) {
      for (const l of await x.s.store.oauth.listByUser(user.id)) {
        yield {
          id: l.id,
          createdAt: l.createdAt.toISOString(),
          provider: l.provider,
          username: l.username,
          accessToken: openProviderToken(x.s, l.accessToken),
          refreshToken: l.refreshToken && openProviderToken(x.s, l.refreshToken),
          oauthId: l.oauthId,
          userId: l.userId,
        };
      }
    }
  },
};
