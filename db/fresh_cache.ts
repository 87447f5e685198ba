/**
 * A small read cache for the public hot paths (a redirect's name lookup):
 * an answer is reused for at most {@link FRESH_MS}, so that a busy short URL
 * costs no store read per request. Every write through the same store clears
 * it, so this process never serves what it changed itself; another process's
 * change shows within {@link FRESH_MS}, as batched views do (`view_batch.ts`).
 */

/** How long a cached answer is used. */
export const FRESH_MS = 1000;
/** Entries kept at most; the oldest go first. */
const MAX_ENTRIES = 10_000;

/** Answers of `load` by key, each fresh for {@link FRESH_MS}. */
export class FreshCache<V> {
  #entries = new Map<string, { value: Promise<V>; until: number; settled?: { value: V } }>();

  /** The cached answer for `key` once it has arrived and while it is fresh; else `undefined`. */
  peek(key: string): { value: V } | undefined {
    const hit = this.#entries.get(key);
    return hit && hit.until > performance.now() ? hit.settled : undefined;
  }

  /** The cached answer for `key`, or `load()`'s (which a failure does not leave cached). */
  get(key: string, load: () => Promise<V>): Promise<V> {
    const now = performance.now();
    const hit = this.#entries.get(key);
    if (hit && hit.until > now) return hit.value;
    this.#entries.delete(key);
    const value = load();
    const entry: { value: Promise<V>; until: number; settled?: { value: V } } = {
      value,
      until: now + FRESH_MS,
    };
    this.#entries.set(key, entry);
    if (this.#entries.size > MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    value.then((settled) => entry.settled = { value: settled }, () => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return value;
  }

  /** Forgets the answer for `key`: after a write that changed only it. */
  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** Forgets every answer: after any write. */
  clear(): void {
    this.#entries.clear();
  }
}

/**
 * Runs `write` with `forget` called before and after it: what a cache held
 * before the write, or took in while it ran, is not used after it.
 */
export async function forgetAround<T>(forget: () => void, write: () => Promise<T>): Promise<T> {
  forget();
  try {
    return await write();
  } finally {
    forget();
  }
}
