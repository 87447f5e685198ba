/**
 * The tag filter of the files list as a query of the store (issue #32):
 * `FileQuery.tagIds` is an `EXISTS` per tag over `file_tags`
 * (`db/postgres/files.ts`). Read from the tag's side (a tag's files, then
 * their rows by primary key) it needs the file ids of one tag from the index
 * alone: `(tag_id, file_id)`, which replaces migration 010's `(tag_id)`.
 */
export const sql = `
CREATE INDEX file_tags_tag_file ON file_tags (tag_id, file_id);
DROP INDEX IF EXISTS file_tags_tag_id;
`;
