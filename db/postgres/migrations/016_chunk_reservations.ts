/**
 * Chunked uploads reserve their size and one file in their owner's usage
 * until the file is recorded (`db/chunks.ts`); the column says whose usage.
 */
export const sql = `
ALTER TABLE chunked_uploads ADD COLUMN reserved_by text;
`;
