/**
 * How a batch of visits becomes additions to hourly roll-ups, the same on
 * every backend (and how visits become groups and back, `VisitGroup`): each visit counts in its target's, its owner's and the
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
  type VisitGroup,
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
export function scopesOf(
  visit: Pick<VisitRecord, "targetKind" | "targetId" | "ownerId">,
): VisitScope[] {
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

/** One group's visits in one hour: counted together. */
interface HourUnit {
  group: VisitGroup;
  hour: number;
  /** The earliest of these visits (ms). */
  first: number;
  count: number;
}

/**
 * The additions `groups` make to the roll-ups, and the seen marks to try:
 * one per roll-up, span and visitor, the earliest visit's hour credited.
 * The work is per group and hour, not per visit.
 */
export function rollUp(
  groups: VisitGroup[],
): { deltas: Map<string, HourDelta>; marks: SeenMark[] } {
  const units: HourUnit[] = [];
  for (const group of groups) {
    const { times } = group;
    if (times.length === 1) {
      units.push({ group, hour: hourOf(times[0]), first: times[0], count: 1 });
      continue;
    }
    const own = new Map<number, HourUnit>();
    let last: HourUnit | undefined;
    for (const at of times) {
      const hour = hourOf(at);
      let unit = last !== undefined && last.hour === hour ? last : own.get(hour);
      if (unit === undefined) {
        own.set(hour, unit = { group, hour, first: at, count: 0 });
        units.push(unit);
      }
      unit.count++;
      if (at < unit.first) unit.first = at;
      last = unit;
    }
  }
  units.sort((a, b) => a.first - b.first);
  const deltas = new Map<string, HourDelta>();
  const marks = new Map<string, SeenMark>();
  const addMark = (mark: SeenMark) => {
    const key = markKey(mark);
    if (!marks.has(key)) marks.set(key, mark);
  };
  for (const { group, hour, first, count } of units) {
    const dimensions = dimensionKeys(group);
    const { visitor } = group;
    const day = dayOf(first);
    for (const scope of scopesOf(group)) {
      const delta = deltaOf(deltas, scope, hour);
      delta.visits += count;
      for (const key of dimensions) {
        delta.dimensions.set(key, (delta.dimensions.get(key) ?? 0) + count);
      }
      addMark({ scope, span: "h", start: hour, visitor, hour });
      addMark({ scope, span: "d", start: day, visitor, hour });
    }
  }
  return { deltas, marks: [...marks.values()] };
}

/** The `dimension\0value` keys of a group's dimensions that have a value. */
function dimensionKeys(group: VisitGroup): string[] {
  const keys: string[] = [];
  for (const dimension of VISIT_DIMENSIONS) {
    const value = group[dimension];
    if (value === null || value === "") continue;
    keys.push(`${dimension}\0${value.slice(0, MAX_VALUE_LENGTH)}`);
  }
  return keys;
}

/** The fields that make visits alike, as one string. */
const alikeKey = (v: Omit<VisitRecord, "at">): string =>
  JSON.stringify([
    v.targetKind,
    v.targetId,
    v.ownerId,
    v.visitor,
    v.referrer,
    v.country,
    v.browser,
    v.os,
    v.device,
    v.bot,
  ]);

/** `visits` as groups (imports): those alike in all but their time together. */
export function groupVisits(visits: VisitRecord[]): VisitGroup[] {
  const groups = new Map<string, VisitGroup>();
  for (const visit of visits) {
    const key = alikeKey(visit);
    let group = groups.get(key);
    if (group === undefined) {
      const { at: _, ...record } = visit;
      groups.set(key, group = { ...record, times: [] });
    }
    group.times.push(visit.at.getTime());
  }
  return [...groups.values()];
}

/** The visits a group stands for, in its times' order. */
export function visitsOf(g: VisitGroup): VisitRecord[] {
  return g.times.map((at) => ({
    targetKind: g.targetKind,
    targetId: g.targetId,
    ownerId: g.ownerId,
    at: new Date(at),
    referrer: g.referrer,
    country: g.country,
    browser: g.browser,
    os: g.os,
    device: g.device,
    bot: g.bot,
    visitor: g.visitor,
  }));
}

/** How many visits `groups` hold. */
export const visitCount = (groups: VisitGroup[]): number =>
  groups.reduce((n, g) => n + g.times.length, 0);

/**
 * `groups` in parts that each weigh at most `capacity`: a group weighs
 * `weigh(group)` plus `perTime` a visit; a group too heavy for the room
 * left is split by its times.
 */
export function partsOf(
  groups: VisitGroup[],
  capacity: number,
  perTime: number,
  weigh: (group: VisitGroup) => number = () => 0,
): VisitGroup[][] {
  const parts: VisitGroup[][] = [];
  let part: VisitGroup[] = [];
  let used = 0;
  for (const group of groups) {
    const own = weigh(group);
    if (own + perTime > capacity) throw new Error("a visit outweighs a part");
    const { times } = group;
    let start = 0;
    while (start < times.length) {
      const room = Math.floor((capacity - used - own) / perTime);
      if (room < 1) {
        parts.push(part);
        part = [];
        used = 0;
        continue;
      }
      const end = Math.min(times.length, start + room);
      part.push(
        start === 0 && end === times.length ? group : {
          ...group,
          times: times.slice(start, end),
        },
      );
      used += own + (end - start) * perTime;
      start = end;
    }
  }
  if (part.length > 0) parts.push(part);
  return parts;
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
  for (const mark of fresh) creditMarks(deltas, mark, 1);
}

/** Credits `count` new marks of one roll-up's span, credited to `hour`. */
export function creditMarks(
  deltas: Map<string, HourDelta>,
  { scope, span, hour }: Pick<SeenMark, "scope" | "span" | "hour">,
  count: number,
): void {
  const delta = deltaOf(deltas, scope, hour);
  if (span === "h") delta.hourUniques += count;
  else delta.dayUniques += count;
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
