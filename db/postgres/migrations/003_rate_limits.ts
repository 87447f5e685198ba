/** Fixed-window rate-limit counters shared by every server process. */
export const sql = `
CREATE TABLE rate_limits (
  key text NOT NULL,
  window_start bigint NOT NULL,
  count integer NOT NULL,
  ends_at timestamptz NOT NULL,
  PRIMARY KEY (key, window_start)
);
CREATE INDEX rate_limits_ends_at ON rate_limits (ends_at);
`;
