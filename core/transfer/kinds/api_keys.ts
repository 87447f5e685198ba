/**
 * Scoped API keys (`data.ferryApiKeys`): Ferry's own kind, absent from
 * Zipline's documents (an import without it reads as none). Keys travel as
 * their hashes, never as keys, so an export opens no account; an imported key
 * works on the new instance as it did. Skipped when the owner was not
 * imported or a key with the same hash exists; scopes this version does not
 * know are dropped, and a key left without any is skipped.
 */
import { z } from "zod";
import { API_KEY_SCOPES } from "../../api_keys.ts";
import { IsoDate, type V4Kind } from "../context.ts";

const ApiKeyV4 = z.object({
  id: z.string(),
  createdAt: IsoDate,
  name: z.string().min(1).max(100),
  scopes: z.array(z.string()),
  /** SHA-256 of the key, base64url (`core/api_keys.ts` `hashApiKey`). */
  hash: z.string().regex(/^[A-Za-z0-9_-]{43}$/, "must be a base64url SHA-256"),
  expiresAt: IsoDate.nullable(),
  lastUsedAt: IsoDate.nullable(),
  userId: z.string(),
});
type ApiKeyV4 = z.infer<typeof ApiKeyV4>;

/** `data.ferryApiKeys`. */
export const apiKeysV4: V4Kind<ApiKeyV4> = {
  key: "ferryApiKeys",
  counted: "apiKeys",
  optional: true,
  schema: ApiKeyV4,
  async importRecord(ctx, k) {
    const userId = ctx.ids.users.get(k.userId);
    if (!userId) return ctx.report.skip("apiKeys", k.id, "owner not imported");
    const scopes = k.scopes.filter((scope) => scope in API_KEY_SCOPES);
    if (scopes.length === 0) return ctx.report.skip("apiKeys", k.id, "no scope Ferry knows");
    if (await ctx.store.apiKeys.findByHash(k.hash)) {
      return ctx.report.skip("apiKeys", k.id, "the key exists");
    }
    await ctx.store.apiKeys.create({
      id: ctx.newId(),
      userId,
      name: k.name,
      scopes,
      hash: k.hash,
      createdAt: new Date(k.createdAt),
      expiresAt: k.expiresAt === null ? null : new Date(k.expiresAt),
      lastUsedAt: k.lastUsedAt === null ? null : new Date(k.lastUsedAt),
    });
    ctx.report.add("apiKeys");
  },
  async *exportRecords(x) {
    for (const user of x.users) {
      for (const k of await x.s.store.apiKeys.listByUser(user.id)) {
        yield {
          id: k.id,
          createdAt: k.createdAt.toISOString(),
          name: k.name,
          scopes: k.scopes,
          hash: k.hash,
          expiresAt: k.expiresAt?.toISOString() ?? null,
          lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
          userId: k.userId,
        };
      }
    }
  },
};
