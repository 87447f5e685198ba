/**
 * Block counts of the files list's newest-first order (issue #32), so that a
 * deep page of `GET /api/user/files` (the default order, either direction)
 * finds where it starts from a few hundred small counters instead of
 * skipping every index entry before it (300,000 of them at page 20,000).
 * `file_time_blocks` counts, per owner, the complete files whose `created_at`
 * falls in each block of time: level 0, blocks of 2^26 µs (about 67 s);
 * level 1, of 2^34 µs (256 of those, about 4.8 hours). `PostgresFiles.list`
 * sums the coarse blocks in the page's order to the one the page starts in,
 * then that block's fine ones, and reads the page from the index
 * (migration 019's) from the fine block's edge on.
 *
 * The counters move in the statement that writes the files, in migration
 * 036's trigger functions (made again here with the blocks' step), whatever
 * writes them (an upload, an import's bulk insert, a completion, a deletion,
 * an owner's deletion setting `user_id` to NULL); counters that reach 0 stay,
 * as 0. The files already there are counted here, in this migration's
 * transaction (as migration 027's counters were).
 */

/** The change a statement makes to the file statistics (migration 036's). */
const counted = (rows: string, sign: "" | "-") => `
    SELECT coalesce(user_id, '') AS owner, type, ${sign}count(*) AS files,
      ${sign}sum(size) AS bytes, ${sign}count(*) FILTER (WHERE favorite) AS favorites,
      ${sign}sum(views) AS views
    FROM ${rows} WHERE NOT pending GROUP BY 1, 2`;

/** The fine block (level 0) of `created_at`: its µs since the epoch over 2^26, rounded down. */
const FINE = `floor(extract(epoch FROM created_at) * 1000000 / 67108864)::bigint`;

/** `rows`' complete owned files per owner and fine block, `sign` times their count. */
const inBlocks = (rows: string, sign: "" | "-") => `
      SELECT user_id AS owner, ${FINE} AS block, ${sign}count(*) AS files
      FROM ${rows} WHERE NOT pending AND user_id IS NOT NULL GROUP BY 1, 2`;

/** The blocks' step: the change of the statement's `parts` (its fine blocks), at both levels. */
const blocks = (parts: string[]) => `
  WITH fine AS (${parts.join("\n      UNION ALL")})
  INSERT INTO file_time_blocks AS b (owner, level, block, files)
  SELECT owner, level, block, sum(files)
  FROM (
    SELECT owner, 0 AS level, block, files FROM fine
    UNION ALL SELECT owner, 1, block >> 8, files FROM fine
  ) AS change
  GROUP BY owner, level, block HAVING sum(files) <> 0
  ORDER BY owner, level, block
  ON CONFLICT (owner, level, block) DO UPDATE SET files = b.files + EXCLUDED.files;`;

/**
 * A trigger function moving the statistics by the statement's `parts`, then
 * taking each of `steps` (statements: the counters' steps, {@link applyCounters}).
 */
const apply = (name: string, parts: string[], ...steps: string[]) => `
CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO file_counts AS c (owner, type, files, bytes, favorites, views, touched)
  SELECT owner, type, sum(files), sum(bytes), sum(favorites), sum(views), 1
  FROM (${parts.join("\n    UNION ALL")}) AS change
  GROUP BY owner, type
  HAVING sum(files) <> 0 OR sum(bytes) <> 0 OR sum(favorites) <> 0 OR sum(views) <> 0
  ORDER BY owner, type
  ON CONFLICT (owner, type) DO UPDATE SET files = c.files + EXCLUDED.files,
    bytes = c.bytes + EXCLUDED.bytes, favorites = c.favorites + EXCLUDED.favorites,
    views = c.views + EXCLUDED.views, touched = c.touched + 1;
${steps.join("\n")}
  RETURN NULL;
END $$;`;

/** Which trigger function of `files` a counter's step is made for. */
export type StatementKind = "inserted" | "deleted" | "updated";

/** A counter the statistics' triggers move: its step from the parts of a statement's rows. */
export interface CounterStep {
  /** The statement moving the counters by `parts`, in the function for `kind`. */
  step: (parts: string[], kind: StatementKind) => string;
  /** The change `rows` (a transition table) make, `sign` times their counts, in `kind`'s function. */
  part: (rows: string, sign: "" | "-", kind: StatementKind) => string;
}

/**
 * The three trigger functions (a statement's inserted, deleted and updated
 * rows) moving the statistics, then each of `counters` in turn. Later
 * migrations make them again with their own counter last.
 */
export const applyCounters = (counters: CounterStep[]) => {
  const moved = (kind: StatementKind, rows: [string, "" | "-"][]) =>
    apply(
      `file_counts_${kind}`,
      rows.map(([table, sign]) => counted(table, sign)),
      ...counters.map((c) => c.step(rows.map(([table, sign]) => c.part(table, sign, kind)), kind)),
    );
  return [
    moved("inserted", [["new_files", ""]]),
    moved("deleted", [["old_files", "-"]]),
    moved("updated", [["new_files", ""], ["old_files", "-"]]),
  ].join("\n");
};

/** This migration's counter: the time blocks. */
export const timeBlockCounter: CounterStep = { step: blocks, part: inBlocks };

export const sql = `
CREATE TABLE file_time_blocks (
  owner text NOT NULL,
  level smallint NOT NULL,
  block bigint NOT NULL,
  files bigint NOT NULL,
  PRIMARY KEY (owner, level, block)
);
${applyCounters([timeBlockCounter])}
${blocks([inBlocks("files", "")]).replace(/ON CONFLICT[^;]*/, "")}
`;
