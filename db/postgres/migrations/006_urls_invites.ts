/**
 * Short URLs, the one namespace their codes and vanities share, and invites.
 * A URL outlives its owner (`user_id` set null); an invite goes with its inviter.
 */
export const sql = `
CREATE TABLE urls (
  id text PRIMARY KEY,
  code text NOT NULL,
  vanity text,
  destination text NOT NULL,
  views integer NOT NULL DEFAULT 0,
  max_views integer,
  password text,
  enabled boolean NOT NULL DEFAULT true,
  user_id text REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX urls_user_id ON urls (user_id, created_at);

CREATE TABLE url_names (
  name text PRIMARY KEY,
  url_id text NOT NULL REFERENCES urls (id) ON DELETE CASCADE
);
CREATE INDEX url_names_url_id ON url_names (url_id);

CREATE TABLE invites (
  id text PRIMARY KEY,
  code text NOT NULL UNIQUE,
  expires_at timestamptz,
  uses integer NOT NULL DEFAULT 0,
  max_uses integer,
  inviter_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX invites_inviter_id ON invites (inviter_id);
`;
