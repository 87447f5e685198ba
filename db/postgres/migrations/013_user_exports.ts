/** User exports: zips of a user's files, built in the background (reference §4.3). */
export const sql = `
CREATE TABLE user_exports (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  path text NOT NULL,
  files integer NOT NULL,
  size bigint NOT NULL,
  completed boolean NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX user_exports_user ON user_exports (user_id, created_at, id);
`;
