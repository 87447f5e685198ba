/**
 * Folders (a tree per user, names unique per user), tags (names unique per
 * user) and the links between tags and files. `files.folder_id` stays a plain
 * column: the folder rules move files explicitly, on both stores alike.
 */
export const sql = `
CREATE TABLE folders (
  id text PRIMARY KEY,
  name text NOT NULL,
  public boolean NOT NULL DEFAULT false,
  allow_uploads boolean NOT NULL DEFAULT false,
  parent_id text REFERENCES folders (id) ON DELETE SET NULL,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (user_id, name)
);
CREATE INDEX folders_name ON folders (name);
CREATE INDEX folders_parent_id ON folders (parent_id);
CREATE INDEX files_folder_id_created_at ON files (folder_id, created_at);

CREATE TABLE tags (
  id text PRIMARY KEY,
  name text NOT NULL,
  color text NOT NULL,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (user_id, name)
);

CREATE TABLE file_tags (
  file_id text NOT NULL REFERENCES files (id) ON DELETE CASCADE,
  tag_id text NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
  PRIMARY KEY (file_id, tag_id)
);
CREATE INDEX file_tags_tag_id ON file_tags (tag_id);
`;
