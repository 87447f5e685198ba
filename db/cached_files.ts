/**
 * The file store as the serving store (`serving.ts`) wraps each backend's:
 * theirs, with the public serving path's name lookup
 * ({@link CachedFiles.resolve}) answered from a one-second cache
 * ({@link FreshCache}), and, where the backend lists a user's files by
 * reading them all (Deno KV), each user's list read at most once a second.
 * Every write through it forgets what it may have changed (an upload's: its
 * name and its owner's list; any other: everything, before and after the
 * write), so this process never serves a file it deleted, renamed or
 * protected, nor lists one as it was; another process's change shows within
 * a second (a list: a second and the time its next read takes, during which
 * the old one is still answered). Views are the exception: counting one
 * leaves the caches, so a cached record's `views` may be a second behind
 * (serving reads them only for files with `maxViews`, which it reads fresh
 * and counts atomically).
 */
import type { Clock } from "../core/clock.ts";
import { approxBytes, forgetAround, FreshCache } from "./fresh_cache.ts";
import {
  FILE_SORT_KEYS,
  type FileLimits,
  type FilePage,
  type FilePatch,
  type FileQuery,
  type FileRecord,
  type FileStore,
  isFiltered,
  isIndexedSearch,
  queryFiles,
  type ServingFileStore,
  type ViewResult,
} from "./files.ts";

/** How long a name's answer, a list or a count is used. */
export const FILES_FRESH_MS = 1000;

/** One user's complete files as read, and the orders they were sorted in. */
interface UserList {
  files: FileRecord[];
  sorted: Map<string, FileRecord[]>;
}

/**
 * A list's size: its records, and a reference to each in every order it may
 * be sorted in (each sort key, both ways), which it keeps once asked for.
 */
const listBytes = (list: UserList) =>
  approxBytes(list.files) + list.files.length * 8 * FILE_SORT_KEYS.length * 2;

/** {@link ServingFileStore} over a backend's {@link FileStore}. */
export class CachedFiles implements ServingFileStore {
  readonly #names = new FreshCache<FileRecord | null>({
    ttlMs: FILES_FRESH_MS,
    maxEntries: 10_000,
    maxBytes: 8 * 1024 * 1024,
  });
  readonly #lists = new FreshCache<UserList>({
    ttlMs: FILES_FRESH_MS,
    maxEntries: 16,
    maxBytes: 32 * 1024 * 1024,
    sizeOf: listBytes,
    staleWhileRefresh: true,
  });
  readonly #totals = new FreshCache<number>({
    ttlMs: FILES_FRESH_MS,
    maxEntries: 10_000,
    maxBytes: 1024 * 1024,
  });

  /**
   * Over `files`, on `clock`. With `listsByUser`, {@link CachedFiles.list}
   * pages through each user's cached list (for a backend that lists a
   * user's files by reading them all).
   */
  constructor(
    private readonly files: FileStore,
    private readonly clock: Clock,
    private readonly listsByUser = false,
  ) {}

  resolve(name: string): Promise<FileRecord | null> {
    return this.#names.get(name, this.clock.now(), () => this.files.getByName(name));
  }

  resolveCached(name: string): FileRecord | null | undefined {
    return this.#names.peek(name, this.clock.now())?.value;
  }

  /** Forgets everything cached: after writes that bypassed this store (a transaction's). */
  forget(): void {
    this.#names.clear();
    this.#lists.clear();
    this.#totals.clear();
  }

  /** Runs a write; what was cached before it (or during it) is not used after it. */
  #written<T>(write: () => Promise<T>): Promise<T> {
    return forgetAround(() => this.forget(), write);
  }

  /**
   * One page of a user's complete files: from the backend, with the count of
   * all of them (when nothing narrows them) reused for up to a second; or, with
   * `listsByUser`, from the user's list read at most a second ago, sorted once
   * per order. A list past its second is still answered while its next read
   * is under way (a user's 10,000 files take tens of milliseconds to read).
   * Either way a dashboard paging or polling costs no pass over every file
   * each time.
   */
  async list(query: FileQuery): Promise<FilePage> {
    const now = this.clock.now();
    // Search index (issue #32): an indexed search is the backend's, never a cached list's.
    if (isIndexedSearch(query)) return await this.files.list(query);
    if (!this.listsByUser) {
      if (isFiltered(query)) return await this.files.list(query);
      const total = await this.#totals.get(
        query.userId,
        now,
        async () => (await this.files.list({ ...query, offset: 0, limit: 0 })).total,
      );
      return await this.files.list({ ...query, total });
    }
    const list = await this.#lists.get(query.userId, now, async () => ({
      files: await this.files.listByUser(query.userId),
      sorted: new Map(),
    }));
    const key = `${query.sortBy} ${query.order}`;
    let sorted = list.sorted.get(key);
    if (!sorted) {
      const { userId, sortBy, order } = query;
      const all = { userId, sortBy, order, offset: 0, limit: Infinity };
      sorted = queryFiles(list.files, all).files;
      list.sorted.set(key, sorted);
    }
    if (isFiltered(query)) return queryFiles(sorted, query);
    const end = query.offset + query.limit;
    return { files: sorted.slice(query.offset, end), total: sorted.length };
  }

  /**
   * Forgets what an upload's write changed: its name's answer and its
   * owner's list and count. Clearing everything, as other writes do, would
   * empty the caches once per upload under a steady stream of them.
   */
  #forgetFile(file: FileRecord): void {
    this.#names.delete(file.name);
    this.#lists.delete(file.userId ?? "");
    this.#totals.delete(file.userId ?? "");
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

  disown(userId: string) {
    return this.#written(() => this.files.disown(userId));
  }

  addView(id: string): Promise<ViewResult> {
    return this.files.addView(id);
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

  iterate() {
    return this.files.iterate();
  }
}
