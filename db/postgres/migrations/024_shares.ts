/**
 * Share links: a user's links to one file or folder, found by their code; the
 * deletion of the user, the file or the folder removes them.
 */
export const sql = `
CREATE TABLE shares (
  id text PRIMARY KEY,
  code text NOT NULL UNIQUE,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  file_id text REFERENCES files (id) ON DELETE CASCADE,
  folder_id text REFERENCES folders (id) ON DELETE CASCADE,
  password text,
  expires_at timestamptz,
  max_views integer,
  views integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  CHECK ((file_id IS NULL) <> (folder_id IS NULL))
);
CREATE INDEX shares_user_id ON shares (user_id, created_at);
CREATE INDEX shares_file_id ON shares (file_id) WHERE file_id IS NOT NULL;
CREATE INDEX shares_folder_id ON shares (folder_id) WHERE folder_id IS NOT NULL;
`;
