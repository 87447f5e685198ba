/**
 * Users in both formats. A new user keeps its password hash and gets a new id
 * and a new API token; the user named for merging is folded into the caller
 * instead (avatar, TOTP secret and, from v4, view; never username, password
 * or role). TOTP secrets travel in clear in exports and are kept encrypted.
 */
import { z } from "zod";
import { ROLES, type UserRecord } from "../../../db/users.ts";
import { decrypt, encrypt, newStoredToken } from "../../tokens.ts";
import { type ImportContext, IsoDate, type V4Kind } from "../context.ts";
import { importOauthLink } from "./oauth.ts";

const UserV4 = z.object({
  id: z.string(),
  createdAt: IsoDate,
  username: z.string(),
  password: z.string().nullable(),
  avatar: z.string().nullable(),
  role: z.enum(ROLES),
  view: z.record(z.string(), z.unknown()),
  totpSecret: z.string().nullable(),
});
type UserV4 = z.infer<typeof UserV4>;

const nullish = z.string().nullish();

/** A v3 user (`users[<id>]`). */
export const UserV3 = z.object({
  username: z.string(),
  password: nullish,
  avatar: nullish,
  administrator: z.boolean(),
  super_administrator: z.boolean(),
  embed: z.object({ title: nullish, site_name: nullish, description: nullish, color: nullish }),
  totp_secret: nullish,
  oauth: z.array(z.object({
    provider: z.enum(["DISCORD", "GITHUB", "GOOGLE"]),
    username: z.string(),
    oauth_id: z.string().nullable(),
    access_token: z.string().nullable(),
    refresh_token: z.string().nullable(),
  })),
});
type UserV3 = z.infer<typeof UserV3>;

/** What an imported user brings, in either format. */
interface IncomingUser {
  username: string;
  password: string | null;
  avatar: string | null;
  role: UserRecord["role"];
  view: Record<string, unknown>;
  totpSecret: string | null;
  createdAt: Date;
}

function sealed(ctx: ImportContext, secret: string | null): string | null {
  return secret ? encrypt(secret, ctx.s.secret, ctx.s.random) : null;
}

/**
 * Merges into the caller or creates the user; maps `oldId` to the user it
 * became, or skips it when `taken` says its name (or id) is in use.
 * Returns the new id, or `null` when skipped.
 */
async function importUser(
  ctx: ImportContext,
  oldId: string,
  user: IncomingUser,
  merge: Partial<Pick<UserRecord, "avatar" | "totpSecret" | "view">> | null,
  takenReason: () => Promise<string | null>,
): Promise<string | null> {
  if (merge && ctx.caller && ctx.mergeFrom === oldId) {
    const updated = await ctx.store.users.update(ctx.caller.id, merge, ctx.now);
    if (updated) ctx.caller = updated;
    ctx.ids.users.set(oldId, ctx.caller.id);
    ctx.report.add("users");
    return ctx.caller.id;
  }
  const taken = await takenReason();
  if (taken) {
    ctx.report.skip("users", oldId, taken);
    return null;
  }
  const id = ctx.newId();
  await ctx.store.users.create({
    id,
    username: user.username,
    password: user.password || null,
    role: user.role,
    avatar: user.avatar,
    token: newStoredToken(ctx.now.getTime(), ctx.s.random, id),
    totpSecret: sealed(ctx, user.totpSecret),
    view: user.view,
    quota: null,
    createdAt: user.createdAt,
    updatedAt: ctx.now,
  });
  ctx.ids.users.set(oldId, id);
  ctx.report.add("users");
  return id;
}

/** v4 `data.users`. */
export const usersV4: V4Kind<UserV4> = {
  key: "users",
  counted: "users",
  schema: UserV4,
  async importRecord(ctx, u) {
    const totpSecret = sealed(ctx, u.totpSecret);
    await importUser(
      ctx,
      u.id,
      { ...u, createdAt: new Date(u.createdAt) },
      { avatar: u.avatar, totpSecret, view: u.view },
      async () =>
        await ctx.store.users.getByUsername(u.username)
          ? "username exists"
          : await ctx.store.users.get(u.id)
          ? "user id exists"
          : null,
    );
  },
  async *exportRecords(x) {
    for (const u of x.users) {
      yield {
        id: u.id,
        createdAt: u.createdAt.toISOString(),
        username: u.username,
        password: u.password,
        avatar: u.avatar,
        role: u.role,
        view: u.view,
        totpSecret: u.totpSecret && decrypt(u.totpSecret, x.s.secret),
      };
    }
  },
};

/** Imports one v3 user (`[id, record]`) with its OAuth links. */
export async function importUserV3(ctx: ImportContext, [oldId, u]: [string, UserV3]) {
  const merge = { avatar: u.avatar ?? null, totpSecret: sealed(ctx, u.totp_secret ?? null) };
  const id = await importUser(
    ctx,
    oldId,
    {
      username: u.username,
      password: u.password ?? null,
      avatar: u.avatar ?? null,
      role: u.super_administrator ? "SUPERADMIN" : u.administrator ? "ADMIN" : "USER",
      view: {},
      totpSecret: u.totp_secret ?? null,
      createdAt: ctx.now,
    },
    merge,
    async () => await ctx.store.users.getByUsername(u.username) ? "username exists" : null,
  );
  if (id === null) return;
  for (const [i, link] of u.oauth.entries()) {
    if (link.access_token === null) {
      ctx.report.skip("oauthProviders", `${oldId}/oauth/${i}`, "no access token");
      continue;
    }
    await importOauthLink(ctx, `${oldId}/oauth/${i}`, id, {
      provider: link.provider,
      username: link.username,
      accessToken: link.access_token,
      refreshToken: link.refresh_token,
      oauthId: link.oauth_id,
      createdAt: ctx.now,
    });
  }
}
