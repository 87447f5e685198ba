/**
 * The public redirect's shortcuts around a backend's {@link UrlStore}, as the
 * serving store (`serving.ts`) wraps it once where the store opens: names
 * resolved through a one-second cache ({@link FreshCache}, a busy name loaded
 * again in its last half second) and views of URLs
 * without `maxViews` counted in batches ({@link ViewBatch}). A transaction's
 * view is the plain backend: it reads what was written. Every write clears
 * the cache; every read adds the views still waiting, so this process always
 * sees exact counts.
 */
import type { Clock } from "../core/clock.ts";
import { forgetAround, FreshCache } from "./fresh_cache.ts";
import type {
  ServingUrlStore,
  UrlPage,
  UrlPatch,
  UrlRecord,
  UrlStats,
  UrlStore,
  UrlView,
} from "./urls.ts";
import { ViewBatch } from "./view_batch.ts";

/** How long a name's answer is used. */
export const URLS_FRESH_MS = 1000;
/**
 * A name asked for this close to the end of its answer's time is loaded again
 * in the background, the answer used meanwhile: a busy name stays on the fast
 * path instead of sending requests through the app until its reload arrives
 * (later when the database is busy, say writing a batch of visits).
 */
export const URLS_REFRESH_AHEAD_MS = 500;

/** {@link ServingUrlStore} over `store`. */
export class CachedUrls implements ServingUrlStore {
  readonly #store: UrlStore;
  readonly #clock: Clock;
  readonly #batch: ViewBatch;
  readonly #names = new FreshCache<UrlRecord | null>({
    ttlMs: URLS_FRESH_MS,
    refreshAheadMs: URLS_REFRESH_AHEAD_MS,
    maxEntries: 10_000,
    maxBytes: 8 * 1024 * 1024,
  });

  constructor(store: UrlStore, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
    this.#batch = new ViewBatch((id, count) => store.addViews(id, count));
  }

  resolve(name: string): Promise<UrlRecord | null> {
    return this.#names.get(name, this.#clock.now(), () => this.getByName(name));
  }

  resolveCached(name: string): UrlRecord | null | undefined {
    return this.#names.peek(name, this.#clock.now(), () => this.getByName(name))?.value;
  }

  countView(id: string): void {
    this.#batch.count(id);
  }

  async flushViews(): Promise<void> {
    await this.#batch.flush();
  }

  /** Forgets the cached names: after writes that bypassed this store (a transaction's). */
  forget(): void {
    this.#names.clear();
  }

  /** Writes the batched views; before the store closes. */
  async close(): Promise<void> {
    await this.#batch.close();
  }

  create(url: UrlRecord, maxUrls: number | null): Promise<boolean> {
    return this.#written(() => this.#store.create(url, maxUrls));
  }

  createMany(urls: UrlRecord[]): Promise<void> {
    return this.#written(() => this.#store.createMany(urls));
  }

  takenNames(names: string[]): Promise<Set<string>> {
    return this.#store.takenNames(names);
  }

  get(id: string): Promise<UrlRecord | null> {
    return this.#read(() => this.#store.get(id));
  }

  getByName(name: string): Promise<UrlRecord | null> {
    return this.#read(() => this.#store.getByName(name));
  }

  async listByUser(userId: string): Promise<UrlRecord[]> {
    await this.#batch.settled();
    return (await this.#store.listByUser(userId)).map((url) => this.#batch.withWaiting(url));
  }

  async pageByUser(userId: string, offset: number, limit: number): Promise<UrlPage> {
    await this.#batch.settled();
    const { urls, total } = await this.#store.pageByUser(userId, offset, limit);
    return { urls: urls.map((url) => this.#batch.withWaiting(url)), total };
  }

  async recount(userId: string | null): Promise<number> {
    await this.#batch.flush();
    return await this.#store.recount(userId);
  }

  countByUser(userId: string): Promise<number> {
    return this.#store.countByUser(userId);
  }

  async statsByUser(userId: string | null): Promise<UrlStats> {
    await this.#batch.flush();
    return await this.#store.statsByUser(userId);
  }

  update(id: string, patch: UrlPatch, now: Date): Promise<UrlRecord | null> {
    return this.#written(() => this.#read(() => this.#store.update(id, patch, now)));
  }

  delete(id: string): Promise<UrlRecord | null> {
    return this.#written(async () => {
      const url = await this.#read(() => this.#store.delete(id));
      this.#batch.forget(id);
      return url;
    });
  }

  async view(id: string): Promise<UrlView | null> {
    // Counted exactly from here on: batched views of this URL go first.
    if (this.#batch.waiting(id) > 0) await this.#batch.flush();
    return await this.#store.view(id);
  }

  addViews(id: string, count: number): Promise<void> {
    return this.#store.addViews(id, count);
  }

  deleteByUser(userId: string): Promise<number> {
    return this.#written(() => this.#store.deleteByUser(userId));
  }

  orphanByUser(userId: string): Promise<number> {
    return this.#written(() => this.#store.orphanByUser(userId));
  }

  async expiredBy(at: Date, limit: number): Promise<UrlRecord[]> {
    await this.#batch.settled();
    return (await this.#store.expiredBy(at, limit)).map((url) => this.#batch.withWaiting(url));
  }

  async exhausted(limit: number): Promise<UrlRecord[]> {
    await this.#batch.settled();
    return (await this.#store.exhausted(limit)).map((url) => this.#batch.withWaiting(url));
  }

  async *iterate(): AsyncIterable<UrlRecord> {
    await this.#batch.settled();
    for await (const url of this.#store.iterate()) yield this.#batch.withWaiting(url);
  }

  /** Reads a URL once no batch is being written (its views would count twice), waiting views added. */
  async #read(read: () => Promise<UrlRecord | null>): Promise<UrlRecord | null> {
    await this.#batch.settled();
    const url = await read();
    return url && this.#batch.withWaiting(url);
  }

  /** Runs a write; names cached before it (or during it) are not used after it. */
  #written<T>(write: () => Promise<T>): Promise<T> {
    return forgetAround(() => this.forget(), write);
  }
}
