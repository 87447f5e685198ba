/**
 * One index fewer on `files` (issue #32: an import of a million files):
 * `files_folder_id_created_at` (migration 010) held every file, most of them
 * with no folder (a `NULL` entry each), and no query reads it: a folder's
 * files are listed with their owner and only complete ones
 * (`listConditions`), which the folder indexes of migrations 019, 028 and 034
 * serve (`files_list_folder` and its orders), and no other statement of the
 * store selects files by folder. Each insert and its disk paid for it (a
 * small share: no measurable change in the server's CPU of a 30,000-file
 * import, paired, `bench/results/scale.md`).
 */
export const sql = `DROP INDEX IF EXISTS files_folder_id_created_at;`;
