/**
 * Write combining: concurrent calls that each need one small store write are
 * gathered into one batch, written with one round trip or one commit. The
 * first call on an idle coalescer is flushed at once (no added latency when
 * traffic is light); calls that arrive while a flush is in flight wait for it
 * and go together in the next. Each caller still gets its own answer. (Holding
 * flushes back to gather bigger batches, as PostgreSQL's `commit_delay` does,
 * was measured and dropped: at 1 and 4 ms it cost more in waiting than it
 * saved in CPU; see bench/results/performance.md.)
 */

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/** Turns `flush(items) → results` (same order, same length) into a per-item call. */
export class Coalescer<T, R> {
  private queue: Waiting<T, R>[] = [];
  private flushing = false;

  /**
   * @param flush writes a batch and answers one result per item, in order
   * @param maxBatch the largest batch handed to `flush` at once
   */
  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly maxBatch = 512,
  ) {}

  /** Queues one item and resolves with its result once its batch is written. */
  run(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.flushing) this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const results = await this.flush(batch.map((w) => w.item));
        batch.forEach((w, i) => w.resolve(results[i]));
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    this.flushing = false;
  }
}

/** Items of a batch grouped by a key, keeping each group's items in arrival order. */
export function groupBy<T>(items: T[], keyOf: (item: T) => string): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  items.forEach((item, index) => {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(index);
    else groups.set(key, [index]);
  });
  return groups;
}
