/**
 * Files on PostgreSQL. The usage row of the owner is updated first in each
 * transaction, which locks it: concurrent uploads of one user queue there, and
 * a limit check that fails rolls the whole change back.
 */
import type { PendingQuery, Row, Sql, TransactionSql } from "postgres";
import {
  countFromStats,
  type FileCandidates,
  type FileLimits,
  type FilePage,
  type FilePatch,
  type FileQuery,
  type FileRecord,
  type FileSearchField,
  type FileSortKey,
  type FileStats,
  type FileStore,
  type FileUsage,
  QuotaError,
  type ViewResult,
} from "../files.ts";
import { type BlockRead, nameBlockRead } from "./file_name_blocks.ts";
import { groupReads, listedOrder, type OrderGroup, orderGroups } from "./file_order_groups.ts";
import { blockStart, fromBlock, startsFromBlocks } from "./file_time_blocks.ts";
import { addTagSums, endTagRecount, startTagRecount, tagCount } from "./tag_counts.ts";
import { byTagLinks, countLinks, type ListSource, tagLinks } from "./tag_pages.ts";
import { uniqueViolation } from "./unique.ts";
import { GroupedCreates, insertCounted } from "./file_creates.ts";

interface FileRow {
  id: string;
  name: string;
  original_name: string | null;
  size: string | number;
  type: string;
  views: number;
  max_views: number | null;
  favorite: boolean;
  password: string | null;
  anonymous: boolean;
  user_id: string | null;
  folder_id: string | null;
  deletes_at: Date | null;
  thumbnail: string | null;
  uploader_name: string | null;
  pending: boolean;
  private: boolean;
  created_at: Date;
  updated_at: Date;
}

/** A row of `file_counts` (bigint columns come as strings). */
interface CountRow {
  type: string;
  files: string;
  favorites: string;
  views: string;
  bytes: string;
}

const toFile = (r: FileRow): FileRecord => ({
  id: r.id,
  name: r.name,
  originalName: r.original_name,
  size: Number(r.size),
  type: r.type,
  views: r.views,
  maxViews: r.max_views,
  favorite: r.favorite,
  password: r.password,
  anonymous: r.anonymous,
  userId: r.user_id,
  folderId: r.folder_id,
  deletesAt: r.deletes_at,
  ...(r.thumbnail === null ? {} : { thumbnail: r.thumbnail }),
  ...(r.uploader_name === null ? {} : { uploaderName: r.uploader_name }),
  pending: r.pending,
  ...(r.private ? { private: true } : {}),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The row of `file`, for an INSERT. */
const toRow = (file: FileRecord) => ({
  id: file.id,
  name: file.name,
  original_name: file.originalName,
  size: file.size,
  type: file.type,
  views: file.views,
  max_views: file.maxViews,
  favorite: file.favorite,
  password: file.password,
  anonymous: file.anonymous,
  user_id: file.userId,
  folder_id: file.folderId,
  deletes_at: file.deletesAt,
  thumbnail: file.thumbnail ?? null,
  uploader_name: file.uploaderName ?? null,
  pending: file.pending,
  private: file.private === true,
  created_at: file.createdAt,
  updated_at: file.updatedAt,
});

/** Files one statement of {@link PostgresFiles.deleteMany} removes. */
const DELETE_BATCH = 500;

/** Rows bulk inserts add before {@link PostgresFiles} considers refreshing the planner's statistics. */
const ANALYZE_AFTER = 10_000;

/** The most matches of a search whose page and count {@link PostgresFiles} takes from one read. */
const FEW_MATCHES = 1000;

/** Rows one INSERT of `createMany` carries (as one array a column). */
const ROWS_PER_INSERT = 1000;

const COLUMNS: Record<keyof FilePatch, string> = {
  name: "name",
  originalName: "original_name",
  type: "type",
  maxViews: "max_views",
  favorite: "favorite",
  password: "password",
  anonymous: "anonymous",
  folderId: "folder_id",
  deletesAt: "deletes_at",
  thumbnail: "thumbnail",
  private: "private",
};

/**
 * Each sort key's column, and for the `NOT NULL` ones with one index for both
 * directions (migration 040) that index's direction (`shared`) and whether
 * the column is unique (no tie to break by id). The others have an index per
 * direction, nulls last.
 */
const SORT_COLUMNS: Record<
  FileSortKey,
  { column: string; shared?: "ASC" | "DESC"; unique?: true }
> = {
  id: { column: `id COLLATE "C"`, shared: "ASC", unique: true },
  createdAt: { column: "created_at", shared: "DESC" },
  updatedAt: { column: "updated_at", shared: "ASC" },
  deletesAt: { column: "deletes_at" },
  name: { column: `name COLLATE "C"`, shared: "ASC", unique: true },
  originalName: { column: `original_name COLLATE "C"` },
  size: { column: "size", shared: "ASC" },
  type: { column: `type COLLATE "C"` },
  views: { column: "views" },
  favorite: { column: "favorite" },
};

/**
 * The `ORDER BY` of `key` in `direction`, ties by id ascending, nulls last;
 * `reversed`: that order exactly backwards (nulls and ties included). A key
 * of a `NOT NULL` column with one shared index names its nulls where that
 * index read in `direction` has them (no row has one, so the order is the
 * same), so that the planner reads the index backwards, an incremental sort
 * putting ties in id order; a unique key has no ties to order.
 */
export function sortOrder(key: FileSortKey, direction: "asc" | "desc", reversed: boolean) {
  const { column, shared, unique } = SORT_COLUMNS[key];
  const asc = (direction === "asc") !== reversed;
  const dir = asc ? "ASC" : "DESC";
  const nullsLast = shared === undefined ? !reversed : dir === shared;
  const first = `${column} ${dir} NULLS ${nullsLast ? "LAST" : "FIRST"}`;
  return unique ? first : `${first}, id COLLATE "C"${reversed ? " DESC" : ""}`;
}

const SEARCH_COLUMNS = { name: "name", originalName: "original_name", type: "type", id: "id" };

/**
 * A search's condition: the column, lower-cased, contains the query,
 * lower-cased. For the fields with a trigram index (migration 029) it is the
 * index's expression `LIKE` the query between `%`s, with `^` (the escape),
 * `%` and `_` escaped, which matches exactly what `position(…) > 0` matches (a missing
 * original name matches nothing, as the empty string did: the query is never
 * empty); the id keeps `position`.
 */
export function searchCondition(sql: Sql, search: { field: FileSearchField; query: string }) {
  const column = sql.unsafe(SEARCH_COLUMNS[search.field]);
  if (search.field === "id") return sql`position(lower(${search.query}) in lower(${column})) > 0`;
  const needle = sql`replace(replace(replace(lower(${search.query}), '^', '^^'), '%', '^%'),
    '_', '^_')`;
  return sql`lower(${column}) LIKE ('%' || ${needle} || '%') ESCAPE '^'`;
}

/**
 * The first `take` viewed complete files, most viewed first, ties by name in
 * code points (`FileStore.mostViewed`), from their index (migration 046).
 */
export function mostViewedQuery(sql: Sql, take: number) {
  return sql<FileRow[]>`
    SELECT * FROM files WHERE views > 0 AND NOT pending
    ORDER BY views DESC, name COLLATE "C" LIMIT ${take}`;
}

/**
 * The first `take` unviewed complete files by name in code points, when fewer
 * than `mostViewed`'s page were ever viewed: the first ones of each owner's
 * name order (migration 028's index; at most `take - 1` viewed files to pass
 * over in all) and of the files without an owner, merged.
 */
export function unviewedQuery(sql: Sql, take: number) {
  const unviewed = sql`views = 0 AND NOT pending ORDER BY name COLLATE "C" LIMIT ${take}`;
  return sql<FileRow[]>`
    SELECT * FROM (
      SELECT f.* FROM users u
        CROSS JOIN LATERAL (SELECT * FROM files WHERE user_id = u.id AND ${unviewed}) f
      UNION ALL
      (SELECT * FROM files WHERE user_id IS NULL AND ${unviewed})
    ) t ORDER BY name COLLATE "C" LIMIT ${take}`;
}

/**
 * The query of `FileStore.candidates`: each kind reads its own index, and no
 * other file (partial indexes of migrations 005 and 033; a user's files,
 * `files_user_id_created_at`; a folder's, 028's `files_list_folder` and the
 * pending files' `files_abandoned`).
 */
export function candidatesQuery(sql: Sql, which: FileCandidates, limit: number) {
  switch (which.kind) {
    case "expired":
      return sql<FileRow[]>`SELECT * FROM files
        WHERE deletes_at IS NOT NULL AND deletes_at <= ${which.by} AND NOT pending
        ORDER BY deletes_at LIMIT ${limit}`;
    case "exhausted":
      return sql<FileRow[]>`SELECT * FROM files
        WHERE max_views IS NOT NULL AND views >= max_views AND NOT pending
        ORDER BY id COLLATE "C" LIMIT ${limit}`;
    case "abandoned":
      return sql<FileRow[]>`SELECT * FROM files
        WHERE pending AND updated_at < ${which.by} ORDER BY updated_at LIMIT ${limit}`;
    case "thumbnailed":
      return sql<FileRow[]>`SELECT * FROM files
        WHERE thumbnail IS NOT NULL AND id COLLATE "C" > ${which.after ?? ""}
        ORDER BY id COLLATE "C" LIMIT ${limit}`;
    case "owned":
      return sql<FileRow[]>`SELECT * FROM files WHERE user_id = ${which.userId}
        ORDER BY created_at LIMIT ${limit}`;
    case "foldered":
      // The folder's complete files from its list index, then its pending ones among all pending.
      return sql<FileRow[]>`(SELECT * FROM files WHERE folder_id = ${which.folderId}
          AND user_id = ${which.userId} AND folder_id IS NOT NULL AND NOT pending)
        UNION ALL (SELECT * FROM files WHERE pending AND folder_id = ${which.folderId}
          AND user_id = ${which.userId})
        LIMIT ${limit}`;
  }
}

/**
 * The condition of a {@link FileQuery}: the owner's complete files that its
 * filters keep. Booleans are literals, not parameters, so that a generic
 * plan still proves the partial indexes' conditions (`favorite`, migrations
 * 028 and 034).
 */
export function listConditions(sql: Sql, q: FileQuery): PendingQuery<Row[]> {
  const conditions = [sql`user_id = ${q.userId}`, sql`NOT pending`];
  if (q.favorite !== undefined) {
    conditions.push(sql.unsafe(q.favorite ? "favorite" : "NOT favorite"));
  }
  if (q.private !== undefined) conditions.push(sql.unsafe(q.private ? "private" : "NOT private"));
  if (q.folderId !== undefined) conditions.push(sql`folder_id = ${q.folderId}`);
  if (q.ids !== undefined) conditions.push(sql`id = ANY(${q.ids})`);
  // The tag filter: each tag's link (its primary key, or migration 038's index from the tag).
  for (const tagId of new Set(q.tagIds ?? [])) {
    conditions.push(
      sql`EXISTS (SELECT 1 FROM file_tags WHERE file_id = files.id AND tag_id = ${tagId})`,
    );
  }
  if (q.typePrefixes) {
    const patterns = q.typePrefixes.map((p) => p.replace(/[\\%_]/g, "\\$&") + "%");
    conditions.push(sql`type LIKE ANY(${patterns})`);
  }
  if (q.search) conditions.push(searchCondition(sql, q.search));
  return conditions.reduce((all, c) => sql`${all} AND ${c}`);
}

/**
 * The query of `q`'s page (`null`: past the end), `total` matching when
 * known. A page is an index scan of its order (migrations 019, 028, 034)
 * that stops at the page, not a sort of every match. Past the first page
 * (and for a `source` other than the owner's files: a tag's links,
 * `./tag_pages.ts`), the ids before it are skipped in the index alone (an
 * index-only scan) and only the page's rows are read; past the middle
 * (`backwards`), the index is read from the end (the order reversed, nulls
 * and ties included: reverse the rows), so that no page skips more than
 * half the matches.
 */
export function listPageQuery(
  sql: Sql,
  q: FileQuery,
  total: number | undefined,
  source?: ListSource,
) {
  const fromEnd = total === undefined ? -1 : total - q.offset - q.limit;
  const backwards = total !== undefined && q.offset > 0 && fromEnd < q.offset;
  const order = sql.unsafe(sortOrder(q.sortBy, q.order, backwards));
  const limit = backwards ? q.limit + Math.min(0, fromEnd) : q.limit;
  const offset = backwards ? Math.max(0, fromEnd) : q.offset;
  const { from, where } = source ?? { from: sql`files`, where: listConditions(sql, q) };
  const query = limit <= 0
    ? null
    : offset === 0 && !source
    ? sql<FileRow[]>`SELECT * FROM files WHERE ${where} ORDER BY ${order} LIMIT ${limit}`
    : sql<FileRow[]>`SELECT files.* FROM (SELECT id FROM ${from} WHERE ${where}
        ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}) AS page
      JOIN files USING (id) ORDER BY ${order}`;
  return { query, backwards };
}

/**
 * The query of `q`'s page of an order read as two groups of `sizes`
 * (`./file_order_groups.ts`; `null`: past the end): each group's part of the
 * page from its own index, the page's rows then put in the list's order.
 */
export function groupPageQuery(
  sql: Sql,
  q: FileQuery,
  groups: OrderGroup[],
  sizes: [number, number],
) {
  const where = listConditions(sql, q);
  const reads = groupReads(sizes, q.offset, q.limit);
  if (reads.length === 0) return null;
  const parts = reads.map(({ group, offset, limit, reversed }) => {
    const g = groups[group];
    const order = sql.unsafe(sortOrder(g.sortBy, g.order, reversed));
    return sql`(SELECT id FROM files WHERE ${where} AND ${sql.unsafe(g.condition)}
      ORDER BY ${order} LIMIT ${limit} OFFSET ${offset})`;
  });
  const page = parts.reduce((all, part) => sql`${all} UNION ALL ${part}`);
  return sql<FileRow[]>`SELECT files.* FROM (${page}) AS page
    JOIN files USING (id) ORDER BY ${sql.unsafe(sortOrder(q.sortBy, q.order, false))}`;
}

/** `files`' columns with the type each is sent as, in {@link toRow}'s order. */
const ROW_TYPES: Record<keyof ReturnType<typeof toRow>, string> = {
  id: "text",
  name: "text",
  original_name: "text",
  size: "bigint",
  type: "text",
  views: "integer",
  max_views: "integer",
  favorite: "boolean",
  password: "text",
  anonymous: "boolean",
  user_id: "text",
  folder_id: "text",
  deletes_at: "timestamptz",
  thumbnail: "text",
  uploader_name: "text",
  pending: "boolean",
  private: "boolean",
  created_at: "timestamptz",
  updated_at: "timestamptz",
};

/** A value of a row as the text of an array element (`null` stays `NULL`). */
const asText = (value: string | number | boolean | Date | null) =>
  value === null ? null : value instanceof Date ? value.toISOString() : String(value);

/**
 * Inserts `files` in one statement of one array parameter per column
 * (`unnest`): 19 parameters whatever the number of rows, so that the server
 * parses and plans one short statement, not one of a parameter per value.
 */
async function insertRows(tx: TransactionSql, files: FileRecord[]) {
  const rows = files.map(toRow);
  const columns = Object.keys(ROW_TYPES) as (keyof typeof ROW_TYPES)[];
  const arrays = columns.map((c) =>
    tx`${rows.map((r) => asText(r[c]))}::text[]::${tx.unsafe(ROW_TYPES[c])}[]`
  );
  const list = arrays.reduce((all, a) => tx`${all}, ${a}`);
  await tx`INSERT INTO files (${tx.unsafe(columns.join(", "))}) SELECT * FROM unnest(${list})`;
}

/** The field a violated unique constraint of `files` guards: its name, or else its id. */
const fileField = (constraint: string | undefined) =>
  constraint === "files_name_key" ? "name" : "id";

/** {@link FileStore} on PostgreSQL. */
export class PostgresFiles implements FileStore {
  /** Rows {@link createMany} added since this store last had `files` analyzed. */
  private unanalyzed = 0;

  /** Owned files' creates, group-committed (`./file_creates.ts`); not in a transaction. */
  private readonly grouped: GroupedCreates | null;

  /** `grouped`: group-commit owned files' creates (the store's pool, not a transaction's view). */
  constructor(private readonly sql: Sql, grouped = false) {
    this.grouped = grouped
      ? new GroupedCreates(sql, toRow, (file, limits) => this.createAlone(file, limits))
      : null;
  }

  async create(file: FileRecord, limits: FileLimits): Promise<void> {
    if (file.userId === null) {
      try {
        await this.sql`INSERT INTO files ${this.sql(toRow(file))}`;
      } catch (error) {
        throw uniqueViolation(error, fileField);
      }
    } else if (this.grouped) await this.grouped.create(file, limits);
    else await this.createAlone(file, limits);
  }

  /** {@link create} of an owned file in its own statement (`./file_creates.ts`). */
  private async createAlone(file: FileRecord, limits: FileLimits): Promise<void> {
    let added: boolean;
    try {
      added = await insertCounted(this.sql, [{ file, limits }], toRow);
    } catch (error) {
      throw uniqueViolation(error, fileField);
    }
    if (!added) throw await this.refusal(file.userId!, 1, limits);
  }

  async createMany(files: FileRecord[]) {
    const usage = new Map<string, { user_id: string; bytes: number; files: number }>();
    for (const f of files) {
      if (f.userId === null) continue;
      const row = usage.get(f.userId) ?? { user_id: f.userId, bytes: 0, files: 0 };
      row.bytes += f.size;
      row.files++;
      usage.set(f.userId, row);
    }
    try {
      await this.sql.begin(async (tx) => {
        for (let i = 0; i < files.length; i += ROWS_PER_INSERT) {
          await insertRows(tx, files.slice(i, i + ROWS_PER_INSERT));
        }
        if (usage.size === 0) return;
        await tx`INSERT INTO file_usage ${tx([...usage.values()])}
          ON CONFLICT (user_id) DO UPDATE
          SET bytes = file_usage.bytes + EXCLUDED.bytes, files = file_usage.files + EXCLUDED.files`;
      });
    } catch (error) {
      throw uniqueViolation(error, fileField);
    }
    await this.analyzeAfter(files.length);
  }

  /**
   * Has PostgreSQL take its planner statistics of `files` again (and, out of
   * a transaction, vacuum it) once bulk inserts (imports) added a fifth of the
   * rows it last counted, and at least {@link ANALYZE_AFTER}: right after a
   * large import, before autovacuum's next round, a planner without them
   * sorts every file for a deep page (665 ms at 100,000 files, measured) or
   * scans an owner's whole list for a rare name (116 ms). `ANALYZE` reads a
   * bounded sample (30,000 rows) whatever the size; the vacuum reads the new
   * pages; an import of a million files runs them a few dozen times, mostly
   * while small. They are a real part of an import's server CPU (30 % of a
   * 40,000-file import's, perf), but a step of the whole count instead of a
   * fifth (7 runs at a million, not 21) saved only 4 % at 200,000 files and
   * left the pages read right after the import slower (a deep page by name
   * 30 → 85 ms, one folder's first 34 → 123 ms): kept at a fifth.
   */
  private async analyzeAfter(rows: number) {
    this.unanalyzed += rows;
    if (this.unanalyzed < ANALYZE_AFTER) return;
    const [{ counted }] = await this.sql<{ counted: number }[]>`
      SELECT greatest(reltuples, 0)::float8 AS counted FROM pg_class
      WHERE oid = 'files'::regclass`;
    if (this.unanalyzed < counted / 5) return;
    this.unanalyzed = 0;
    // Inside a transaction (an import's), statistics only; else VACUUM too, which marks the
    // new rows' pages all-visible, so that a deep page's index-only scan reads no row (with
    // statistics but without it, the planner sorts every file for a deep page: 487 ms at
    // 100,000, measured).
    const inTransaction = typeof (this.sql as unknown as { savepoint?: unknown }).savepoint ===
      "function";
    await this.sql.unsafe(inTransaction ? "ANALYZE files" : "VACUUM (ANALYZE) files");
  }

  async takenNames(names: string[]) {
    if (names.length === 0) return new Set<string>();
    const rows = await this.sql<{ name: string }[]>`
      SELECT name FROM files WHERE name IN ${this.sql(names)}`;
    return new Set(rows.map((r) => r.name));
  }

  async complete(id: string, size: number, limits: FileLimits, now: Date) {
    // One statement, as `create`: lock the pending row, count the bytes it adds unless that
    // passes a limit, and complete the row only when they were counted (or it has no owner).
    const { maxFiles, maxBytes } = limits;
    const [row] = await this.sql<(Partial<FileRow> & { found: boolean; owner: string | null })[]>`
      WITH old AS (
        SELECT id, size, user_id FROM files WHERE id = ${id} AND pending FOR UPDATE
      ), counted AS (
        INSERT INTO file_usage AS u (user_id, bytes, files)
        SELECT old.user_id, ${size}::bigint - old.size, 0 FROM old
        WHERE old.user_id IS NOT NULL
          AND (${maxBytes}::bigint IS NULL OR ${size}::bigint - old.size <= ${maxBytes}::bigint)
        ON CONFLICT (user_id) DO UPDATE SET bytes = u.bytes + EXCLUDED.bytes
          WHERE (${maxFiles}::int IS NULL OR u.files <= ${maxFiles}::int)
            AND (${maxBytes}::bigint IS NULL OR u.bytes + EXCLUDED.bytes <= ${maxBytes}::bigint)
        RETURNING 1
      ), done AS (
        UPDATE files AS f SET size = ${size}, pending = false, updated_at = ${now}
        FROM old WHERE f.id = old.id AND (old.user_id IS NULL OR EXISTS (SELECT 1 FROM counted))
        RETURNING f.*
      )
      SELECT EXISTS (SELECT 1 FROM old) AS found, (SELECT user_id FROM old) AS owner, done.*
      FROM (VALUES (1)) AS one LEFT JOIN done ON true`;
    if (!row.found) return null;
    if (row.id === null || row.id === undefined) throw await this.refusal(row.owner!, 0, limits);
    return toFile(row as FileRow);
  }

  /**
   * The {@link QuotaError} of a refused write that would have added `files`
   * files to `userId`'s usage: the files limit when that is the one it
   * passes, else the bytes limit.
   */
  private async refusal(userId: string, files: number, limits: FileLimits): Promise<QuotaError> {
    const usage = await this.usage(userId);
    const overFiles = limits.maxFiles !== null && usage.files + files > limits.maxFiles;
    return new QuotaError(overFiles || limits.maxBytes === null ? "files" : "bytes");
  }

  async resize(id: string, size: number, now: Date) {
    return await this.sql.begin(async (tx) => {
      const [file] = await tx<FileRow[]>`
        SELECT * FROM files WHERE id = ${id} AND NOT pending FOR UPDATE`;
      if (!file) return null;
      if (file.user_id !== null) {
        await tx`UPDATE file_usage SET bytes = greatest(0, bytes + ${size - Number(file.size)})
          WHERE user_id = ${file.user_id}`;
      }
      const [row] = await tx<FileRow[]>`
        UPDATE files SET size = ${size}, updated_at = ${now} WHERE id = ${id} RETURNING *`;
      return toFile(row);
    });
  }

  async get(id: string) {
    const [row] = await this.sql<FileRow[]>`SELECT * FROM files WHERE id = ${id}`;
    return row ? toFile(row) : null;
  }

  async getByName(name: string) {
    const [row] = await this.sql<FileRow[]>`SELECT * FROM files WHERE name = ${name}`;
    return row ? toFile(row) : null;
  }

  async namedWithPrefix(prefix: string, limit: number) {
    const rows = await this.sql<FileRow[]>`
      SELECT * FROM files WHERE starts_with(name, ${prefix})
      ORDER BY name COLLATE "C" LIMIT ${limit}`;
    return rows.map(toFile);
  }

  async update(id: string, patch: FilePatch, now: Date) {
    const values: Record<string, unknown> = { updated_at: now };
    for (const [key, value] of Object.entries(patch)) {
      if (value !== undefined) values[COLUMNS[key as keyof FilePatch]] = value;
    }
    try {
      const [row] = await this.sql<FileRow[]>`
        UPDATE files SET ${this.sql(values)} WHERE id = ${id} RETURNING *`;
      return row ? toFile(row) : null;
    } catch (error) {
      throw uniqueViolation(error, fileField);
    }
  }

  /**
   * One statement, as {@link deleteMany}'s: the owner's usage row is locked
   * before the statistics' and blocks' counters (the statement's triggers run
   * at its end), the order every write of a file takes, so that a deletion
   * and a completion of one owner never wait on each other both ways.
   */
  async delete(id: string) {
    const [row] = await this.sql<FileRow[]>`
      WITH gone AS (
        DELETE FROM files WHERE id = ${id} RETURNING *
      ), uncounted AS (
        UPDATE file_usage AS u
        SET bytes = greatest(0, u.bytes - gone.size), files = greatest(0, u.files - 1)
        FROM gone WHERE u.user_id = gone.user_id
        RETURNING 1
      )
      SELECT * FROM gone`;
    return row ? toFile(row) : null;
  }

  /**
   * One statement a batch of {@link DELETE_BATCH}: the rows go and their
   * owners' usage rows are moved by their sums (the statistics' counters by
   * the triggers of migration 027, once for the statement), in the
   * statement's own transaction.
   */
  async deleteMany(ids: string[]) {
    const removed: FileRecord[] = [];
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += DELETE_BATCH) {
      const batch = unique.slice(i, i + DELETE_BATCH);
      const rows = await this.sql<FileRow[]>`
        WITH gone AS (
          DELETE FROM files WHERE id = ANY(${batch}) RETURNING *
        ), uncounted AS (
          UPDATE file_usage AS u
          SET bytes = greatest(0, u.bytes - g.bytes), files = greatest(0, u.files - g.files)
          FROM (SELECT user_id, sum(size) AS bytes, count(*) AS files FROM gone
            WHERE user_id IS NOT NULL GROUP BY user_id) AS g
          WHERE u.user_id = g.user_id
          RETURNING 1
        )
        SELECT * FROM gone`;
      removed.push(...rows.map(toFile));
    }
    return removed;
  }

  async getMany(ids: string[]) {
    if (ids.length === 0) return [];
    const rows = await this.sql<FileRow[]>`SELECT * FROM files WHERE id = ANY(${ids})`;
    return rows.map(toFile);
  }

  /** Each kind read through its index ({@link candidatesQuery}). */
  async candidates(which: FileCandidates, limit: number) {
    return (await candidatesQuery(this.sql, which, limit)).map(toFile);
  }

  async list(query: FileQuery) {
    const sql = this.sql;
    const q = listedOrder(query);
    if (startsFromBlocks(q)) return await this.listFromBlocks(q);
    if (byTagLinks(q)) return await this.listByTags(q);
    // The count first when the owner's counters or a folder's tell it (one small read): a
    // page past the middle is then read from the end of its order, backwards.
    const known = q.total ?? await countFromStats(q, () => this.stats(q.userId)) ??
      await this.folderCount(q);
    if (known === undefined && q.search) {
      const few = await this.fewMatches(q);
      if (few) return few;
    }
    const groups = orderGroups(q);
    if (groups) return await this.listInGroups(q, groups, known);
    const page = listPageQuery(sql, q, known);
    const [rows, total] = await Promise.all([
      page.query ?? [],
      known ?? this.countMatches(q),
    ]);
    return { files: (page.backwards ? rows.reverse() : rows).map(toFile), total };
  }

  /**
   * A list filtered by tags (`./tag_pages.ts`): its count first, from the
   * tag's counter or else from the links, so that a page past the middle is
   * read backwards; then the page, a walk of the links.
   */
  private async listByTags(q: FileQuery): Promise<FilePage> {
    const source = await tagLinks(this.sql, q);
    const total = q.total ?? await tagCount(this.sql, q) ?? await countLinks(this.sql, source);
    const page = listPageQuery(this.sql, q, total, source);
    const rows = await (page.query ?? []);
    return { files: (page.backwards ? rows.reverse() : rows).map(toFile), total };
  }

  /**
   * `q`'s page of an order read as two groups (`./file_order_groups.ts`):
   * the small group's size from the statistics or counted, then each
   * group's part of the page from its own index, the rows put in order.
   */
  private async listInGroups(q: FileQuery, groups: OrderGroup[], known: number | undefined) {
    const sql = this.sql;
    const small = groups.findIndex((g) => g.small);
    const smallCount = async () => {
      const fromStats = groups[small].condition === "favorite"
        ? await countFromStats({ ...q, favorite: true }, () => this.stats(q.userId))
        : undefined;
      if (fromStats !== undefined) return fromStats;
      const [{ n }] = await sql<{ n: string }[]>`SELECT count(*) AS n FROM files
        WHERE ${listConditions(sql, q)} AND ${sql.unsafe(groups[small].condition)}`;
      return Number(n);
    };
    const [total, smallSize] = await Promise.all([known ?? this.countMatches(q), smallCount()]);
    const sizes = groups.map((g) => g.small ? smallSize : Math.max(0, total - smallSize));
    const query = groupPageQuery(sql, q, groups, [sizes[0], sizes[1]]);
    return { files: query ? (await query).map(toFile) : [], total };
  }

  /**
   * How many files a folder's list with no other filter holds, from its
   * counter (migration 044); `undefined` for any other list.
   */
  private async folderCount(q: FileQuery): Promise<number | undefined> {
    if (
      q.folderId === undefined || q.favorite !== undefined || q.private !== undefined ||
      q.typePrefixes !== undefined || q.ids !== undefined || q.tagIds !== undefined ||
      q.search !== undefined
    ) return undefined;
    const [row] = await this.sql<{ files: string }[]>`SELECT files FROM file_folder_counts
      WHERE owner = ${q.userId} AND folder = ${q.folderId}`;
    return row ? Number(row.files) : 0;
  }

  /**
   * A search's page and count from one read of its matches, when they are at
   * most {@link FEW_MATCHES} (`null`: more). A search of a name or an
   * original name reads the trigram index (migration 029), whose common
   * trigrams cost most of the time (70–85 ms for a rare original name among
   * a million, EXPLAIN ANALYZE): the page's query and the count each read it
   * in full, where the few matches, read once, give both. Past that many
   * matches, the planner stops the read early (an index scan of the owner's
   * files, at the limit) and the page and the count are read apart.
   */
  private async fewMatches(q: FileQuery): Promise<FilePage | null> {
    const sql = this.sql;
    const order = sql.unsafe(sortOrder(q.sortBy, q.order, false));
    const rows = await sql<(FileRow & { total: string })[]>`
      WITH matches AS MATERIALIZED (
        SELECT * FROM files WHERE ${listConditions(sql, q)} LIMIT ${FEW_MATCHES + 1}
      )
      SELECT page.*, counted.total FROM (SELECT count(*) AS total FROM matches) AS counted
      LEFT JOIN LATERAL (
        SELECT * FROM matches ORDER BY ${order} LIMIT ${q.limit} OFFSET ${q.offset}
      ) AS page ON true`;
    const total = Number(rows[0].total);
    if (total > FEW_MATCHES) return null;
    return { files: rows.filter((r) => r.id !== null).map(toFile), total };
  }

  /**
   * A deep page of the newest-first or the name order (either way): from the
   * edge of a block (`./file_time_blocks.ts`, `./file_name_blocks.ts`),
   * skipping only files of that block.
   */
  private async listFromBlocks(q: FileQuery) {
    const sql = this.sql;
    const timeRead = async (): Promise<BlockRead | null> => {
      const start = await blockStart(sql, q.userId, q.offset, q.order);
      return start && {
        from: fromBlock(sql, start.block, q.order),
        skip: q.offset - start.before,
        backwards: false,
      };
    };
    const [read, total] = await Promise.all([
      q.sortBy === "name" ? nameBlockRead(sql, q.userId, q.offset, q.limit, q.order) : timeRead(),
      q.total ?? countFromStats(q, () => this.stats(q.userId)).then((n) => n!),
    ]);
    if (read === null) return { files: [], total };
    const order = sql.unsafe(sortOrder(q.sortBy, q.order, read.backwards));
    const rows = await sql<FileRow[]>`SELECT files.* FROM (SELECT id FROM files
        WHERE ${listConditions(sql, q)} AND ${read.from}
        ORDER BY ${order} LIMIT ${q.limit} OFFSET ${read.skip}) AS page
      JOIN files USING (id) ORDER BY ${order}`;
    return { files: (read.backwards ? rows.reverse() : rows).map(toFile), total };
  }

  /**
   * How many files match `q`, counted. A tag's count reads with the random
   * page cost of a database held in memory (`SET LOCAL random_page_cost = 1.1`, in its
   * own transaction): at the default 4 the planner counts a tag's 5,000 files
   * of a million by a sequential scan of every file (750–980 ms, EXPLAIN
   * ANALYZE, load 9), rather than by looking each of the tag's files up by its
   * id (21 ms).
   */
  private async countMatches(q: FileQuery): Promise<number> {
    const count = async (sql: Sql | TransactionSql) => {
      const [{ n }] = await sql<{ n: string }[]>`
        SELECT count(*) AS n FROM files WHERE ${listConditions(this.sql, q)}`;
      return Number(n);
    };
    if (!q.tagIds?.length) return await count(this.sql);
    return await this.sql.begin(async (tx) => {
      await tx`SET LOCAL random_page_cost = 1.1`;
      return await count(tx);
    });
  }

  async listByUser(userId: string) {
    const rows = await this.sql<FileRow[]>`
      SELECT * FROM files WHERE user_id = ${userId} ORDER BY created_at, id`;
    return rows.map(toFile);
  }

  async disown(userId: string) {
    await this.sql.begin(async (tx) => {
      await tx`UPDATE files SET user_id = NULL WHERE user_id = ${userId}`;
      await tx`DELETE FROM file_usage WHERE user_id = ${userId}`;
    });
  }

  async usage(userId: string): Promise<FileUsage> {
    const [row] = await this.sql<{ bytes: string; files: number }[]>`
      SELECT bytes, files FROM file_usage WHERE user_id = ${userId}`;
    return row ? { bytes: Number(row.bytes), files: row.files } : { bytes: 0, files: 0 };
  }

  async stats(userId: string | null): Promise<FileStats> {
    // The counters the triggers of migration 027 keep, one row per type.
    const rows = await this.sql<CountRow[]>`
      SELECT type, files, favorites, views, bytes FROM file_counts WHERE owner = ${userId ?? ""}`;
    const stats: FileStats = { files: 0, favorites: 0, views: 0, bytes: 0, types: {} };
    for (const row of rows) {
      stats.files += Number(row.files);
      stats.favorites += Number(row.favorites);
      stats.views += Number(row.views);
      stats.bytes += Number(row.bytes);
      if (Number(row.files) > 0) stats.types[row.type] = Number(row.files);
    }
    return stats;
  }

  /**
   * One pass of a recount (migration 036): the first of an owner's recount
   * copies its counters' `touched` into `file_recount_sums`; each pass adds
   * up the next `budget` of the owner's complete files in id order (an index
   * scan of `files_list_id_asc`) into those sums, and moves
   * `file_recount_progress` past them; the pass that reads fewer ends it:
   * with the owner's counters locked, it sets right those that disagree with
   * the sums and whose `touched` is the same as when the recount started (no
   * write moved them meanwhile, so their sums are exact), and forgets the
   * recount. A pass locks the owner's progress row, so two processes' passes
   * take turns. The owner's tag counters (migration 045) are recounted along,
   * from the links of the files each pass reads (`./tag_counts.ts`).
   */
  async recountStats(userId: string | null, budget: number) {
    const owner = userId ?? "";
    const ownerIs = userId === null ? this.sql`user_id IS NULL` : this.sql`user_id = ${userId}`;
    const limit = Math.max(1, budget);
    return await this.sql.begin(async (tx) => {
      const started = await tx`INSERT INTO file_recount_progress (owner, after)
        VALUES (${owner}, '') ON CONFLICT (owner) DO NOTHING RETURNING 1`;
      if (started.length > 0) {
        await tx`DELETE FROM file_recount_sums WHERE owner = ${owner}`;
        await tx`INSERT INTO file_recount_sums (owner, type, touched)
          SELECT owner, type, touched FROM file_counts WHERE owner = ${owner}`;
        await startTagRecount(tx, owner);
      }
      const [progress] = await tx<{ after: string }[]>`
        SELECT after FROM file_recount_progress WHERE owner = ${owner} FOR UPDATE`;
      // Gone: another process's pass, waited for, ended the recount.
      if (!progress) return { done: true, repaired: 0, read: 0 };
      const { after } = progress;
      const [{ read, last }] = await tx<{ read: number; last: string | null }[]>`
        WITH chunk AS (
          SELECT id, type, size, favorite, views FROM files
          WHERE ${ownerIs} AND NOT pending AND id COLLATE "C" > ${after}
          ORDER BY id COLLATE "C" LIMIT ${limit}
        ), added AS (
          INSERT INTO file_recount_sums AS s (owner, type, files, bytes, favorites, views)
          SELECT ${owner}, type, count(*), sum(size), count(*) FILTER (WHERE favorite), sum(views)
          FROM chunk GROUP BY type
          ON CONFLICT (owner, type) DO UPDATE SET files = s.files + EXCLUDED.files,
            bytes = s.bytes + EXCLUDED.bytes, favorites = s.favorites + EXCLUDED.favorites,
            views = s.views + EXCLUDED.views
          RETURNING 1
        ), tagged AS (${addTagSums(tx, owner)})
        SELECT count(*)::integer AS read, max(id COLLATE "C") AS last FROM chunk`;
      if (read >= limit) {
        await tx`UPDATE file_recount_progress SET after = ${last!} WHERE owner = ${owner}`;
        return { done: false, repaired: 0, read };
      }
      await tx`SELECT 1 FROM file_counts WHERE owner = ${owner} ORDER BY type FOR UPDATE`;
      const [{ repaired }] = await tx<{ repaired: number }[]>`
        WITH wrong AS (
          SELECT s.type, s.files, s.bytes, s.favorites, s.views
          FROM file_recount_sums s
          LEFT JOIN file_counts c ON c.owner = s.owner AND c.type = s.type
          WHERE s.owner = ${owner} AND c.touched IS NOT DISTINCT FROM s.touched
            AND (s.files, s.bytes, s.favorites, s.views)
              IS DISTINCT FROM (c.files, c.bytes, c.favorites, c.views)
            AND NOT (c.type IS NULL AND s.files = 0 AND s.bytes = 0 AND s.favorites = 0
              AND s.views = 0)
        ), set AS (
          INSERT INTO file_counts AS c (owner, type, files, bytes, favorites, views)
          SELECT ${owner}, type, files, bytes, favorites, views FROM wrong
          ON CONFLICT (owner, type) DO UPDATE SET files = EXCLUDED.files,
            bytes = EXCLUDED.bytes, favorites = EXCLUDED.favorites, views = EXCLUDED.views
          RETURNING 1
        )
        SELECT count(*)::integer AS repaired FROM set`;
      await tx`DELETE FROM file_recount_sums WHERE owner = ${owner}`;
      await tx`DELETE FROM file_recount_progress WHERE owner = ${owner}`;
      return { done: true, repaired: repaired + await endTagRecount(tx, owner), read };
    });
  }

  async addView(id: string): Promise<ViewResult> {
    const [row] = await this.sql<{ id: string }[]>`
      UPDATE files SET views = views + 1
      WHERE id = ${id} AND NOT pending AND (max_views IS NULL OR views < max_views)
      RETURNING id`;
    if (row) return "counted";
    const [exists] = await this.sql`SELECT 1 FROM files WHERE id = ${id} AND NOT pending`;
    return exists ? "exhausted" : "missing";
  }

  /** {@link mostViewedQuery}, then, when short, {@link unviewedQuery}. */
  async mostViewed(take: number) {
    const viewed = await mostViewedQuery(this.sql, take);
    const rest = take - viewed.length;
    const unviewed = rest > 0 ? await unviewedQuery(this.sql, rest) : [];
    return [...viewed, ...unviewed].map(toFile);
  }

  async grantAccess(fileId: string, key: string, expiresAt: Date, now: Date) {
    await this.sql.begin(async (tx) => {
      await tx`DELETE FROM file_access WHERE file_id = ${fileId} AND expires_at < ${now}`;
      await tx`INSERT INTO file_access (file_id, key, expires_at)
        VALUES (${fileId}, ${key}, ${expiresAt})
        ON CONFLICT (file_id, key) DO UPDATE SET expires_at = EXCLUDED.expires_at`;
    });
  }

  async *iterate(after?: string): AsyncIterable<FileRecord> {
    const query = after === undefined
      ? this.sql<FileRow[]>`SELECT * FROM files ORDER BY id`
      : this.sql<FileRow[]>`SELECT * FROM files WHERE id > ${after} ORDER BY id`;
    for await (const rows of query.cursor(500)) {
      yield* rows.map(toFile);
    }
  }

  async hasAccess(fileId: string, key: string, now: Date) {
    const [row] = await this.sql`SELECT 1 FROM file_access
      WHERE file_id = ${fileId} AND key = ${key} AND expires_at > ${now}`;
    return row !== undefined;
  }
}

/**
 * Adds `bytes` and `files` to the user's counters (locking its row until the
 * transaction ends); throws {@link QuotaError}, rolling back, past a limit.
 * Chunked uploads reserve with it too (`./chunks.ts`).
 */
export async function count(
  tx: TransactionSql,
  userId: string,
  bytes: number,
  files: number,
  limits: FileLimits,
): Promise<void> {
  const [usage] = await tx<{ bytes: string; files: number }[]>`
    INSERT INTO file_usage (user_id, bytes, files) VALUES (${userId}, ${bytes}, ${files})
    ON CONFLICT (user_id) DO UPDATE
      SET bytes = file_usage.bytes + EXCLUDED.bytes, files = file_usage.files + EXCLUDED.files
    RETURNING bytes, files`;
  if (limits.maxFiles !== null && usage.files > limits.maxFiles) throw new QuotaError("files");
  if (limits.maxBytes !== null && Number(usage.bytes) > limits.maxBytes) {
    throw new QuotaError("bytes");
  }
}
