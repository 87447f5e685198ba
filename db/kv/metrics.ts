/** Metrics snapshots on Deno KV, keyed by time so a prefix scan reads them oldest first. */
import type { MetricRecord, MetricStore } from "../metrics.ts";

const PREFIX = ["metric"];

/** {@link MetricStore} on Deno KV. */
export class KvMetrics implements MetricStore {
  constructor(private readonly kv: Deno.Kv) {}

  async add(metrics: MetricRecord[]): Promise<void> {
    // Atomic up to KV's limits; a larger set is written in steps.
    for (let i = 0; i < metrics.length; i += 500) {
      const op = this.kv.atomic();
      for (const m of metrics.slice(i, i + 500)) {
        op.set([...PREFIX, m.createdAt.getTime(), m.id], m);
      }
      await op.commit();
    }
  }

  async *iterate(): AsyncIterable<MetricRecord> {
    for await (const entry of this.kv.list<MetricRecord>({ prefix: PREFIX })) yield entry.value;
  }

  async count(): Promise<number> {
    let n = 0;
    for await (const _ of this.kv.list({ prefix: PREFIX })) n++;
    return n;
  }
}
