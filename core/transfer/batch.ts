/**
 * Records of one kind gathered during an import and written a batch at a
 * time, so that the store sees a few large writes (multi-row INSERTs, full
 * KV atomic operations) instead of one round trip per record. A batch lives
 * with its import's context; the kind's `finish` writes what is left.
 */
import type { ImportContext } from "./context.ts";

/** Pending items per import, written `size` at a time by `write`. */
export class Batches<T> {
  private readonly pending = new WeakMap<ImportContext, T[]>();

  constructor(
    private readonly size: number,
    private readonly write: (ctx: ImportContext, batch: T[]) => Promise<void>,
  ) {}

  /** Adds `item` to the import's batch; writes the batch once it is full. */
  async add(ctx: ImportContext, item: T): Promise<void> {
    const batch = this.pending.get(ctx) ?? [];
    this.pending.set(ctx, batch);
    batch.push(item);
    if (batch.length >= this.size) await this.flush(ctx);
  }

  /** Writes what the import's batch holds. */
  async flush(ctx: ImportContext): Promise<void> {
    const batch = this.pending.get(ctx);
    this.pending.delete(ctx);
    if (batch?.length) await this.write(ctx, batch);
  }
}

/**
 * The names of `items` not yet taken, in order: `taken` (the store's answer
 * for the batch) grows as items are accepted, so a later item of the same
 * batch with a name already accepted is refused as well. Returns, per item,
 * the first of its names found taken, or `null` when it is accepted.
 */
export function claimNames<T>(
  items: T[],
  namesOf: (item: T) => string[],
  taken: Set<string>,
): (string | null)[] {
  return items.map((item) => {
    const names = namesOf(item);
    const clash = names.find((name) => taken.has(name));
    if (clash !== undefined) return clash;
    for (const name of names) taken.add(name);
    return null;
  });
}
