/**
 * What the cleaning tasks and bulk deletes read, as partial indexes (issue
 * #32), so that a pass reads its candidates and no other file: the files past
 * their view limit (`maxviews`), the pending ones (`cleanuploads`: those left
 * a day) and those with a thumbnail (`cleanthumbnails`, in id order). The
 * expired ones (`deletefiles`) already have `files_deletes_at` (migration
 * 005). Each index holds only the files its task looks at, so it stays small.
 */
export const sql = `
CREATE INDEX files_exhausted ON files (id COLLATE "C")
  WHERE max_views IS NOT NULL AND views >= max_views AND NOT pending;
CREATE INDEX files_abandoned ON files (updated_at) WHERE pending;
CREATE INDEX files_thumbnailed ON files (id COLLATE "C") WHERE thumbnail IS NOT NULL;
`;
