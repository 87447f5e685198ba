/** The settings version (bumped by every settings write) and the settings audit trail. */
export const sql = `
INSERT INTO meta (key, value) VALUES ('settings_version', '0') ON CONFLICT (key) DO NOTHING;

CREATE TABLE settings_audit (
  id integer PRIMARY KEY,
  at timestamptz NOT NULL,
  user_id text NOT NULL,
  username text NOT NULL,
  changes jsonb NOT NULL
);
CREATE INDEX settings_audit_at ON settings_audit (at);
`;
