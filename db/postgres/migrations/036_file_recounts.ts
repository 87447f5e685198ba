/**
 * The statistics recount in passes (issue #32): `PostgresFiles.recountStats`
 * reads a budget of an owner's files a pass, in id order, instead of one
 * aggregate over all of them. Each counter of `file_counts` (migration 027)
 * gets `touched`, moved by every statement of `files` that changes it; a
 * recount copies the owner's `touched` when it starts
 * (`file_recount_sums`, where it adds up the files it reads, and
 * `file_recount_progress`, the last id read) and, when it ends, sets right
 * only the counters whose `touched` is the same: no write moved them
 * meanwhile, so the sums over passes are exact for them. The triggers'
 * functions are made again with the `touched` step, as migration 027's did
 * otherwise.
 */

/** The change a statement makes: `sign` times the complete files of `rows`. */
const counted = (rows: string, sign: "" | "-") => `
    SELECT coalesce(user_id, '') AS owner, type, ${sign}count(*) AS files,
      ${sign}sum(size) AS bytes, ${sign}count(*) FILTER (WHERE favorite) AS favorites,
      ${sign}sum(views) AS views
    FROM ${rows} WHERE NOT pending GROUP BY 1, 2`;

/** A trigger function adding the change of the statement's `parts` to the counters. */
const apply = (name: string, parts: string[]) => `
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
  RETURN NULL;
END $$;`;

export const sql = `
ALTER TABLE file_counts ADD COLUMN touched bigint NOT NULL DEFAULT 0;
CREATE TABLE file_recount_progress (
  owner text PRIMARY KEY,
  after text NOT NULL
);
CREATE TABLE file_recount_sums (
  owner text NOT NULL,
  type text NOT NULL,
  files bigint NOT NULL DEFAULT 0,
  bytes bigint NOT NULL DEFAULT 0,
  favorites bigint NOT NULL DEFAULT 0,
  views bigint NOT NULL DEFAULT 0,
  touched bigint,
  PRIMARY KEY (owner, type)
);
${apply("file_counts_inserted", [counted("new_files", "")])}
${apply("file_counts_deleted", [counted("old_files", "-")])}
${apply("file_counts_updated", [counted("new_files", ""), counted("old_files", "-")])}
`;
