/**
 * The file store as both backends expose it: theirs, with the public
 * serving path's name lookup ({@link CachedFiles.resolve}) answered from a
 * one-second cache ({@link FreshCache}). Every write through it clears the
 * cache, before and after the write, so this process never serves a file it
 * deleted, renamed or protected; another process's change shows within a
 * second. Views are the exception: counting one leaves the cache, so a
 * resolved record's `views` may be behind (serving reads them only for files
 * with `maxViews`, which it reads fresh and counts atomically).
 */
import { FreshCache } from "./fresh_cache.ts";
import type {
  FileLimits,
  FilePatch,
  FileQuery,
  FileRecord,
  FileStore,
  ViewResult,
} from "./files.ts";

/** {@link FileStore} over another, adding {@link CachedFiles.resolve}. */
export class CachedFiles implements FileStore {
  readonly #names = new FreshCache<FileRecord | null>();

  constructor(private readonly files: FileStore) {}

  /**
   * The file with exactly this name, as {@link FileStore.getByName} answered
   * it at most a second ago (or since the last write through this store);
   * its `views` may lag behind.
   */
  resolve(name: string): Promise<FileRecord | null> {
    return this.#names.get(name, () => this.files.getByName(name));
  }

  /** Forgets every cached name: after writes that bypassed this store (a transaction's). */
  forget(): void {
    this.#names.clear();
  }

  /** Runs a write; names cached before it (or during it) are not used after it. */
  async #written<T>(write: () => Promise<T>): Promise<T> {
    this.#names.clear();
    try {
      return await write();
    } finally {
      this.#names.clear();
    }
  }

  create(file: FileRecord, limits: FileLimits) {
    return this.#written(() => this.files.create(file, limits));
  }

  complete(id: string, size: number, limits: FileLimits, now: Date) {
    return this.#written(() => this.files.complete(id, size, limits, now));
  }

  createMany(files: FileRecord[]) {
    return this.#written(() => this.files.createMany(files));
  }

  resize(id: string, size: number, now: Date) {
    return this.#written(() => this.files.resize(id, size, now));
  }

  update(id: string, patch: FilePatch, now: Date) {
    return this.#written(() => this.files.update(id, patch, now));
  }

  delete(id: string) {
    return this.#written(() => this.files.delete(id));
  }

  disown(userId: string) {
    return this.#written(() => this.files.disown(userId));
  }

  addView(id: string): Promise<ViewResult> {
    return this.files.addView(id);
  }

  grantAccess(fileId: string, key: string, expiresAt: Date) {
    return this.files.grantAccess(fileId, key, expiresAt);
  }

  takenNames(names: string[]) {
    return this.files.takenNames(names);
  }

  get(id: string) {
    return this.files.get(id);
  }

  getByName(name: string) {
    return this.files.getByName(name);
  }

  namedWithPrefix(prefix: string, limit: number) {
    return this.files.namedWithPrefix(prefix, limit);
  }

  list(query: FileQuery) {
    return this.files.list(query);
  }

  listByUser(userId: string) {
    return this.files.listByUser(userId);
  }

  usage(userId: string) {
    return this.files.usage(userId);
  }

  stats(userId: string) {
    return this.files.stats(userId);
  }

  hasAccess(fileId: string, key: string, now: Date) {
    return this.files.hasAccess(fileId, key, now);
  }

  iterate() {
    return this.files.iterate();
  }
}
