/** Passkeys, WebAuthn challenges in flight, and the last accepted TOTP step per user. */
export const sql = `
CREATE TABLE passkeys (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  credential_id text NOT NULL UNIQUE,
  public_key bytea NOT NULL,
  counter bigint NOT NULL,
  transports text[] NOT NULL,
  created_at timestamptz NOT NULL,
  last_used timestamptz
);
CREATE INDEX passkeys_user_id ON passkeys (user_id);

CREATE TABLE webauthn_challenges (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('registration', 'authentication')),
  challenge text NOT NULL,
  user_id text REFERENCES users (id) ON DELETE CASCADE,
  rp_id text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX webauthn_challenges_expires_at ON webauthn_challenges (expires_at);

CREATE TABLE totp_steps (
  user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  step bigint NOT NULL
);
`;
