/**
 * Metrics snapshots: instance statistics taken at a point in time, by the
 * metrics task or imported from Zipline with their timestamps; `/api/stats`
 * reads them by time range.
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
  /** The snapshots taken within `range` (both ends included), newest first. */
  range(range: MetricRange): AsyncIterable<MetricRecord>;
  /** How many snapshots {@link MetricStore.range} yields for `range`. */
  countRange(range: MetricRange): Promise<number>;
}

/** A time range of snapshots; an end left `null` is open. */
export interface MetricRange {
  from: Date | null;
  to: Date | null;
}
