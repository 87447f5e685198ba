/**
 * The visits' retention (`analyticsRetentionDays`): removes raw visits and
 * roll-up hours (with their sketches) older than the retention, and the salts of
 * days before yesterday, after which no visitor hash of theirs can be made
 * again. A step at a time, so a pass stops at its next step once aborted.
 */
import { DAY_MS, dayName } from "../../db/visit_rollup.ts";
import type { Services } from "../services.ts";

/** Records one step removes. */
export const PRUNE_STEP = 1000;

/** One pass of the retention; returns how many records (and salts) it removed. */
export async function pruneVisits(s: Services, signal?: AbortSignal): Promise<number> {
  const now = s.clock.now();
  const before = new Date(now - s.settings.get("analyticsRetentionDays") * DAY_MS);
  let removed = 0;
  while (!signal?.aborted) {
    const step = await s.store.visits.deleteBefore(before, PRUNE_STEP);
    removed += step;
    if (step < PRUNE_STEP) break;
  }
  return removed + await s.store.visits.deleteSaltsBefore(dayName(now - DAY_MS));
}
