/**
 * Raw visits as groups: a row may hold several visits alike in all but their
 * time (one visitor's visits of one target from one batch), their times in
 * `times` (ms since the epoch) and the latest in `at`; a row without `times`
 * is one visit at `at`, as every row before. A busy link's batch then writes
 * a row per visitor rather than one per visit.
 */
export const sql = `
ALTER TABLE visits ADD COLUMN times bigint[];
`;
