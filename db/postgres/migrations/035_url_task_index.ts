/**
 * The short URLs past their view limit, as a partial index (issue #32), so
 * that a `maxviews` pass reads those URLs and no other (`UrlStore.exhausted`),
 * as migration 033's `files_exhausted` does for files.
 */
export const sql = `
CREATE INDEX urls_exhausted ON urls (id COLLATE "C")
  WHERE max_views IS NOT NULL AND views >= max_views;
`;
