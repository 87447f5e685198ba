/**
 * Unique visitors of roll-up hours (`VisitHour`): an hour's, its sketch's
 * estimate; a day's, the estimate of its day sketch (the union of its hours'
 * sketches, `VisitDay`); each
 * plus the exact counts carried from before sketches (`db/visits.ts`), and
 * never more than the visits they are of (a deleted link's visitors stay in
 * its owner's and the server's sketches).
 */
import { estimate, type Sketch } from "./hll.ts";
import type { VisitHour } from "./visits.ts";

/** The unique visitors of one hour. */
export function hourUniques(hour: VisitHour): number {
  const counted = hour.sketch === null ? 0 : estimate(hour.sketch);
  return Math.min(hour.visits, hour.hourUniques + counted);
}

/**
 * The unique visitors of `hours`, all of one day (the hash is salted per
 * day), whose sketch is `day` (the union of its hours'; `null`: none).
 */
export function dayUniques(hours: VisitHour[], day: Sketch | null): number {
  let visits = 0;
  let exact = 0;
  for (const hour of hours) {
    visits += hour.visits;
    exact += hour.dayUniques;
  }
  return Math.min(visits, exact + (day === null ? 0 : estimate(day)));
}
