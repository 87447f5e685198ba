/**
 * How a batch of visits becomes additions to hourly roll-ups, the same on
 * every backend: each visit counts in its target's, its owner's and the
 * server's hour, with its dimensions; each visitor is a candidate "seen"
 * mark per roll-up, hour and day. A backend stores the marks it did not
 * hold yet and credits those (`credit`), so that a visitor counts once per
 * hour and once per day however many batches and instances bring it.
 */
import {
  SERVER_SCOPE,
  VISIT_DIMENSIONS,
  type VisitDimension,
  type VisitDimensionCount,
  type VisitRecord,
  type VisitScope,
} from "./visits.ts";

/** An hour in milliseconds. */
export const HOUR_MS = 3_600_000;
/** A day in milliseconds. */
export const DAY_MS = 24 * HOUR_MS;

/** The start of the UTC hour of `ms`. */
export const hourOf = (ms: number): number => ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS);
/** The start of the UTC day of `ms`. */
export const dayOf = (ms: number): number => ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);

/** The roll-ups a visit counts in: its target's, its owner's (when it has one), the server's. */
export function scopesOf(visit: VisitRecord): VisitScope[] {
  const scopes: VisitScope[] = [{ kind: visit.targetKind, id: visit.targetId }];
  if (visit.ownerId !== null) scopes.push({ kind: "owner", id: visit.ownerId });
  scopes.push(SERVER_SCOPE);
  return scopes;
}

/** A roll-up's key in maps. */
export const scopeKey = (scope: VisitScope): string => `${scope.kind}\0${scope.id}`;

/** That a visitor was seen in one roll-up's hour (`h`) or day (`d`) starting at `start`. */
export interface SeenMark {
  scope: VisitScope;
  span: "h" | "d";
  start: number;
  visitor: string;
  /** The hour to credit when the mark is new: the hour of the visitor's first visit in the batch. */
  hour: number;
}

/** What one batch adds to one roll-up's hour. */
export interface HourDelta {
  scope: VisitScope;
  hour: number;
  visits: number;
  hourUniques: number;
  dayUniques: number;
  /** `dimension\0value` → count. */
  dimensions: Map<string, number>;
}

/** The longest dimension value kept (a referrer host is at most 253 characters). */
export const MAX_VALUE_LENGTH = 256;

/** A mark's key in maps and sets. */
export const markKey = (m: Pick<SeenMark, "scope" | "span" | "start" | "visitor">): string =>
  `${scopeKey(m.scope)}\0${m.span}\0${m.start}\0${m.visitor}`;

/** A delta's key in maps. */
export const deltaKey = (scope: VisitScope, hour: number): string => `${scopeKey(scope)}\0${hour}`;

/**
 * The additions `visits` make to the roll-ups, and the seen marks to try:
 * one per roll-up, span and visitor, the earliest visit's hour credited.
 */
export function rollUp(
  visits: VisitRecord[],
): { deltas: Map<string, HourDelta>; marks: SeenMark[] } {
  // Identical visits (same target, hour, visitor and dimensions) are counted together first:
  // one key a visit, then the roll-up's work once per group.
  const groups = new Map<string, { visit: VisitRecord; count: number }>();
  for (const visit of visits) {
    const key = `${visit.targetKind}\0${visit.targetId}\0${visit.ownerId}\0${
      hourOf(visit.at.getTime())
    }\0${visit.visitor}\0${visit.referrer}\0${visit.country}\0${visit.browser}\0${visit.os}\0${visit.device}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { visit, count: 1 });
    else {
      group.count++;
      if (visit.at < group.visit.at) group.visit = visit;
    }
  }
  const deltas = new Map<string, HourDelta>();
  const marks = new Map<string, SeenMark>();
  const sorted = [...groups.values()].sort((a, b) => a.visit.at.getTime() - b.visit.at.getTime());
  for (const { visit, count } of sorted) {
    const at = visit.at.getTime();
    const hour = hourOf(at);
    for (const scope of scopesOf(visit)) {
      const delta = deltaOf(deltas, scope, hour);
      delta.visits += count;
      for (const dimension of VISIT_DIMENSIONS) {
        const value = visit[dimension];
        if (value === null || value === "") continue;
        const key = `${dimension}\0${value.slice(0, MAX_VALUE_LENGTH)}`;
        delta.dimensions.set(key, (delta.dimensions.get(key) ?? 0) + count);
      }
      for (const [span, start] of [["h", hour], ["d", dayOf(at)]] as const) {
        const mark = { scope, span, start, visitor: visit.visitor, hour };
        const key = markKey(mark);
        if (!marks.has(key)) marks.set(key, mark);
      }
    }
  }
  return { deltas, marks: [...marks.values()] };
}

/** The delta of `scope`'s `hour` in `deltas`, made empty when missing. */
export function deltaOf(
  deltas: Map<string, HourDelta>,
  scope: VisitScope,
  hour: number,
): HourDelta {
  const key = deltaKey(scope, hour);
  let delta = deltas.get(key);
  if (!delta) {
    delta = { scope, hour, visits: 0, hourUniques: 0, dayUniques: 0, dimensions: new Map() };
    deltas.set(key, delta);
  }
  return delta;
}

/** Credits each new mark's unique visitor to its roll-up's hour. */
export function credit(deltas: Map<string, HourDelta>, fresh: Iterable<SeenMark>): void {
  for (const mark of fresh) {
    const delta = deltaOf(deltas, mark.scope, mark.hour);
    if (mark.span === "h") delta.hourUniques++;
    else delta.dayUniques++;
  }
}

/** A delta's dimensions as counts. */
export function dimensionCounts(dimensions: Map<string, number>): VisitDimensionCount[] {
  return [...dimensions].map(([key, count]) => {
    const at = key.indexOf("\0");
    return { dimension: key.slice(0, at) as VisitDimension, value: key.slice(at + 1), count };
  });
}

/** `YYYY-MM-DD` of the UTC day of `ms`: a salt's name. */
export function dayName(ms: number): string {
  return new Date(dayOf(ms)).toISOString().slice(0, 10);
}
