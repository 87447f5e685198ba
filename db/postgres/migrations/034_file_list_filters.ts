/**
 * The files list's filters in every order (issue #32): migration 028 gave
 * each order an index of a user's complete files, and the favourites and a
 * folder's files one index each, newest first. Here each other order gets a
 * partial index of the favourites (`favorite`, a literal in
 * `PostgresFiles.list`, so that a generic plan still proves it) and one of
 * the files in folders, by folder, so that the favourites' or a folder's page
 * in any order, and any page deep in it, is an index scan of those files
 * alone rather than a pass over every file of the owner that keeps those.
 * Each holds only the favourites or the files in a folder.
 */

/** The list's sort columns and the collation each is ordered in (as migration 028's). */
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

/** The favourites' and the folders' index of one order, unless migration 028 made them. */
const indexes = ([column, collate]: [string, string], direction: "ASC" | "DESC") => {
  if (column === "created_at" && direction === "DESC") return [];
  const key = `${column}${collate} ${direction} NULLS LAST, id COLLATE "C"`;
  const suffix = `${column}_${direction.toLowerCase()}`;
  return [
    ...(column === "favorite" ? [] : [
      `CREATE INDEX files_favorites_${suffix} ON files (user_id, ${key})
  WHERE favorite AND NOT pending;`,
    ]),
    `CREATE INDEX files_folder_${suffix} ON files (folder_id, user_id, ${key})
  WHERE folder_id IS NOT NULL AND NOT pending;`,
  ];
};

export const sql = COLUMNS.flatMap((c) => [...indexes(c, "ASC"), ...indexes(c, "DESC")])
  .join("\n");
