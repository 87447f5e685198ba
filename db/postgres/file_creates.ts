/**
 * Uploads' creates on PostgreSQL, group-committed (issue #31): those that
 * arrive while a statement is in flight go together in the next
 * (`../coalesce.ts`), one statement per owner, which counts the group in the
 * owner's usage and inserts its rows. Per statement, PostgreSQL opens and
 * checks every index of `files` (partial ones prepare their predicate),
 * runs the statement trigger of the counters (migration 041) and commits:
 * alone, that was about two thirds of an upload's database CPU; shared by a
 * group of 8, a file costs about a third of it (bench/results/uploads_paired.md).
 *
 * The statement stores the whole group or nothing: it counts the group only
 * when each of its files, in arrival order, stays within its own limits
 * after those before it, and a taken name or id fails it whole. When it
 * stores nothing, each create is done again alone, in order, so each is
 * answered (stored, {@link QuotaError} by `alone`, `UniqueError`) as it
 * would be alone.
 */
import type { Sql } from "postgres";
import type { FileLimits, FileRecord } from "../files.ts";
import { Coalescer, groupBy } from "../coalesce.ts";

/** The most creates one statement stores. */
const MAX_GROUP = 12;

/** One create, as `FileStore.create` was asked it (an owned file). */
export interface Create {
  file: FileRecord;
  limits: FileLimits;
}

/** What became of one create: nothing to say, or what it throws. */
type Outcome = { error?: unknown };

/**
 * How much room `creates` (one owner's, in arrival order) need in the
 * owner's usage: each file must stay within its limits after those before
 * it, so the usage before the group may be at most `maxFiles - i` files and
 * `maxBytes - bytes of files 1..i` for every `i` (`null`: no such limit).
 */
export function groupRoom(creates: Create[]): { files: number | null; bytes: number | null } {
  let files: number | null = null;
  let bytes: number | null = null;
  let sum = 0;
  creates.forEach(({ file, limits }, i) => {
    sum += file.size;
    if (limits.maxFiles !== null) files = Math.min(files ?? Infinity, limits.maxFiles - (i + 1));
    if (limits.maxBytes !== null) bytes = Math.min(bytes ?? Infinity, limits.maxBytes - sum);
  });
  return { files, bytes };
}

/** Owned files' creates, group-committed per owner. */
export class GroupedCreates {
  readonly #coalescer = new Coalescer<Create, Outcome>(
    (creates) => this.#flush(creates),
    MAX_GROUP,
  );

  /**
   * @param sql the store's pool (never a transaction: a failed group statement would abort it)
   * @param row a file's row as JSON (every column of `files`)
   * @param alone one create in its own statement, throwing as `FileStore.create`
   */
  constructor(
    private readonly sql: Sql,
    private readonly row: (file: FileRecord) => Record<string, unknown>,
    private readonly alone: (file: FileRecord, limits: FileLimits) => Promise<void>,
  ) {}

  /** Stores `file` (owned), counted against `limits`, with the creates arriving meanwhile. */
  async create(file: FileRecord, limits: FileLimits): Promise<void> {
    const outcome = await this.#coalescer.run({ file, limits });
    if ("error" in outcome) throw outcome.error;
  }

  /** Each owner's creates of a batch, the owners at once. */
  async #flush(creates: Create[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = new Array(creates.length);
    const owners = groupBy(creates, (c) => c.file.userId!);
    await Promise.all([...owners.values()].map(async (indexes) => {
      const group = indexes.map((i) => creates[i]);
      if (group.length > 1 && await this.#together(group)) {
        for (const i of indexes) outcomes[i] = {};
        return;
      }
      for (const i of indexes) {
        try {
          await this.alone(creates[i].file, creates[i].limits);
          outcomes[i] = {};
        } catch (error) {
          outcomes[i] = { error };
        }
      }
    }));
    return outcomes;
  }

  /**
   * One statement for one owner's `group` ({@link insertCounted}); `false`
   * when it stored nothing (a limit, a taken name or id, any other error,
   * which each create alone then meets again).
   */
  async #together(group: Create[]): Promise<boolean> {
    try {
      return await insertCounted(this.sql, group, this.row);
    } catch {
      return false;
    }
  }
}

/**
 * One statement for one owner's `creates` (in arrival order): counts them in
 * the owner's usage when they fit ({@link groupRoom}) and inserts their rows
 * only then. Whether it stored them (`false`: a limit); a taken name or id
 * fails it whole, the count included (it throws).
 */
export async function insertCounted(
  sql: Sql,
  creates: Create[],
  row: (file: FileRecord) => Record<string, unknown>,
): Promise<boolean> {
  const owner = creates[0].file.userId!;
  const room = groupRoom(creates);
  const bytes = creates.reduce((sum, c) => sum + c.file.size, 0);
  // Every column comes from `row`: one it lacks would be NULL here, not its default.
  const json = JSON.stringify(creates.map((c) => row(c.file)));
  const [result] = await sql<{ added: boolean }[]>`
    WITH counted AS (
      INSERT INTO file_usage AS u (user_id, bytes, files)
      SELECT ${owner}, ${bytes}::bigint, ${creates.length}::int
      WHERE (${room.files}::int IS NULL OR 0 <= ${room.files}::int)
        AND (${room.bytes}::bigint IS NULL OR 0 <= ${room.bytes}::bigint)
      ON CONFLICT (user_id) DO UPDATE
        SET bytes = u.bytes + EXCLUDED.bytes, files = u.files + EXCLUDED.files
        WHERE (${room.files}::int IS NULL OR u.files <= ${room.files}::int)
          AND (${room.bytes}::bigint IS NULL OR u.bytes <= ${room.bytes}::bigint)
      RETURNING 1
    ), inserted AS (
      INSERT INTO files
      SELECT * FROM json_populate_recordset(NULL::files, ${json}::text::json)
      WHERE EXISTS (SELECT 1 FROM counted)
      RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM inserted) AS added`;
  return result.added;
}
