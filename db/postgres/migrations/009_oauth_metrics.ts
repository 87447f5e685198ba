/** OAuth links (an account links once per provider) and metrics snapshots. */
export const sql = `
CREATE TABLE oauth_links (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider text NOT NULL,
  username text NOT NULL,
  access_token text NOT NULL,
  refresh_token text,
  oauth_id text,
  created_at timestamptz NOT NULL,
  UNIQUE (provider, oauth_id)
);
CREATE INDEX oauth_links_user_id ON oauth_links (user_id, created_at);

CREATE TABLE metrics (
  id text PRIMARY KEY,
  created_at timestamptz NOT NULL,
  data jsonb NOT NULL
);
CREATE INDEX metrics_created_at ON metrics (created_at, id);
`;
