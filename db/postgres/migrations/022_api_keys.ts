/** Scoped API keys: a user's named keys, found by the SHA-256 of the key. */
export const sql = `
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  scopes text[] NOT NULL,
  hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz,
  last_used_at timestamptz
);
CREATE INDEX api_keys_user_id ON api_keys (user_id, created_at);
`;
