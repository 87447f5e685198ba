/**
 * Metrics snapshots on Deno KV, keyed by time so a prefix scan reads them
 * oldest first. A snapshot whose data is large (an instance with many users
 * lists each one) keeps its data in pieces under keys of their own
 * (`pieces.ts`), stored before the snapshot's key so a reader never finds a
 * snapshot without them.
 */
import type { MetricRange, MetricRecord, MetricStore } from "../metrics.ts";
import { getAll } from "./helpers.ts";
import { fromPieces, toPieces } from "./pieces.ts";

const PREFIX = ["metric"];
const pieceKey = (id: string, n: number) => ["metric_piece", id, n];

/**
 * The most JSON bytes of data kept in the snapshot's own value: V8's encoding
 * can take up to about twice the JSON's size, and a KV value 64 KiB.
 */
const INLINE_JSON_BYTES = 16 * 1024;
/** What one atomic operation is given: KV allows 800 KiB and 1000 mutations. */
const OP_BYTES = 400 * 1024;
const OP_MUTATIONS = 400;

/** A snapshot as kept: its data inline, or the number of pieces it was cut into. */
type Stored = MetricRecord | (Omit<MetricRecord, "data"> & { pieces: number });

/** One write of {@link KvMetrics.add}, with the bytes it is counted as. */
interface Write {
  key: Deno.KvKey;
  value: unknown;
  bytes: number;
}

/** The writes that keep `m`: its pieces first, then the snapshot. */
function writesOf(m: MetricRecord): Write[] {
  const key = [...PREFIX, m.createdAt.getTime(), m.id];
  const json = new TextEncoder().encode(JSON.stringify(m.data)).byteLength;
  if (json <= INLINE_JSON_BYTES) return [{ key, value: m, bytes: 4 * json + 256 }];
  const pieces = toPieces(m.data);
  const stored: Stored = { id: m.id, createdAt: m.createdAt, pieces: pieces.length };
  return [
    ...pieces.map((piece, n) => ({
      key: pieceKey(m.id, n),
      value: piece,
      bytes: piece.byteLength + 256,
    })),
    { key, value: stored, bytes: 256 },
  ];
}

/** {@link MetricStore} on Deno KV. */
export class KvMetrics implements MetricStore {
  constructor(private readonly kv: Deno.Kv) {}

  async add(metrics: MetricRecord[]): Promise<void> {
    // Atomic up to KV's limits; a larger set is stored in steps, in order.
    let op = this.kv.atomic();
    let bytes = 0;
    let mutations = 0;
    for (const write of metrics.flatMap(writesOf)) {
      if (mutations > 0 && (bytes + write.bytes > OP_BYTES || mutations >= OP_MUTATIONS)) {
        await op.commit();
        op = this.kv.atomic();
        bytes = mutations = 0;
      }
      op.set(write.key, write.value);
      bytes += write.bytes;
      mutations++;
    }
    if (mutations > 0) await op.commit();
  }

  async *iterate(): AsyncIterable<MetricRecord> {
    for await (const entry of this.kv.list<Stored>({ prefix: PREFIX })) {
      yield await this.whole(entry.value);
    }
  }

  async count(): Promise<number> {
    let n = 0;
    for await (const _ of this.kv.list({ prefix: PREFIX })) n++;
    return n;
  }

  async *range(range: MetricRange): AsyncIterable<MetricRecord> {
    const entries = this.kv.list<Stored>(selector(range), { reverse: true, batchSize: 500 });
    for await (const entry of entries) yield await this.whole(entry.value);
  }

  async countRange(range: MetricRange): Promise<number> {
    let n = 0;
    for await (const _ of this.kv.list(selector(range), { batchSize: 500 })) n++;
    return n;
  }

  /** The snapshot `stored` keeps, its pieces read back. */
  private async whole(stored: Stored): Promise<MetricRecord> {
    if (!("pieces" in stored)) return stored;
    const keys = Array.from({ length: stored.pieces }, (_, n) => pieceKey(stored.id, n));
    const pieces = (await getAll<Uint8Array>(this.kv, keys)).map((e) => e.value!);
    const data = fromPieces(pieces) as Record<string, unknown>;
    return { id: stored.id, createdAt: stored.createdAt, data };
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
