/** Chunked uploads in progress with their received parts, and task leases. */
export const sql = `
CREATE TABLE chunked_uploads (
  id text PRIMARY KEY,
  user_id text,
  folder_id text,
  filename text NOT NULL,
  type text NOT NULL,
  size bigint NOT NULL,
  part_size bigint NOT NULL,
  object text NOT NULL,
  handle text NOT NULL,
  completing boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX chunked_uploads_updated_at ON chunked_uploads (updated_at);

CREATE TABLE chunked_upload_parts (
  upload_id text NOT NULL REFERENCES chunked_uploads (id) ON DELETE CASCADE,
  number integer NOT NULL,
  start_byte bigint NOT NULL,
  end_byte bigint NOT NULL,
  tag text NOT NULL,
  PRIMARY KEY (upload_id, number)
);

CREATE TABLE leases (
  name text PRIMARY KEY,
  holder text NOT NULL,
  taken_at timestamptz NOT NULL
);
`;
