/**
 * Visits of short URLs and files: the raw visits (kept for the retention
 * period), their hourly roll-ups per target, owner and server with counts
 * per dimension, the marks of visitors seen per hour and day (for exact
 * unique counts; pruned once their day is over), and the daily salts of the
 * visitor hashes. No address is stored anywhere.
 */
export const sql = `
CREATE TABLE visits (
  id bigserial PRIMARY KEY,
  target_kind text NOT NULL,
  target_id text NOT NULL,
  owner_id text,
  at timestamptz NOT NULL,
  referrer text,
  country text,
  browser text,
  os text,
  device text NOT NULL,
  bot boolean NOT NULL,
  visitor text NOT NULL
);
CREATE INDEX visits_target ON visits (target_kind, target_id, at);
CREATE INDEX visits_at ON visits (at);

CREATE TABLE visits_hourly (
  target_kind text NOT NULL,
  target_id text NOT NULL,
  hour timestamptz NOT NULL,
  visits bigint NOT NULL,
  hour_uniques bigint NOT NULL,
  day_uniques bigint NOT NULL,
  PRIMARY KEY (target_kind, target_id, hour)
);
CREATE INDEX visits_hourly_hour ON visits_hourly (hour);

CREATE TABLE visits_hourly_dims (
  target_kind text NOT NULL,
  target_id text NOT NULL,
  hour timestamptz NOT NULL,
  dimension text NOT NULL,
  value text NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (target_kind, target_id, hour, dimension, value)
);
CREATE INDEX visits_hourly_dims_hour ON visits_hourly_dims (hour);

CREATE TABLE visits_seen (
  target_kind text NOT NULL,
  target_id text NOT NULL,
  span char(1) NOT NULL,
  start timestamptz NOT NULL,
  visitor text NOT NULL,
  PRIMARY KEY (target_kind, target_id, span, start, visitor)
);
CREATE INDEX visits_seen_start ON visits_seen (start);

CREATE TABLE visit_salts (
  day text PRIMARY KEY,
  salt text NOT NULL
);
`;
