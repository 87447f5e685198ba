/**
 * Fewer indexes on `files` (issue #32, #31's small uploads): each of these
 * orders was an index per direction, and for the favourites and the folders
 * one more per direction (migrations 019, 028, 034), all of which every
 * insert pays (and every update of a column they hold). Where the column is
 * `NOT NULL`, one direction's index read backwards gives the other order
 * (`PostgresFiles.list` asks for the nulls where the backward scan has them:
 * none are stored):
 *
 * - `id` and `name` are unique: no ties, so the index read backwards is the
 *   order exactly;
 * - `created_at` (newest first: migration 019's index and its favourites' and
 *   folders' twins kept, oldest first dropped), `updated_at` and `size`
 *   (ascending kept): read backwards, ties come out by id descending, and an
 *   incremental sort puts each tie group (files of one instant or one size, a
 *   few) back in id order, ascending, as the list orders ties in both
 *   directions.
 *
 * The columns with large tie groups (`type`, `views`, `favorite`) and the
 * nullable ones (`deletes_at`, `original_name`, nulls last both ways) keep an
 * index per direction. Fifteen indexes go; no order a user sees changes.
 */

/** The indexes dropped: the main order's, the favourites' and the folders' of each. */
const DROPPED = [
  "id_desc",
  "name_desc",
  "created_at_asc",
  "updated_at_desc",
  "size_desc",
].flatMap((order) => [
  `files_list_${order}`,
  `files_favorites_${order}`,
  `files_folder_${order}`,
]);

export const sql = DROPPED.map((name) => `DROP INDEX IF EXISTS ${name};`).join("\n");
