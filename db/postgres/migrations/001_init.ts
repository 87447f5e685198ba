/** Users, sessions, settings and the meta table. */
export const sql = `
CREATE TABLE users (
  id text PRIMARY KEY,
  username text NOT NULL UNIQUE,
  password text,
  role text NOT NULL CHECK (role IN ('USER', 'ADMIN', 'SUPERADMIN')),
  avatar text,
  token text NOT NULL UNIQUE,
  totp_secret text,
  view jsonb NOT NULL DEFAULT '{}',
  quota jsonb,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE sessions (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  client text NOT NULL,
  device text NOT NULL,
  ua text NOT NULL
);
CREATE INDEX sessions_user_id ON sessions (user_id);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

CREATE TABLE settings (
  key text PRIMARY KEY,
  value jsonb
);

CREATE TABLE meta (
  key text PRIMARY KEY,
  value jsonb NOT NULL
);
`;
