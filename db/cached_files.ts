/**
 * The file store as the serving store (`serving.ts`) wraps each backend's:
 * theirs, with the public serving path's name lookup
 * ({@link CachedFiles.resolve}) answered from a one-second cache
 * ({@link FreshCache}). Lists are not cached: each backend reads a page from
 * its indexes and its count from counters (issue #32), so no cache holds a
 * user's whole list. Every write through it forgets what it may have changed
 * (an upload's: its name; any other: every name, before and after the
 * write), so this process never serves a file it deleted, renamed or
 * protected; another process's change shows within a second. Views are the
 * exception: counting one
 * leaves the caches, so a cached record's `views` may be a second behind
 * (serving reads them only for files with `maxViews`, which it reads fresh
 * and counts atomically).
 */
import type { Clock } from "../core/clock.ts";
import { forgetAround, FreshCache } from "./fresh_cache.ts";
import {
  type FileCandidates,
  type FileLimits,
  type FilePage,
  type FilePatch,
  type FileQuery,
  type FileRecord,
  type FileStore,
  type ServingFileStore,
  type ViewResult,
} from "./files.ts";

/** How long a name's answer is used. */
export const FILES_FRESH_MS = 1000;

/** {@link ServingFileStore} over a backend's {@link FileStore}. */
export class CachedFiles implements ServingFileStore {
  readonly #names = new FreshCache<FileRecord | null>({
    ttlMs: FILES_FRESH_MS,
    maxEntries: 10_000,
    maxBytes: 8 * 1024 * 1024,
  });

  /** Over `files`, on `clock`. */
  constructor(private readonly files: FileStore, private readonly clock: Clock) {}

  resolve(name: string): Promise<FileRecord | null> {
    return this.#names.get(name, this.clock.now(), () => this.files.getByName(name));
  }

  resolveCached(name: string): FileRecord | null | undefined {
    return this.#names.peek(name, this.clock.now())?.value;
  }

  /** Forgets everything cached: after writes that bypassed this store (a transaction's). */
  forget(): void {
    this.#names.clear();
  }

  /** Runs a write; what was cached before it (or during it) is not used after it. */
  #written<T>(write: () => Promise<T>): Promise<T> {
    return forgetAround(() => this.forget(), write);
  }

  /** One page of a user's complete files, from the backend (never cached). */
  list(query: FileQuery): Promise<FilePage> {
    return this.files.list(query);
  }

  /** Forgets what an upload's write changed: its name's answer. */
  #forgetFile(file: FileRecord): void {
    this.#names.delete(file.name);
  }

  /**
   * An upload's first write. After it, not before: an answer read before the
   * write lands is dropped with it, and the name serves nothing until completed.
   */
  async create(file: FileRecord, limits: FileLimits) {
    try {
      await this.files.create(file, limits);
    } finally {
      this.#forgetFile(file);
    }
  }

  /** An upload's last write, forgetting as {@link create} does (everything when it failed). */
  async complete(id: string, size: number, limits: FileLimits, now: Date) {
    let done: FileRecord | null = null;
    try {
      done = await this.files.complete(id, size, limits, now);
      return done;
    } finally {
      if (done) this.#forgetFile(done);
      else this.forget();
    }
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

  deleteMany(ids: string[]) {
    return this.#written(() => this.files.deleteMany(ids));
  }

  getMany(ids: string[]) {
    return this.files.getMany(ids);
  }

  candidates(which: FileCandidates, limit: number) {
    return this.files.candidates(which, limit);
  }

  disown(userId: string) {
    return this.#written(() => this.files.disown(userId));
  }

  addView(id: string): Promise<ViewResult> {
    return this.files.addView(id);
  }

  mostViewed(take: number) {
    return this.files.mostViewed(take);
  }

  grantAccess(fileId: string, key: string, expiresAt: Date, now: Date) {
    return this.files.grantAccess(fileId, key, expiresAt, now);
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

  listByUser(userId: string) {
    return this.files.listByUser(userId);
  }

  usage(userId: string) {
    return this.files.usage(userId);
  }

  stats(userId: string | null) {
    return this.files.stats(userId);
  }

  recountStats(userId: string | null, budget: number) {
    return this.files.recountStats(userId, budget);
  }

  hasAccess(fileId: string, key: string, now: Date) {
    return this.files.hasAccess(fileId, key, now);
  }

  iterate(after?: string) {
    return this.files.iterate(after);
  }
}
