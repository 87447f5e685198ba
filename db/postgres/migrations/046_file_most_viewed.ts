/**
 * The statistics page's most viewed files (`GET /api/stats/files`, issue
 * #32) from an index, not a pass over every file: the complete files with a
 * view, by views descending and then name in code points, as
 * `PostgresFiles.mostViewed` orders them. Only viewed files are in it, so an
 * import of files never viewed adds no entry; when fewer than the page were
 * ever viewed, the unviewed rest is read by name from each owner's name
 * order of the files list (migration 028's `files_list_name_asc`).
 */
export const sql = `
CREATE INDEX files_most_viewed ON files (views DESC, name COLLATE "C")
  WHERE views > 0 AND NOT pending;
`;
