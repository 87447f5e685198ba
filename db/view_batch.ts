/**
 * Views counted in batches: the write-behind of the URL wrapper
 * (`url_cache.ts`) for busy records with no `maxViews`, so that a redirect
 * does not pay a store write. Counts wait here at most
 * {@link FLUSH_DELAY_MS}, then one write per record adds them; reads
 * through the same wrapper add what is still waiting, so this
 * process always sees exact counts, and other processes see them within the
 * delay. Records with a `maxViews` are never counted here: their views are
 * checked and written atomically, one by one.
 */

/** How long a count may wait before it is written. */
export const FLUSH_DELAY_MS = 1000;

/** Adds `count` views to the record `id` in the store; a missing record is not an error. */
export type AddViews = (id: string, count: number) => Promise<void>;

/** Pending view counts of one store, keyed by record id. */
export class ViewBatch {
  readonly #add: AddViews;
  /** Counts not yet handed to a write. */
  #pending = new Map<string, number>();
  /** Counts whose write is under way (still added to reads until it lands). */
  #writing = new Map<string, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #flushing: Promise<void> | undefined;

  constructor(add: AddViews) {
    this.#add = add;
  }

  /** Counts one view of `id`, written within {@link FLUSH_DELAY_MS}. */
  count(id: string): void {
    this.#pending.set(id, (this.#pending.get(id) ?? 0) + 1);
    if (this.#timer === undefined) {
      const timer = setTimeout(() => {
        this.#timer = undefined;
        // A failed write keeps its counts for the next flush; nothing to report here.
        this.flush().catch(() => {});
      }, FLUSH_DELAY_MS);
      Deno.unrefTimer(timer);
      this.#timer = timer;
    }
  }

  /** The views of `id` not yet in the store. */
  waiting(id: string): number {
    return (this.#pending.get(id) ?? 0) + (this.#writing.get(id) ?? 0);
  }

  /** `record` with its waiting views added. */
  withWaiting<T extends { id: string; views: number }>(record: T): T {
    const waiting = this.waiting(record.id);
    return waiting === 0 ? record : { ...record, views: record.views + waiting };
  }

  /** Waits for a write under way, so that a read does not count its views twice. */
  async settled(): Promise<void> {
    if (this.#flushing) await this.#flushing.catch(() => {});
  }

  /** Forgets the waiting views of a record that is gone. */
  forget(id: string): void {
    this.#pending.delete(id);
  }

  /** Writes every waiting count now; counts whose write fails wait for the next flush. */
  async flush(): Promise<void> {
    await this.settled();
    if (this.#pending.size === 0) return;
    this.#writing = this.#pending;
    this.#pending = new Map();
    this.#flushing = (async () => {
      const failed: unknown[] = [];
      for (const [id, count] of this.#writing) {
        try {
          await this.#add(id, count);
        } catch (error) {
          failed.push(error);
          this.#pending.set(id, (this.#pending.get(id) ?? 0) + count);
        }
      }
      this.#writing = new Map();
      if (failed.length > 0) throw failed[0];
    })();
    try {
      await this.#flushing;
    } finally {
      this.#flushing = undefined;
    }
  }

  /** Writes what waits and stops the timer: call before closing the store. */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }
}
