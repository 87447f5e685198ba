/** Metrics snapshots (`data.metrics`): always appended, with their timestamps (as Zipline does). */
import { z } from "zod";
import type { MetricRecord } from "../../../db/metrics.ts";
import { Batches } from "../batch.ts";
import { IsoDate, type V4Kind } from "../context.ts";

const MetricV4 = z.object({
  id: z.string(),
  createdAt: IsoDate,
  data: z.record(z.string(), z.unknown()),
});
type MetricV4 = z.infer<typeof MetricV4>;

const batches = new Batches<MetricRecord>(500, (ctx, batch) => ctx.store.metrics.add(batch));

/** v4 `data.metrics`, written in batches of 500. */
export const metricsV4: V4Kind<MetricV4> = {
  key: "metrics",
  counted: "metrics",
  schema: MetricV4,
  async importRecord(ctx, m) {
    await batches.add(ctx, {
      id: ctx.newId(),
      createdAt: new Date(m.createdAt),
      data: m.data,
    });
    ctx.report.add("metrics");
  },
  finish: (ctx) => batches.flush(ctx),
  async *exportRecords(x) {
    if (x.nometrics) return;
    for await (const m of x.s.store.metrics.iterate()) {
      yield { id: m.id, createdAt: m.createdAt.toISOString(), data: m.data };
    }
  },
};
