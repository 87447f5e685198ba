/**
 * Unique visitors as HyperLogLog sketches (`db/hll.ts`): each roll-up hour
 * gets `sketch`, its visitors' sketch (at most 12,289 bytes, stored out of
 * line without compression: dense registers do not compress), and each
 * roll-up day a row in `visits_daily` with the union of its hours' sketches
 * (a month by day reads 30 sketches, not 720), both merged by each batch;
 * the visitor marks that counted them exactly (`visits_seen`, 031) go. Hours
 * written before keep their exact `hour_uniques` and `day_uniques`, to which
 * their sketches' estimates are added.
 */
export const sql = `
ALTER TABLE visits_hourly ADD COLUMN sketch bytea;
ALTER TABLE visits_hourly ALTER COLUMN sketch SET STORAGE EXTERNAL;

CREATE TABLE visits_daily (
  target_kind text NOT NULL,
  target_id text NOT NULL,
  day timestamptz NOT NULL,
  sketch bytea,
  PRIMARY KEY (target_kind, target_id, day)
);
ALTER TABLE visits_daily ALTER COLUMN sketch SET STORAGE EXTERNAL;
CREATE INDEX visits_daily_day ON visits_daily (day);

DROP TABLE visits_seen;
`;
