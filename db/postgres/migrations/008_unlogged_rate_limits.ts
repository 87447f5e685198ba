/**
 * Rate-limit counters live a window long and are worth no WAL flush: an
 * unlogged table skips it (a crash empties the table, which only resets the
 * current windows).
 */
export const sql = `ALTER TABLE rate_limits SET UNLOGGED;`;
