/**
 * Unique visitors of roll-up hours (`VisitHour`): an hour's, its sketch's
 * estimate; a day's, the estimate of the union of its hours' sketches; each
 * plus the exact counts carried from before sketches (`db/visits.ts`), and
 * never more than the visits they are of (a deleted link's visitors stay in
 * its owner's and the server's sketches).
 */
import { estimate, unionAll } from "./hll.ts";
import type { VisitHour } from "./visits.ts";

/** The unique visitors of one hour. */
export function hourUniques(hour: VisitHour): number {
  const counted = hour.sketch === null ? 0 : estimate(hour.sketch);
  return Math.min(hour.visits, hour.hourUniques + counted);
}

/** The unique visitors of `hours`, all of one day (the hash is salted per day). */
export function dayUniques(hours: VisitHour[]): number {
  let visits = 0;
  let exact = 0;
  for (const hour of hours) {
    visits += hour.visits;
    exact += hour.dayUniques;
  }
  const sketch = unionAll(hours.flatMap((h) => h.sketch === null ? [] : [h.sketch]));
  return Math.min(visits, exact + (sketch === null ? 0 : estimate(sketch)));
}
