/**
 * The folder read of public serving, as the serving store (`serving.ts`)
 * wraps a backend's {@link FolderStore}: a file in a folder is private when
 * its folder is (`core/files/private.ts`), so serving such a file reads the
 * folder. That read goes through a one-second cache ({@link FreshCache}),
 * which `/raw`'s fast path can also peek at without waiting. Every folder
 * write through it clears the cache, before and after the write, so this
 * process never answers from what it changed itself; another process's
 * change (a folder made private) shows within a second, as a file's does.
 */
import type { Clock } from "../core/clock.ts";
import { forgetAround, FreshCache } from "./fresh_cache.ts";
import type {
  FolderPatch,
  FolderRecord,
  FolderRemoval,
  FolderStore,
  ServingFolderStore,
} from "./folders.ts";

/** How long a folder's record is used. */
export const FOLDERS_FRESH_MS = 1000;

/** {@link ServingFolderStore} over a backend's {@link FolderStore}. */
export class CachedFolders implements ServingFolderStore {
  readonly #records = new FreshCache<FolderRecord | null>({
    ttlMs: FOLDERS_FRESH_MS,
    maxEntries: 10_000,
    maxBytes: 4 * 1024 * 1024,
  });

  constructor(private readonly folders: FolderStore, private readonly clock: Clock) {}

  getCached(id: string): Promise<FolderRecord | null> {
    return this.#records.get(id, this.clock.now(), () => this.folders.get(id));
  }

  peekCached(id: string): FolderRecord | null | undefined {
    return this.#records.peek(id, this.clock.now())?.value;
  }

  /** Forgets everything cached: after writes that bypassed the store (a transaction's). */
  forget(): void {
    this.#records.clear();
  }

  /** Runs a folder write; what was read before it (or during it) is not used after it. */
  #written<T>(write: () => Promise<T>): Promise<T> {
    return forgetAround(() => this.forget(), write);
  }

  create(folder: FolderRecord): Promise<void> {
    return this.#written(() => this.folders.create(folder));
  }

  get(id: string): Promise<FolderRecord | null> {
    return this.folders.get(id);
  }

  listByName(name: string): Promise<FolderRecord[]> {
    return this.folders.listByName(name);
  }

  listByUser(userId: string): Promise<FolderRecord[]> {
    return this.folders.listByUser(userId);
  }

  update(id: string, patch: FolderPatch, now: Date): Promise<FolderRecord | null> {
    return this.#written(() => this.folders.update(id, patch, now));
  }

  delete(id: string, removal: FolderRemoval, now: Date): Promise<FolderRecord[] | null> {
    return this.#written(() => this.folders.delete(id, removal, now));
  }

  deleteByUser(userId: string): Promise<void> {
    return this.#written(() => this.folders.deleteByUser(userId));
  }

  iterate(): AsyncIterable<FolderRecord> {
    return this.folders.iterate();
  }
}
