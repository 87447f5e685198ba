/**
 * Visits (`data.ferryVisits`): Ferry's own kind, absent from Zipline's
 * documents (an import without it reads as none). The raw visits travel
 * (their visitor hashes, never an address); an import adds them again
 * through the store, which rebuilds the hourly roll-ups of their targets,
 * owners and the server. A visit whose link or file was not imported is
 * skipped; one whose owner was not imported keeps no owner.
 */
import { z } from "zod";
import { groupVisits } from "../../../db/visit_rollup.ts";
import type { VisitRecord } from "../../../db/visits.ts";
import { flushVisits } from "../../visits/record.ts";
import { Batches } from "../batch.ts";
import { IsoDate, type V4Kind } from "../context.ts";

const Text = z.string().max(300).nullable();

const VisitV4 = z.object({
  targetKind: z.enum(["url", "file"]),
  targetId: z.string(),
  ownerId: z.string().nullable(),
  at: IsoDate,
  referrer: Text,
  country: z.string().max(8).nullable(),
  browser: Text,
  os: Text,
  device: z.string().max(20),
  bot: z.boolean(),
  visitor: z.string().regex(/^[0-9a-f]{16}$/, "must be 16 hex digits"),
});
type VisitV4 = z.infer<typeof VisitV4>;

const batches = new Batches<VisitRecord>(2000, async (ctx, batch) => {
  await ctx.store.visits.add(groupVisits(batch));
});

/** `data.ferryVisits`. */
export const visitsV4: V4Kind<VisitV4> = {
  key: "ferryVisits",
  counted: "visits",
  optional: true,
  schema: VisitV4,
  async importRecord(ctx, v) {
    const ids = v.targetKind === "url" ? ctx.ids.urls : ctx.ids.files;
    const targetId = ids.get(v.targetId);
    if (!targetId) return ctx.report.skip("visits", v.targetId, "link or file not imported");
    await batches.add(ctx, {
      ...v,
      targetId,
      ownerId: v.ownerId === null ? null : ctx.ids.users.get(v.ownerId) ?? null,
      at: new Date(v.at),
    });
    ctx.report.add("visits");
  },
  async finish(ctx) {
    await batches.flush(ctx);
  },
  async *exportRecords(x) {
    // The visits this instance still holds go in too.
    await flushVisits(x.s);
    const targets = async function* () {
      for await (const u of x.s.store.urls.iterate()) yield ["url", u.id] as const;
      for await (const f of x.s.store.files.iterate()) yield ["file", f.id] as const;
    };
    for await (const [kind, id] of targets()) {
      for await (const v of x.s.store.visits.list(kind, id)) {
        yield { ...v, at: v.at.toISOString() };
      }
    }
  },
};
