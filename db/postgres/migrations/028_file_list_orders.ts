/**
 * The files list in every order it offers (issue #32): for each sort key,
 * both directions, an index of a user's complete files on that key (nulls
 * last, as the list orders them) and then the id, ties broken by id
 * ascending in both directions as `PostgresFiles.list` orders them. A page is
 * then an index scan that stops at the page; a deep page is an index-only
 * scan of the ids before it (the list reads the page's ids first, then their
 * rows), not a sort of every file. Migration 019's index serves the newest
 * first; a partial index serves the favourites, newest first (the dashboard's
 * favourites page), and one a folder's, newest first (its page and its count
 * without reading the rows).
 */

/** The list's sort columns and the collation each is ordered in. */
const COLUMNS: [string, string][] = [
  ["id", ' COLLATE "C"'],
  ["created_at", ""],
  ["updated_at", ""],
  ["deletes_at", ""],
  ["name", ' COLLATE "C"'],
  ["original_name", ' COLLATE "C"'],
  ["size", ""],
  ["type", ' COLLATE "C"'],
  ["views", ""],
  ["favorite", ""],
];

/** The index of one order, unless migration 019 made it. */
const index = ([column, collate]: [string, string], direction: "ASC" | "DESC") =>
  column === "created_at" && direction === "DESC"
    ? ""
    : `CREATE INDEX files_list_${column}_${direction.toLowerCase()} ON files
  (user_id, ${column}${collate} ${direction} NULLS LAST, id COLLATE "C") WHERE NOT pending;`;

export const sql = `
${COLUMNS.flatMap((c) => [index(c, "ASC"), index(c, "DESC")]).filter(Boolean).join("\n")}
CREATE INDEX files_list_favorites ON files (user_id, created_at DESC NULLS LAST, id COLLATE "C")
  WHERE favorite AND NOT pending;
CREATE INDEX files_list_folder ON files
  (folder_id, user_id, created_at DESC NULLS LAST, id COLLATE "C")
  WHERE folder_id IS NOT NULL AND NOT pending;
`;
