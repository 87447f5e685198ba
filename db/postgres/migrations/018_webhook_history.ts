/** The finished webhook deliveries (the newest few, trimmed as they are added). Times in ms. */
export const sql = `
CREATE TABLE webhook_history (
  id text COLLATE "C" PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('http', 'chat')),
  event text NOT NULL CHECK (event IN ('upload', 'shorten')),
  url text NOT NULL,
  created_at bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('delivered', 'failed')),
  attempts integer NOT NULL,
  result text NOT NULL,
  finished_at bigint NOT NULL
);
CREATE INDEX webhook_history_finished_at ON webhook_history (finished_at DESC, id DESC);
`;
