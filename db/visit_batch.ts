/**
 * A batch of visits made ready for a store's write (`VisitStore.write`):
 * its raw visits packed (`visit_pack.ts`) and its roll-up hours' additions
 * (`visit_rollup.ts`), each hour's visitors already made its sketch. Pure
 * work with no store in it, the same on both stores, so that it can be done
 * away from the server's thread (the visits worker,
 * `core/visits/visit_worker.ts`) and only the writes are left to the store;
 * the result is plain data (strings, numbers, maps and byte arrays) that a
 * worker's message carries. A store that another thread can reach as well
 * (a Deno KV file, a PostgreSQL server) says where ({@link VisitStoreAddress}),
 * and the visits worker writes the batch itself through a writer of its own
 * (`visit_writer.ts`).
 */
import type { Sketch } from "./hll.ts";
import { PACK_BYTES, packVisits, type VisitPack } from "./visit_pack.ts";
import { deltaSketch, type HourDelta, rollUp } from "./visit_rollup.ts";
import type { VisitGroup } from "./visits.ts";

/** What {@link prepareBatch} makes of a batch of groups. */
export interface VisitBatch {
  /** The raw visits, packed per target. */
  packs: VisitPack[];
  /**
   * What the batch adds to each roll-up hour; each delta's visitors are its
   * `sketch` (its `entries` empty), so `deltaSketch` of it is that sketch.
   */
  hours: HourDelta[];
}

/**
 * A store's writes of a prepared batch: each backend's `VisitStore` is one too
 * (`Store.visits`; declared here, beside the batch, so that `visits.ts` does
 * not import this module, which imports it).
 */
export interface VisitBatchWriter {
  /**
   * `VisitStore.add` of groups already packed and rolled up
   * ({@link prepareBatch}, which the visits worker runs): only the writes.
   */
  write(batch: VisitBatch): Promise<void>;
  /**
   * Where another thread opens a writer of its own on this store
   * (`visit_writer.ts`); `null` when none can (a Deno KV store in memory, a
   * transaction's view): its batches are written here.
   */
  readonly address: VisitStoreAddress | null;
}

/** Where a store is, for a writer of another thread: a Deno KV file or a PostgreSQL URL. */
export type VisitStoreAddress = { kind: "kv"; path: string } | { kind: "postgres"; url: string };

/** A writer of prepared batches opened on its own handle (`visit_writer.ts`). */
export interface OwnVisitWriter {
  write(batch: VisitBatch): Promise<void>;
  /** Releases its handle or connection. */
  close(): Promise<void>;
}

/** `groups` packed and rolled up, ready for `VisitStore.write`. */
export function prepareBatch(groups: VisitGroup[]): VisitBatch {
  const hours = [...rollUp(groups).values()];
  for (const delta of hours) {
    const sketch: Sketch | null = deltaSketch(delta);
    delta.sketch = sketch;
    delta.entries = [];
  }
  return { packs: packVisits(groups, PACK_BYTES), hours };
}

/** The byte arrays a batch holds, which a worker's message moves rather than copies. */
export function batchBuffers(batch: VisitBatch): ArrayBuffer[] {
  const buffers: ArrayBuffer[] = [];
  for (const pack of batch.packs) {
    if (pack.bytes.buffer instanceof ArrayBuffer) buffers.push(pack.bytes.buffer);
  }
  for (const delta of batch.hours) {
    const buffer = delta.sketch?.buffer;
    if (buffer instanceof ArrayBuffer && !buffers.includes(buffer)) buffers.push(buffer);
  }
  return buffers;
}
