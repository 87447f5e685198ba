/**
 * Claim records by name (see `db/leases.ts`), replaced only while their
 * `version` is the one read. They take over from `rate_limit_counting`, the
 * rate limits' one record, which held nothing lasting.
 */
export const sql = `
DROP TABLE rate_limit_counting;
CREATE TABLE lease_claims (
  name text PRIMARY KEY,
  claim jsonb NOT NULL,
  version bigint NOT NULL
);
`;
