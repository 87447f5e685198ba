/** Files, each user's usage counters, and short-lived password-access grants. */
export const sql = `
CREATE TABLE files (
  id text PRIMARY KEY,
  name text NOT NULL UNIQUE,
  original_name text,
  size bigint NOT NULL,
  type text NOT NULL,
  views integer NOT NULL DEFAULT 0,
  max_views integer,
  favorite boolean NOT NULL DEFAULT false,
  password text,
  anonymous boolean NOT NULL DEFAULT false,
  user_id text REFERENCES users (id) ON DELETE SET NULL,
  folder_id text,
  deletes_at timestamptz,
  pending boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX files_user_id_created_at ON files (user_id, created_at);
CREATE INDEX files_deletes_at ON files (deletes_at) WHERE deletes_at IS NOT NULL;

CREATE TABLE file_usage (
  user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  bytes bigint NOT NULL DEFAULT 0,
  files integer NOT NULL DEFAULT 0
);

CREATE TABLE file_access (
  file_id text NOT NULL REFERENCES files (id) ON DELETE CASCADE,
  key text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (file_id, key)
);
`;
