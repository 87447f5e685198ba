/**
 * Short URLs (`data.urls`; v3 `urls`). Ferry's codes and vanities share one
 * namespace, so a URL is skipped when its code, or its vanity, is taken.
 * URLs are written 1000 at a time (`../batch.ts`).
 */
import { z } from "zod";
import { DEVICE_CLASSES, URL_RULE_DEFAULTS, type UrlRecord } from "../../../db/urls.ts";
import { Batches, claimNames } from "../batch.ts";
import { dateOf, type ImportContext, IsoDate, type V4Kind } from "../context.ts";

const UrlV4 = z.object({
  id: z.string(),
  createdAt: IsoDate,
  code: z.string(),
  vanity: z.string().nullable(),
  destination: z.string(),
  views: z.number().int(),
  maxViews: z.number().int().nullable(),
  password: z.string().nullable(),
  enabled: z.boolean(),
  userId: z.string().nullable(),
  // Ferry's own, absent from Zipline's documents.
  expiresAt: IsoDate.nullish(),
  deviceDestinations: z.partialRecord(z.enum(DEVICE_CLASSES), z.string()).nullish(),
  forwardQuery: z.boolean().optional(),
});
type UrlV4 = z.infer<typeof UrlV4>;

/** A v3 URL (`urls[<id>]`). */
export const UrlV3 = z.object({
  destination: z.string(),
  vanity: z.string().nullish(),
  created_at: z.string(),
  max_views: z.number().nullish(),
  views: z.number(),
  user: z.string().nullish(),
  code: z.string(),
});
type UrlV3 = z.infer<typeof UrlV3>;

type IncomingUrl =
  & Pick<
    UrlRecord,
    "code" | "vanity" | "destination" | "views" | "maxViews" | "password" | "enabled" | "createdAt"
  >
  & Partial<Pick<UrlRecord, "expiresAt" | "deviceDestinations" | "forwardQuery">>;

/** A URL waiting in its batch, with the exported id it maps from. */
interface PendingUrl {
  oldId: string;
  url: UrlRecord;
}

const namesOf = ({ url }: PendingUrl) => url.vanity === null ? [url.code] : [url.code, url.vanity];

/** Writes a batch of URLs: those whose code or vanity is taken (or repeated) are skipped. */
const batches = new Batches<PendingUrl>(1000, async (ctx, batch) => {
  const taken = await ctx.store.urls.takenNames(batch.flatMap(namesOf));
  const clashes = claimNames(batch, namesOf, taken);
  const accepted = batch.filter((p, i) => {
    const clash = clashes[i];
    if (clash !== null) {
      const which = clash === p.url.code ? "code" : "vanity";
      ctx.report.skip("urls", p.oldId, `a URL with that ${which} exists`);
    }
    return clash === null;
  });
  await ctx.store.urls.createMany(accepted.map((p) => p.url));
  for (const { oldId, url } of accepted) {
    ctx.ids.urls.set(oldId, url.id);
    ctx.report.add("urls");
  }
});

/** Writes the URLs still waiting in the import's batch; call after the last URL. */
export const finishUrls = (ctx: ImportContext) => batches.flush(ctx);

/** Queues one URL of `owner` (an exported user id or null) for its batch. */
async function importUrl(
  ctx: ImportContext,
  oldId: string,
  owner: string | null | undefined,
  url: IncomingUrl,
): Promise<void> {
  const userId = owner ? ctx.ids.users.get(owner) : undefined;
  if (!userId) return ctx.report.skip("urls", oldId, owner ? "owner not imported" : "no owner");
  await batches.add(ctx, {
    oldId,
    url: { ...URL_RULE_DEFAULTS, ...url, id: ctx.newId(), userId, updatedAt: ctx.now },
  });
}

/** v4 `data.urls`. */
export const urlsV4: V4Kind<UrlV4> = {
  key: "urls",
  counted: "urls",
  schema: UrlV4,
  async importRecord(ctx, u) {
    await importUrl(ctx, u.id, u.userId, {
      ...u,
      createdAt: new Date(u.createdAt),
      expiresAt: u.expiresAt ? new Date(u.expiresAt) : null,
      deviceDestinations: u.deviceDestinations ?? null,
    });
  },
  finish: finishUrls,
  async *exportRecords(x) {
    for await (const u of x.s.store.urls.iterate()) {
      if (u.userId === null) continue;
      yield {
        id: u.id,
        createdAt: u.createdAt.toISOString(),
        code: u.code,
        vanity: u.vanity,
        destination: u.destination,
        views: u.views,
        maxViews: u.maxViews,
        password: u.password,
        enabled: u.enabled,
        userId: u.userId,
        expiresAt: u.expiresAt?.toISOString() ?? null,
        deviceDestinations: u.deviceDestinations,
        forwardQuery: u.forwardQuery,
      };
    }
  },
};

/** Imports one v3 URL (`[id, record]`): no password, enabled. */
export async function importUrlV3(ctx: ImportContext, [oldId, u]: [string, UrlV3]) {
  await importUrl(ctx, oldId, u.user, {
    code: u.code,
    vanity: u.vanity || null,
    destination: u.destination,
    views: u.views || 0,
    maxViews: u.max_views || null,
    password: null,
    enabled: true,
    createdAt: dateOf(u.created_at, ctx.now),
  });
}
