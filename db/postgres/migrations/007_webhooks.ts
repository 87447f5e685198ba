/** The webhook outbox. Times are epoch milliseconds, as the clock gives them. */
export const sql = `
CREATE TABLE webhook_outbox (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('http', 'chat')),
  event text NOT NULL CHECK (event IN ('upload', 'shorten')),
  url text NOT NULL,
  body text NOT NULL,
  attempts integer NOT NULL,
  next_at bigint NOT NULL,
  created_at bigint NOT NULL,
  last_error text
);
CREATE INDEX webhook_outbox_next_at ON webhook_outbox (next_at);
`;
