/**
 * Batched rate-limit counting writes many windows in one upsert and needs
 * each window's count from before it (`RETURNING` shows only the new row):
 * the upsert copies the old count into `prev`.
 */
export const sql = `ALTER TABLE rate_limits ADD COLUMN prev integer NOT NULL DEFAULT 0;`;
