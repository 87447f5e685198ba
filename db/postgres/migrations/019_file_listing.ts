/**
 * A user's complete files in the order the dashboard lists them (newest
 * first, ties by id), so that a page of `GET /api/user/files` is an index
 * scan that stops at the page rather than a sort of every file.
 */
export const sql = `
CREATE INDEX files_user_listing ON files (user_id, created_at DESC NULLS LAST, id COLLATE "C")
  WHERE NOT pending;
`;
