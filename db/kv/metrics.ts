/** Metrics snapshots on Deno KV, keyed by time so a prefix scan reads them oldest first. */
import type { MetricRange, MetricRecord, MetricStore } from "../metrics.ts";

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

  async *range(range: MetricRange): AsyncIterable<MetricRecord> {
    const entries = this.kv.list<MetricRecord>(selector(range), { reverse: true, batchSize: 500 });
    for await (const entry of entries) yield entry.value;
  }

  async countRange(range: MetricRange): Promise<number> {
    let n = 0;
    for await (const _ of this.kv.list(selector(range), { batchSize: 500 })) n++;
    return n;
  }
}

/** The keys of `range`: time is the first key part, so the range is a key range. */
function selector({ from, to }: MetricRange): Deno.KvListSelector {
  const start = from && [...PREFIX, from.getTime()];
  const end = to && [...PREFIX, to.getTime() + 1];
  if (start && end) return { start, end };
  if (start) return { prefix: PREFIX, start };
  if (end) return { prefix: PREFIX, end };
  return { prefix: PREFIX };
}
