/**
 * Each owner's file statistics as counters (issue #32): `file_counts` holds,
 * per owner (`''` for the files without one) and type, the complete files,
 * their bytes, favourites and views. Triggers on `files`, one per statement
 * with its transition tables, move them in the statement's own transaction,
 * whatever writes the files (an upload, an import's bulk insert, a view, an
 * owner's deletion setting `user_id` to NULL); `GET /api/user/stats` then
 * reads a few rows instead of aggregating every file. The counters of the
 * files already there are filled here, in this migration's transaction (the
 * triggers' creation locks `files` against writes until it commits, so none
 * is counted twice or missed; stopped, it is rolled back and runs again).
 */

/** The change a statement makes: `sign` times the complete files of `rows`. */
const counted = (rows: string, sign: "" | "-") => `
    SELECT coalesce(user_id, '') AS owner, type, ${sign}count(*) AS files,
      ${sign}sum(size) AS bytes, ${sign}count(*) FILTER (WHERE favorite) AS favorites,
      ${sign}sum(views) AS views
    FROM ${rows} WHERE NOT pending GROUP BY 1, 2`;

/** A trigger function adding the change of the statement's `parts` to the counters. */
const apply = (name: string, parts: string[]) => `
CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO file_counts AS c (owner, type, files, bytes, favorites, views)
  SELECT owner, type, sum(files), sum(bytes), sum(favorites), sum(views)
  FROM (${parts.join("\n    UNION ALL")}) AS change
  GROUP BY owner, type
  HAVING sum(files) <> 0 OR sum(bytes) <> 0 OR sum(favorites) <> 0 OR sum(views) <> 0
  ORDER BY owner, type
  ON CONFLICT (owner, type) DO UPDATE SET files = c.files + EXCLUDED.files,
    bytes = c.bytes + EXCLUDED.bytes, favorites = c.favorites + EXCLUDED.favorites,
    views = c.views + EXCLUDED.views;
  RETURN NULL;
END $$;`;

export const sql = `
CREATE TABLE file_counts (
  owner text NOT NULL,
  type text NOT NULL,
  files bigint NOT NULL DEFAULT 0,
  bytes bigint NOT NULL DEFAULT 0,
  favorites bigint NOT NULL DEFAULT 0,
  views bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (owner, type)
);
${apply("file_counts_inserted", [counted("new_files", "")])}
${apply("file_counts_deleted", [counted("old_files", "-")])}
${apply("file_counts_updated", [counted("new_files", ""), counted("old_files", "-")])}
CREATE TRIGGER file_counts_insert AFTER INSERT ON files
  REFERENCING NEW TABLE AS new_files FOR EACH STATEMENT EXECUTE FUNCTION file_counts_inserted();
CREATE TRIGGER file_counts_delete AFTER DELETE ON files
  REFERENCING OLD TABLE AS old_files FOR EACH STATEMENT EXECUTE FUNCTION file_counts_deleted();
CREATE TRIGGER file_counts_update AFTER UPDATE ON files
  REFERENCING OLD TABLE AS old_files NEW TABLE AS new_files
  FOR EACH STATEMENT EXECUTE FUNCTION file_counts_updated();
INSERT INTO file_counts (owner, type, files, bytes, favorites, views)
${counted("files", "")};
`;
