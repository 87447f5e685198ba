/**
 * File records and per-user usage counters. The counters (bytes, files) move
 * in the same atomic operation as the record they count, and a write that
 * would take them past the caller's limits is refused there, so concurrent
 * uploads on any number of processes can never push a user past a quota.
 *
 * An upload first {@link FileStore.create}s its record `pending` (the name is
 * taken and the file counted), streams the bytes, then
 * {@link FileStore.complete}s it with its size (the bytes counted). A pending
 * record is invisible to lists and serving; deleting it undoes both steps.
 * Bytes already in the datasource (chunked uploads, imports) are recorded by
 * `create` with `pending: false` and their size.
 */

/** A stored file. `password` is an argon2 hash and never leaves the server. */
export interface FileRecord {
  id: string;
  /** The datasource object name and public name; unique. */
  name: string;
  originalName: string | null;
  size: number;
  type: string;
  views: number;
  maxViews: number | null;
  favorite: boolean;
  password: string | null;
  /** Uploaded without an account into a folder that accepts it. */
  anonymous: boolean;
  /** `null` once the owner was deleted and its content kept. */
  userId: string | null;
  /** An opaque folder id; the folders store checks it. */
  folderId: string | null;
  deletesAt: Date | null;
  /** Its thumbnail's datasource name (`.thumbnail.<id>.<ext>`); absent or `null` when none. */
  thumbnail?: string | null;
  /** The name its uploader gave through an upload request; absent or `null` when none. */
  uploaderName?: string | null;
  /** `true` while the bytes are still arriving. */
  pending: boolean;
  /**
   * Served to nobody but its owner signed in (and through share links); absent
   * means `false` (records stored before private files).
   */
  private?: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** The fields {@link FileStore.update} may change. */
export type FilePatch = Partial<
  Pick<
    FileRecord,
    | "name"
    | "originalName"
    | "type"
    | "maxViews"
    | "favorite"
    | "password"
    | "anonymous"
    | "folderId"
    | "deletesAt"
    | "thumbnail"
    | "private"
  >
>;

/** A user's quota in numbers; `null` means no limit of that kind. */
export interface FileLimits {
  maxBytes: number | null;
  maxFiles: number | null;
}

/** What a user's files take up. */
export interface FileUsage {
  bytes: number;
  files: number;
}

/** Totals over a user's complete files, for its statistics. */
export interface FileStats {
  files: number;
  favorites: number;
  views: number;
  bytes: number;
  /** How many files of each MIME type. */
  types: Record<string, number>;
}

/** What one pass of {@link FileStore.recountStats} did. */
export interface StatsRecount {
  /** `false`: the recount stopped at its budget and goes on at the next pass. */
  done: boolean;
  /** How many counters it set right (at the end of a recount). */
  repaired: number;
  /** How many records it read. */
  read: number;
}

/** Thrown when a write would take a user past `kind` of its limits; nothing was written. */
export class QuotaError extends Error {
  constructor(readonly kind: "bytes" | "files") {
    super(`the ${kind} quota would be exceeded`);
    this.name = "QuotaError";
  }
}

/** The columns a file list may be sorted by. */
export const FILE_SORT_KEYS = [
  "id",
  "createdAt",
  "updatedAt",
  "deletesAt",
  "name",
  "originalName",
  "size",
  "type",
  "views",
  "favorite",
] as const;
/** A sort column. */
export type FileSortKey = typeof FILE_SORT_KEYS[number];

/** The fields a file list may be searched in. */
export const FILE_SEARCH_FIELDS = ["name", "originalName", "type", "id"] as const;
/** A search field. */
export type FileSearchField = typeof FILE_SEARCH_FIELDS[number];

/**
 * Whether `q` is a search both backends answer from an index (issue #32): by
 * name, original name or type (PostgreSQL: trigram indexes, migration 029;
 * Deno KV: `kv/file_search.ts`), or of given files (`ids`, the tag search).
 * Such a query is the backend's to answer, not a cached list of every file's.
 */
export function isIndexedSearch(q: FileQuery): boolean {
  return q.ids !== undefined || q.tagIds !== undefined ||
    (q.search !== undefined && q.search.query !== "" && q.search.field !== "id");
}

/** A page of one user's (complete) files. */
export interface FileQuery {
  userId: string;
  /** 0-based offset and page size. */
  offset: number;
  limit: number;
  sortBy: FileSortKey;
  order: "asc" | "desc";
  favorite?: boolean;
  /** `false`: keep only files that are not private (a public folder's page). */
  private?: boolean;
  /** Keep only types starting with one of these (`image/`, …). */
  typePrefixes?: string[];
  folderId?: string;
  /** Keep only files with these ids. */
  ids?: string[];
  /**
   * Keep only files carrying every one of these tags (the tag filter), a
   * query of the store (issue #32); the caller has checked they are the owner's.
   */
  tagIds?: string[];
  /** Case-insensitive substring search. */
  search?: { field: FileSearchField; query: string };
  /** How many files match, when the caller knows it: a store may then skip counting them. */
  total?: number;
}

/**
 * How many files match `q`, from its owner's counters (read by `read`, only
 * when they tell): a query narrowed by nothing, by favourite, or by type
 * prefixes, a search by type or both (the types' counts summed);
 * `undefined` otherwise (a folder, a tag, another search, private, or
 * favourite with types or a search).
 */
export async function countFromStats(
  q: FileQuery,
  read: () => Promise<FileStats>,
): Promise<number | undefined> {
  const typeSearch = q.search?.field === "type";
  if (
    q.private !== undefined || q.folderId !== undefined || q.ids !== undefined ||
    q.tagIds !== undefined ||
    (q.search !== undefined && !typeSearch) ||
    ((q.typePrefixes || typeSearch) && q.favorite !== undefined)
  ) return undefined;
  const stats = await read();
  if (q.typePrefixes || typeSearch) {
    const needle = q.search?.query.toLowerCase() ?? "";
    return Object.entries(stats.types)
      .filter(([type]) => !q.typePrefixes || q.typePrefixes.some((p) => type.startsWith(p)))
      .filter(([type]) => type.toLowerCase().includes(needle))
      .reduce((sum, [, n]) => sum + n, 0);
  }
  if (q.favorite === undefined) return stats.files;
  return q.favorite ? stats.favorites : Math.max(0, stats.files - stats.favorites);
}

/** One page and how many files matched in all. */
export interface FilePage {
  files: FileRecord[];
  total: number;
}

/**
 * The files a background job or a bulk delete goes through (issue #32), each
 * read from an index of those files alone, never from a pass over every file:
 * - `expired`: complete files whose `deletesAt` is at or before `by`, soonest first;
 * - `exhausted`: complete files whose views reached their `maxViews`;
 * - `abandoned`: pending files last updated before `by`, oldest first;
 * - `thumbnailed`: files with a thumbnail recorded, in id order (code points);
 * - `owned`: files of `userId`, pending ones included, in no set order;
 * - `foldered`: files of `userId` in its folder `folderId`, pending ones
 *   included, in no set order (a folder's removal moves or deletes them).
 *
 * A page of all but `thumbnailed` starts over at each call (the caller
 * deletes what it read); `thumbnailed` goes on after the id `after`.
 */
export type FileCandidates =
  | { kind: "expired"; by: Date }
  | { kind: "exhausted" }
  | { kind: "abandoned"; by: Date }
  | { kind: "thumbnailed"; after?: string }
  | { kind: "owned"; userId: string }
  | { kind: "foldered"; userId: string; folderId: string };

/** Whether `file` is one of the `which` candidates (the indexes' rule, for checks and tests). */
export function isCandidate(file: FileRecord, which: FileCandidates): boolean {
  switch (which.kind) {
    case "expired":
      return !file.pending && file.deletesAt !== null &&
        file.deletesAt.getTime() <= which.by.getTime();
    case "exhausted":
      return !file.pending && file.maxViews !== null && file.views >= file.maxViews;
    case "abandoned":
      return file.pending && file.updatedAt.getTime() < which.by.getTime();
    case "thumbnailed":
      return !!file.thumbnail && (which.after === undefined || file.id > which.after);
    case "owned":
      return file.userId === which.userId;
    case "foldered":
      return file.userId === which.userId && file.folderId === which.folderId;
  }
}

/** What {@link FileStore.addView} found. */
export type ViewResult = "counted" | "exhausted" | "missing";

/** File records, usage counters and password-access grants. */
export interface FileStore {
  /**
   * Adds `file`; for an owned file, in the same atomic step, counts one file
   * and `file.size` bytes against `limits`. Throws {@link UniqueError}
   * (`name`) on a taken name and {@link QuotaError} past a limit.
   */
  create(file: FileRecord, limits: FileLimits): Promise<void>;
  /**
   * Sets a pending file's size and makes it visible, counting the bytes
   * against `limits` atomically ({@link QuotaError}). `null` when there is no
   * such pending file.
   */
  complete(id: string, size: number, limits: FileLimits, now: Date): Promise<FileRecord | null>;
  /**
   * Adds complete files whose bytes are already stored (imports), counting
   * each against its owner's usage with no limit, in a few large writes. The
   * ids must be new. Throws {@link UniqueError} (`name`) on a taken name; on
   * Deno KV earlier writes of the call have landed by then, so call it inside
   * `Store.transaction`.
   */
  createMany(files: FileRecord[]): Promise<void>;
  /** Which of `names` are taken (by any file, pending ones included). */
  takenNames(names: string[]): Promise<Set<string>>;
  /** The file with this id, pending ones included, or `null`. */
  get(id: string): Promise<FileRecord | null>;
  /** The file with exactly this name, pending ones included, or `null`. */
  getByName(name: string): Promise<FileRecord | null>;
  /**
   * Up to `limit` files (pending ones included) whose names start with
   * `prefix`, in code-point order of name (extensionless links).
   */
  namedWithPrefix(prefix: string, limit: number): Promise<FileRecord[]>;
  /**
   * Corrects a complete file's size to what its bytes measure, moving its
   * owner's byte count by the difference in the same atomic step (no quota
   * check: the bytes are already stored). `null` when there is no such
   * complete file.
   */
  resize(id: string, size: number, now: Date): Promise<FileRecord | null>;
  /** Applies `patch`, bumping `updatedAt`; `null` when missing; {@link UniqueError} on a taken name. */
  update(id: string, patch: FilePatch, now: Date): Promise<FileRecord | null>;
  /** Removes the record and uncounts it; returns it, or `null` when missing. */
  delete(id: string): Promise<FileRecord | null>;
  /**
   * Removes the records of `ids` (missing ones passed over) and uncounts
   * them, a few hundred at most per atomic step (a transaction on
   * PostgreSQL; on Deno KV as many as one atomic operation holds), so a bulk
   * delete costs a few writes per batch rather than per file; returns the
   * records removed, for their bytes.
   */
  deleteMany(ids: string[]): Promise<FileRecord[]>;
  /** The records of those of `ids` that exist (pending ones included), in no set order. */
  getMany(ids: string[]): Promise<FileRecord[]>;
  /** Up to `limit` of the files `which` names ({@link FileCandidates}), from their index. */
  candidates(which: FileCandidates, limit: number): Promise<FileRecord[]>;
  /** One page of a user's complete files. */
  list(query: FileQuery): Promise<FilePage>;
  /** Every file of a user (pending ones included), oldest first. */
  listByUser(userId: string): Promise<FileRecord[]>;
  /** Keeps a user's files without an owner (`userId` null) and drops its counters. */
  disown(userId: string): Promise<void>;
  /** What a user's files take up. */
  usage(userId: string): Promise<FileUsage>;
  /**
   * Totals over a user's complete files (`null`: the files without an owner),
   * read from counters that every write of a file moves in the same atomic
   * step (issue #32): no file is read.
   */
  stats(userId: string | null): Promise<FileStats>;
  /**
   * One pass of a recount of {@link stats}' counters of `userId` from its
   * records, reading at most `budget` of them (the progress is kept in the
   * store between passes); when the recount ends, sets right every counter
   * that disagrees with the records and that no write moved meanwhile.
   */
  recountStats(userId: string | null, budget: number): Promise<StatsRecount>;
  /**
   * Counts one view unless the file is pending, missing, or already at its
   * `maxViews`; atomic, so concurrent viewers never pass `maxViews`.
   */
  addView(id: string): Promise<ViewResult>;
  /**
   * Up to `take` complete files, most viewed first, ties by name (code
   * points): the rule of {@link mostViewedOf}, read from an index (issue
   * #32: the viewed files' index, then the unviewed ones by name only when
   * fewer than `take` were ever viewed), never from a pass over every file.
   */
  mostViewed(take: number): Promise<FileRecord[]>;
  /** Records at `now` that `key` may read file `fileId` until `expiresAt`. */
  grantAccess(fileId: string, key: string, expiresAt: Date, now: Date): Promise<void>;
  /** Whether an unexpired grant of `key` for `fileId` exists at `now`. */
  hasAccess(fileId: string, key: string, now: Date): Promise<boolean>;
  /**
   * Every file, pending ones included, read a page at a time (exports), in id
   * order (the store's own); with `after`, those whose id comes after it (a
   * background task's next turn).
   */
  iterate(after?: string): AsyncIterable<FileRecord>;
}

/**
 * Files as the service reads them: a {@link FileStore} behind the serving
 * store (`cached_files.ts`), which adds public serving's cached name lookup
 * (and, where the backend lists by reading every file, cached lists).
 */
export interface ServingFileStore extends FileStore {
  /**
   * The file with exactly this name, as {@link FileStore.getByName} answered
   * it at most a second ago (or since the last write through this store);
   * its `views` may lag behind.
   */
  resolve(name: string): Promise<FileRecord | null>;
  /**
   * {@link resolve}'s answer when it is cached and settled, without a
   * `Promise`; `undefined` when the name must be looked up.
   */
  resolveCached(name: string): FileRecord | null | undefined;
}

/**
 * Applies a {@link FileQuery} to records in memory, with the order PostgreSQL
 * gives: nulls last in both directions, ties broken by id, code-point order.
 */
export function queryFiles(records: FileRecord[], q: FileQuery): FilePage {
  const needle = q.search?.query.toLowerCase();
  const ids = q.ids && new Set(q.ids);
  const matches = records.filter((f) =>
    !f.pending && f.userId === q.userId &&
    (q.favorite === undefined || f.favorite === q.favorite) &&
    (q.private === undefined || (f.private === true) === q.private) &&
    (q.folderId === undefined || f.folderId === q.folderId) &&
    (ids === undefined || ids.has(f.id)) &&
    (!q.typePrefixes || q.typePrefixes.some((p) => f.type.startsWith(p))) &&
    (needle === undefined || (f[q.search!.field] ?? "").toLowerCase().includes(needle))
  );
  const direction = q.order === "asc" ? 1 : -1;
  matches.sort((a, b) => {
    const x = sortValue(a, q.sortBy);
    const y = sortValue(b, q.sortBy);
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * direction;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
  return { files: matches.slice(q.offset, q.offset + q.limit), total: matches.length };
}

function sortValue(f: FileRecord, key: FileSortKey): string | number | null {
  const value = f[key];
  if (value instanceof Date) return value.getTime();
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}

/**
 * {@link FileStore.mostViewed}'s rule over records in memory (for checks and
 * tests): complete files, views descending, then names in code-point order
 * (PostgreSQL's `COLLATE "C"`, Deno KV's key order), the first `take`.
 */
export function mostViewedOf(records: FileRecord[], take: number): FileRecord[] {
  return records.filter((f) => !f.pending).sort(byViews).slice(0, take);
}

/** {@link mostViewedOf}'s order: views descending, then names in code-point order. */
export function byViews(a: FileRecord, b: FileRecord): number {
  return b.views - a.views || compareCodePoints(a.name, b.name);
}

/** `a` against `b` by code points (UTF-8 bytes: Deno KV's order), not UTF-16 code units. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}
