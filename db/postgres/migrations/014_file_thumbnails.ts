/** A file's thumbnail: the datasource name of its bytes, `NULL` when none. */
export const sql = `
ALTER TABLE files ADD COLUMN thumbnail text;
`;
