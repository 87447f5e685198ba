/**
 * Unique visitors as HyperLogLog sketches (`db/hll.ts`): each roll-up hour
 * gets `sketch`, its visitors' sketch (at most 12,289 bytes, stored out of
 * line without compression: dense registers do not compress), merged by each
 * batch; the visitor marks that counted them exactly (`visits_seen`, 031)
 * go. Hours written before keep their exact `hour_uniques` and
 * `day_uniques`, to which their sketches' estimates are added.
 */
export const sql = `
ALTER TABLE visits_hourly ADD COLUMN sketch bytea;
ALTER TABLE visits_hourly ALTER COLUMN sketch SET STORAGE EXTERNAL;
DROP TABLE visits_seen;
`;
