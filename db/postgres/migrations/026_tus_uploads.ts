/**
 * tus uploads (`core/files/tus.ts`) are chunked uploads with a progress of
 * their own: the offset, the staged tail past the last whole part, the
 * client's metadata and the upload's options (`db/chunks.ts`, `TusState`).
 */
export const sql = `
ALTER TABLE chunked_uploads ADD COLUMN tus jsonb;
`;
