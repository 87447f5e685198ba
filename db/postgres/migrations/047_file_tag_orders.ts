/**
 * A tag's pages in every order at every depth (issue #32): a tag's list
 * walked the owner's files in the page's order probing each for the tag, or
 * (`tagFirst`, small tags) looked each of the tag's files up by id and
 * sorted them; a page deep into a tag of 200,000 files of a million walked
 * hundreds of thousands of files. Here each link of `file_tags` carries its
 * file's list keys: `owner` (the file's owner while the file is complete,
 * else `NULL`: only such links are listed), the sort keys and the filters'
 * columns, under the names `files` gives them, and `file_tags` gets an index
 * per order as `files` has them (migrations 028 and 040: one for both
 * directions of `id`, `name`, `created_at`, `updated_at` and `size`, one per
 * direction of the others, nulls last, ties by id ascending), by tag and
 * owner first, the filters' columns included. A tag's page is then an
 * index walk of that tag's links alone (`../tag_pages.ts`); a deep one skips
 * the links before it in the index only.
 *
 * The keys are copied, not joined: a link inserted takes its file's (a row
 * trigger, before the insert; `NULL` when the file is not there yet); a
 * statement inserting or updating files copies theirs to their links (a
 * statement trigger of its own, apart from the statistics' counters of
 * migrations 041–045: a file's view moves `views`), writing only the links
 * whose keys differ and none when the statement's files have no link. A
 * deleted file's links go with it (migration 045's step). The links are
 * analyzed at the end: the planner has no statistics of the new columns.
 */

/** The keys a link copies from its file: its column and the file's value. */
const KEYS: [string, string][] = [
  ["owner", "CASE WHEN f.pending THEN NULL ELSE f.user_id END"],
  ["created_at", "f.created_at"],
  ["updated_at", "f.updated_at"],
  ["deletes_at", "f.deletes_at"],
  ["name", "f.name"],
  ["original_name", "f.original_name"],
  ["size", "f.size"],
  ["type", "f.type"],
  ["views", "f.views"],
  ["favorite", "f.favorite"],
  ["folder_id", "f.folder_id"],
];

/** The columns, typed as those of `files`. */
const COLUMNS = `owner text, created_at timestamptz, updated_at timestamptz,
  deletes_at timestamptz, name text, original_name text, size bigint, type text,
  views integer, favorite boolean, folder_id text`;

/** Each order's index: key, collation, and the directions it has an index for. */
const ORDERS: [string, string, ("ASC" | "DESC")[]][] = [
  ["file_id", ' COLLATE "C"', ["ASC"]],
  ["created_at", "", ["DESC"]],
  ["updated_at", "", ["ASC"]],
  ["deletes_at", "", ["ASC", "DESC"]],
  ["name", ' COLLATE "C"', ["ASC"]],
  ["original_name", ' COLLATE "C"', ["ASC", "DESC"]],
  ["size", "", ["ASC"]],
  ["type", ' COLLATE "C"', ["ASC", "DESC"]],
  ["views", "", ["ASC", "DESC"]],
  ["favorite", "", ["ASC", "DESC"]],
];

const indexes = ORDERS.flatMap(([column, collate, directions]) =>
  directions.map((direction) => {
    const key = column === "file_id"
      ? `file_id${collate}`
      : `${column}${collate} ${direction} NULLS LAST, file_id COLLATE "C"`;
    return `CREATE INDEX file_tags_${column}_${direction.toLowerCase()} ON file_tags
  (tag_id, owner, ${key}) INCLUDE (favorite, folder_id, type) WHERE owner IS NOT NULL;`;
  })
);

/** The links' keys set from their files `f` (`files`, or a statement's rows). */
const setKeys = KEYS.map(([column, value]) => `${column} = ${value}`).join(",\n    ");
const differs = `(${KEYS.map(([c]) => `l.${c}`).join(", ")})
    IS DISTINCT FROM (${KEYS.map(([, v]) => v).join(", ")})`;

export const sql = `
ALTER TABLE file_tags ADD COLUMN ${COLUMNS.replaceAll(",", ",\n  ADD COLUMN")};
UPDATE file_tags AS l SET ${setKeys} FROM files AS f WHERE f.id = l.file_id;
${indexes.join("\n")}
CREATE FUNCTION file_tags_keys_taken() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  f files;
BEGIN
  SELECT * INTO f FROM files WHERE id = NEW.file_id;
  NEW.owner := CASE WHEN f.pending THEN NULL ELSE f.user_id END;
${KEYS.slice(1).map(([column, value]) => `  NEW.${column} := ${value};`).join("\n")}
  RETURN NEW;
END $$;
CREATE TRIGGER file_tags_keys BEFORE INSERT OR UPDATE OF file_id ON file_tags
  FOR EACH ROW EXECUTE FUNCTION file_tags_keys_taken();
CREATE FUNCTION file_tags_keys_copied() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids text[] := ARRAY(SELECT id FROM new_files);
BEGIN
  IF EXISTS (SELECT 1 FROM file_tags WHERE file_id = ANY(ids)) THEN
    UPDATE file_tags AS l SET ${setKeys}
    FROM new_files AS f WHERE l.file_id = ANY(ids) AND f.id = l.file_id AND ${differs};
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER file_tags_keys_inserted AFTER INSERT ON files
  REFERENCING NEW TABLE AS new_files FOR EACH STATEMENT EXECUTE FUNCTION file_tags_keys_copied();
CREATE TRIGGER file_tags_keys_updated AFTER UPDATE ON files
  REFERENCING NEW TABLE AS new_files FOR EACH STATEMENT EXECUTE FUNCTION file_tags_keys_copied();
`;
