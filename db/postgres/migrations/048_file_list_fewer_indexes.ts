/**
 * Fewer indexes over every file (issue #32: an import of a million files
 * paid each of them per row). The owner's list by favourite and by expiry
 * lose their own indexes, two directions each over every file; they are read
 * as two groups (`../file_order_groups.ts`): the favourites from the
 * favourites' index and the others, by id, from the id order's, which now
 * carries `favorite` and `deletes_at` (so that it skips the other group's
 * entries without reading rows); the expiring files from a partial index of
 * them alone (one a direction: ties by id ascending both ways), the others
 * from the id order's. The favourites' and the folders' indexes of these
 * orders stay (few rows each). Four indexes over every file go, none is
 * added: the id order's is made again, in place, without its second copy
 * of the id. The expiring files' indexes hold owned files only (`user_id IS
 * NOT NULL`, which a list's owner implies and the cleaning task's query of
 * every expired file does not): else the planner read the expired files from
 * them, every owner's, and sorted them, not from the task's own index.
 *
 * One transaction, as every migration: stopped, it is taken again whole.
 */
export const sql = `
DROP INDEX IF EXISTS files_list_favorite_asc, files_list_favorite_desc,
  files_list_deletes_at_asc, files_list_deletes_at_desc, files_list_id_asc;
CREATE INDEX files_list_id_asc ON files (user_id, id COLLATE "C") INCLUDE (favorite, deletes_at)
  WHERE NOT pending;
CREATE INDEX files_list_deletes_at_asc ON files (user_id, deletes_at, id COLLATE "C")
  WHERE deletes_at IS NOT NULL AND NOT pending AND user_id IS NOT NULL;
CREATE INDEX files_list_deletes_at_desc ON files (user_id, deletes_at DESC NULLS LAST, id COLLATE "C")
  WHERE deletes_at IS NOT NULL AND NOT pending AND user_id IS NOT NULL;
`;
