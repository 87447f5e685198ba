/** Short URLs that expire, and redirect rules: a destination per device class, the query forwarded. */
export const sql = `
ALTER TABLE urls
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN device_destinations jsonb,
  ADD COLUMN forward_query boolean NOT NULL DEFAULT false;
CREATE INDEX urls_expires_at ON urls (expires_at, id) WHERE expires_at IS NOT NULL;
`;
