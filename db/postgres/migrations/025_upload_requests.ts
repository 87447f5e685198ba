/**
 * Upload requests: a user's links that let anyone send it files, with their
 * limits, counters and password grants; the name an uploader gave, kept on
 * each file; the request a chunked upload in progress came through; and
 * the webhook event that tells a request's owner of a file it received.
 */
export const sql = `
CREATE TABLE upload_requests (
  id text PRIMARY KEY,
  code text NOT NULL UNIQUE,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  message text,
  folder_id text,
  max_files integer,
  max_bytes bigint,
  max_file_size bigint,
  expires_at timestamptz,
  password text,
  allowed_types text[] NOT NULL DEFAULT '{}',
  files integer NOT NULL DEFAULT 0,
  bytes bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX upload_requests_user_id ON upload_requests (user_id, created_at);

CREATE TABLE upload_request_access (
  request_id text NOT NULL REFERENCES upload_requests (id) ON DELETE CASCADE,
  key text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (request_id, key)
);

ALTER TABLE files ADD COLUMN uploader_name text;
ALTER TABLE chunked_uploads ADD COLUMN request_id text;

ALTER TABLE webhook_outbox DROP CONSTRAINT webhook_outbox_event_check;
ALTER TABLE webhook_outbox ADD CONSTRAINT webhook_outbox_event_check
  CHECK (event IN ('upload', 'shorten', 'request-upload'));
ALTER TABLE webhook_history DROP CONSTRAINT webhook_history_event_check;
ALTER TABLE webhook_history ADD CONSTRAINT webhook_history_event_check
  CHECK (event IN ('upload', 'shorten', 'request-upload'));
`;
