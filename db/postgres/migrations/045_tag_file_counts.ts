/**
 * Counts of each tag's files (issue #32): a tag's page of the files list
 * needs its total, which counting read through every one of the tag's files
 * (5,000 of a million at one file in 200: 36–46 ms in-process, 64 ms warm,
 * 210 ms cold, EXPLAIN ANALYZE). `tag_file_counts` counts, per owner and tag,
 * the owner's complete files carrying the tag; `PostgresFiles.list` reads it
 * for a list filtered by one tag and nothing else (`../tag_counts.ts`).
 *
 * The counters move in the statement that writes the links or the files:
 * triggers on `file_tags` (a link added, removed, changed: its file counted
 * when complete and owned) and a step added to the trigger functions of
 * `files` (migrations 036, 041, 043 and 044, made again here) for the files'
 * changes that change whether, or for whom, their links count: a completion,
 * an owner's deletion or `disown` (`user_id` set to NULL), a deletion.
 *
 * A deleted file's links went by the foreign key's cascade, which ran before
 * the statement triggers of `files` (the links gone) and its own triggers
 * after them (the files gone): neither saw what was counted. The cascade is
 * replaced by that step: `file_counts_deleted` deletes the links of the
 * statement's files, counting them out as it does, and the foreign key
 * becomes a check at commit (`DEFERRABLE INITIALLY DEFERRED`, so that the
 * links still there when the files go do not stop the statement). A link
 * whose file is not there (gone, or not yet inserted in the transaction)
 * counts for nothing; a file inserted counts the links it already has.
 *
 * Each change is taken file by file, so that a statement that adds one file
 * to a counter and takes another out still moves its `touched` (migration
 * 036's, for the recount: `PostgresFiles.recountStats` recounts the tag
 * counters along with the statistics, in `tag_recount_sums`), and a file's
 * change that keeps its links' count (a view, a rename) writes no counter.
 * Counters of a deleted tag go with it; counters that reach 0 stay, as 0.
 * The links already there are counted here, in this migration's transaction.
 */
import { applyCounters, type CounterStep, timeBlockCounter } from "./041_file_time_blocks.ts";
import { nameBlockCounter } from "./043_file_name_blocks.ts";
import { folderCounter } from "./044_file_folder_counts.ts";

/**
 * The links of `links` whose file (in `files`) is complete and owned, a row
 * each (`owner`, `tag`, `file`) with `files` `sign` 1.
 */
const linked = (links: string, files: string, sign: "" | "-") => `
      SELECT f.user_id AS owner, l.tag_id AS tag, f.id AS file, ${sign}1 AS files
      FROM ${links} AS l JOIN ${files} AS f ON f.id = l.file_id
      WHERE NOT f.pending AND f.user_id IS NOT NULL`;

/**
 * The tag counts' step: the change of the statement's `parts`, file by file
 * (a file whose links' rows cancel out moves nothing), to the tags that are
 * still there; `before`, a `WITH` the parts read.
 */
const tagCounts = (parts: string[], before = "") => `
  ${before}
  INSERT INTO tag_file_counts AS c (owner, tag, files, touched)
  SELECT owner, tag, sum(files), 1
  FROM (
    SELECT owner, tag, file, sum(files) AS files
    FROM (${parts.join("\n      UNION ALL")}) AS link
    GROUP BY owner, tag, file HAVING sum(files) <> 0
  ) AS moved
  WHERE EXISTS (SELECT 1 FROM tags WHERE tags.id = moved.tag)
  GROUP BY owner, tag
  ORDER BY owner, tag
  ON CONFLICT (owner, tag) DO UPDATE SET files = c.files + EXCLUDED.files,
    touched = c.touched + 1;`;

/**
 * This migration's counter in the trigger functions of `files`: the links of
 * the statement's files; a deletion's are deleted by the step itself (they
 * are still there: the foreign key is checked at commit) and counted out.
 */
const tagCounter: CounterStep = {
  part: (rows, sign, kind) => linked(kind === "deleted" ? "gone" : "file_tags", rows, sign),
  step: (parts, kind) =>
    tagCounts(
      parts,
      kind === "deleted"
        ? `WITH gone AS (
    DELETE FROM file_tags AS l USING old_files AS f WHERE l.file_id = f.id
    RETURNING l.file_id, l.tag_id
  )`
        : undefined,
    ),
};

/** A trigger function of `file_tags` taking the tag counts' step over `parts`. */
const onLinks = (name: string, parts: string[]) => `
CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
${tagCounts(parts)}
  RETURN NULL;
END $$;`;

export const sql = `
CREATE TABLE tag_file_counts (
  owner text NOT NULL,
  tag text NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
  files bigint NOT NULL,
  touched bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (owner, tag)
);
CREATE INDEX tag_file_counts_tag ON tag_file_counts (tag);
CREATE TABLE tag_recount_sums (
  owner text NOT NULL,
  tag text NOT NULL,
  files bigint NOT NULL DEFAULT 0,
  touched bigint,
  PRIMARY KEY (owner, tag)
);
ALTER TABLE file_tags DROP CONSTRAINT file_tags_file_id_fkey,
  ADD CONSTRAINT file_tags_file_id_fkey FOREIGN KEY (file_id) REFERENCES files (id)
    DEFERRABLE INITIALLY DEFERRED;
${applyCounters([timeBlockCounter, nameBlockCounter, folderCounter, tagCounter])}
${onLinks("tag_file_counts_linked", [linked("new_links", "files", "")])}
${onLinks("tag_file_counts_unlinked", [linked("old_links", "files", "-")])}
${
  onLinks("tag_file_counts_relinked", [
    linked("new_links", "files", ""),
    linked("old_links", "files", "-"),
  ])
}
CREATE TRIGGER tag_file_counts_insert AFTER INSERT ON file_tags
  REFERENCING NEW TABLE AS new_links FOR EACH STATEMENT EXECUTE FUNCTION tag_file_counts_linked();
CREATE TRIGGER tag_file_counts_delete AFTER DELETE ON file_tags
  REFERENCING OLD TABLE AS old_links
  FOR EACH STATEMENT EXECUTE FUNCTION tag_file_counts_unlinked();
CREATE TRIGGER tag_file_counts_update AFTER UPDATE ON file_tags
  REFERENCING OLD TABLE AS old_links NEW TABLE AS new_links
  FOR EACH STATEMENT EXECUTE FUNCTION tag_file_counts_relinked();
INSERT INTO tag_file_counts (owner, tag, files)
SELECT f.user_id, l.tag_id, count(*)
FROM file_tags AS l JOIN files AS f ON f.id = l.file_id
WHERE NOT f.pending AND f.user_id IS NOT NULL
GROUP BY 1, 2;
`;
