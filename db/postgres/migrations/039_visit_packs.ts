/**
 * Raw visits packed (`db/visit_pack.ts`): a row per target and batch (and
 * per 48 KiB of its visits) whose `pack` holds the batch's groups of alike
 * visits as bytes, in place of a row per group in `visits` (031, 032), which
 * cost PostgreSQL an insert and two index entries per visitor. `at` is the
 * pack's latest visit (the retention deletes a pack after it), `visits` how
 * many it holds. Rows of `visits` stored before stay and are read, exported
 * and deleted alike until the retention removes them. Packs are stored out
 * of line without compression: their bytes are already compact.
 */
export const sql = `
CREATE TABLE visit_packs (
  id bigserial PRIMARY KEY,
  target_kind text NOT NULL,
  target_id text NOT NULL,
  at timestamptz NOT NULL,
  visits integer NOT NULL,
  pack bytea NOT NULL
);
ALTER TABLE visit_packs ALTER COLUMN pack SET STORAGE EXTERNAL;
CREATE INDEX visit_packs_target ON visit_packs (target_kind, target_id);
CREATE INDEX visit_packs_at ON visit_packs (at);
`;
