/**
 * Metrics snapshots: instance statistics taken at a point in time. Ferry does
 * not take them yet; snapshots imported from Zipline are kept with their
 * timestamps and exported again.
 */

/** One snapshot; `data` is Zipline's statistics object, kept as it came. */
export interface MetricRecord {
  id: string;
  createdAt: Date;
  data: Record<string, unknown>;
}

/** Metrics snapshots. */
export interface MetricStore {
  /** Adds snapshots, all or none. */
  add(metrics: MetricRecord[]): Promise<void>;
  /** Every snapshot, oldest first, read a page at a time. */
  iterate(): AsyncIterable<MetricRecord>;
  /** How many snapshots are kept. */
  count(): Promise<number>;
}
