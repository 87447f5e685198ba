/**
 * What both short-URL stores share for the public redirect path: names
 * resolved through a one-second cache ({@link FreshCache}) and views of URLs
 * without `maxViews` counted in batches ({@link ViewBatch}). A store extends
 * it, runs every write through {@link UrlHotPaths.written} and adds
 * `batch.withWaiting` to what it reads.
 */
import { FreshCache } from "./fresh_cache.ts";
import type { UrlRecord } from "./urls.ts";
import { ViewBatch } from "./view_batch.ts";

/** The cache and the view batch of one URL store. */
export abstract class UrlHotPaths {
  protected readonly batch = new ViewBatch((id, count) => this.addViews(id, count));
  readonly #names = new FreshCache<UrlRecord | null>();

  /** Adds `count` views to a URL that still exists (a missing one is no error). */
  protected abstract addViews(id: string, count: number): Promise<void>;
  abstract getByName(name: string): Promise<UrlRecord | null>;

  resolve(name: string): Promise<UrlRecord | null> {
    return this.#names.get(name, () => this.getByName(name));
  }

  resolveCached(name: string): UrlRecord | null | undefined {
    return this.#names.peek(name)?.value;
  }

  countView(id: string): void {
    this.batch.count(id);
  }

  async flushViews(): Promise<void> {
    await this.batch.flush();
  }

  /** Writes the batched views; before the store closes. */
  async close(): Promise<void> {
    await this.batch.close();
  }

  /** Runs a write; names cached before it (or during it) are not used after it. */
  protected async written<T>(write: () => Promise<T>): Promise<T> {
    this.#names.clear();
    try {
      return await write();
    } finally {
      this.#names.clear();
    }
  }
}
