/**
 * The file store as both backends expose it: theirs, with the public
 * serving path's name lookup ({@link CachedFiles.resolve}) answered from a
 * one-second cache ({@link FreshCache}), and, where the backend lists a
 * user's files by reading them all (Deno KV), each user's list read at most
 * once a second. Every write through it forgets what it may have changed
 * (an upload's: its name and its owner's list; any other: everything, before
 * and after the write), so this process never serves a file it deleted,
 * renamed or protected, nor lists one as it was; another process's change shows within
 * a second (a list: a second and the time its next read takes, during which
 * the old one is still answered). Views are the exception: counting one
 * leaves the caches, so a cached record's `views` may be a second behind
 * (serving reads them only for files with `maxViews`, which it reads fresh
 * and counts atomically).
 */
import { forgetAround, FRESH_MS, FreshCache } from "./fresh_cache.ts";
import {
  type FileLimits,
  type FilePage,
  type FilePatch,
  type FileQuery,
  type FileRecord,
  type FileStore,
  isFiltered,
  queryFiles,
  type ViewResult,
} from "./files.ts";

/** Users whose lists are kept at most; the oldest go first. */
const LISTED_USERS = 16;

/** One user's complete files as read, and the orders they were sorted in. */
interface UserList {
  until: number;
  files: Promise<FileRecord[]>;
  sorted: Map<string, FileRecord[]>;
  /** The read that will replace this list once it is past its second. */
  next?: UserList;
}

/** {@link FileStore} over another, adding {@link CachedFiles.resolve}. */
export class CachedFiles implements FileStore {
  readonly #names = new FreshCache<FileRecord | null>();
  readonly #lists = new Map<string, UserList>();
  readonly #totals = new FreshCache<number>();

  /** With `listsByUser`, {@link CachedFiles.list} pages through each user's cached list. */
  constructor(private readonly files: FileStore, private readonly listsByUser = false) {}

  /**
   * The file with exactly this name, as {@link FileStore.getByName} answered
   * it at most a second ago (or since the last write through this store);
   * its `views` may lag behind.
   */
  resolve(name: string): Promise<FileRecord | null> {
    return this.#names.get(name, () => this.files.getByName(name));
  }

  /**
   * {@link resolve}'s answer when it is cached and settled, without a
   * `Promise`; `undefined` when the name must be looked up.
   */
  resolveCached(name: string): FileRecord | null | undefined {
    return this.#names.peek(name)?.value;
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
   * per order. Either way a dashboard paging or polling costs no pass over
   * every file each time.
   */
  async list(query: FileQuery): Promise<FilePage> {
    if (!this.listsByUser) {
      if (isFiltered(query)) return await this.files.list(query);
      const total = await this.#totals.get(
        query.userId,
        async () => (await this.files.list({ ...query, offset: 0, limit: 0 })).total,
      );
      return await this.files.list({ ...query, total });
    }
    const list = this.#userList(query.userId);
    const key = `${query.sortBy} ${query.order}`;
    let sorted = list.sorted.get(key);
    if (!sorted) {
      const { userId, sortBy, order } = query;
      const all = { userId, sortBy, order, offset: 0, limit: Infinity };
      sorted = queryFiles(await list.files, all).files;
      list.sorted.set(key, sorted);
    }
    if (isFiltered(query)) return queryFiles(sorted, query);
    const end = query.offset + query.limit;
    return { files: sorted.slice(query.offset, end), total: sorted.length };
  }

  /**
   * The user's cached list, or a new read of it. A list past its second is
   * still answered while its next read is under way (a user's 10,000 files
   * take tens of milliseconds to read): it replaces the old one when it
   * arrives, unless a write forgot the user's list meanwhile.
   */
  #userList(userId: string): UserList {
    const now = performance.now();
    const hit = this.#lists.get(userId);
    if (hit && hit.until > now) return hit;
    if (hit) {
      if (!hit.next) {
        const next = hit.next = this.#read(userId, now);
        next.files.then(() => {
          if (this.#lists.get(userId) === hit) this.#lists.set(userId, next);
        }, () => hit.next = undefined);
      }
      return hit;
    }
    const list = this.#read(userId, now);
    this.#lists.set(userId, list);
    if (this.#lists.size > LISTED_USERS) this.#lists.delete(this.#lists.keys().next().value!);
    list.files.catch(() => {
      if (this.#lists.get(userId) === list) this.#lists.delete(userId);
    });
    return list;
  }

  /** A new read of the user's list, fresh from `now`. */
  #read(userId: string, now: number): UserList {
    return { until: now + FRESH_MS, files: this.files.listByUser(userId), sorted: new Map() };
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
