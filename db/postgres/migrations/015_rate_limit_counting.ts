/**
 * The record of which server processes count rate limits (see
 * `db/rate_limit_owner.ts`): one row, replaced only while its `version` is
 * the one the writer read.
 */
export const sql = `
CREATE TABLE rate_limit_counting (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  record jsonb NOT NULL,
  version bigint NOT NULL
);
`;
