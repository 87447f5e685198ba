/**
 * How a batch of visits becomes additions to hourly roll-ups, the same on
 * every backend (and how visits become groups and back, `VisitGroup`): each
 * visit counts in its target's, its owner's and the server's hour, with its
 * dimensions, and its visitor's sketch entry (`hll.ts`) joins each of those
 * hours' entries. A backend merges an hour's entries into the hour's stored
 * sketch (a union: the same visitor twice, from any batch or instance,
 * counts once).
 */
import { entryOf, type Sketch, sketchOf, union } from "./hll.ts";
import {
  SERVER_SCOPE,
  VISIT_DIMENSIONS,
  type VisitDimension,
  type VisitDimensionCount,
  type VisitGroup,
  type VisitHourWrite,
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

/** What one batch adds to one roll-up's hour. */
export interface HourDelta {
  scope: VisitScope;
  hour: number;
  visits: number;
  /**
   * Exact unique counts added as given (hours written in bulk as counted
   * before sketches, `VisitHourWrite`); `0` from visits, which add `entries`.
   */
  hourUniques: number;
  dayUniques: number;
  /** The sketch entries (`entryOf`) of the hour's visitors, repeats allowed. */
  entries: number[];
  /** A sketch to merge besides `entries` (bulk writes); `null`: none. */
  sketch: Sketch | null;
  /** `dimension\0value` → count. */
  dimensions: Map<string, number>;
}

/** The sketch `delta` adds to its hour; `null` when it adds no visitor. */
export function deltaSketch(delta: HourDelta): Sketch | null {
  if (delta.entries.length === 0) return delta.sketch;
  const own = sketchOf(delta.entries);
  return delta.sketch === null ? own : union(delta.sketch, own);
}

/** What one batch adds to one roll-up's day: the union of its hours' sketches. */
export interface DaySketch {
  scope: VisitScope;
  /** The day's start (ms). */
  day: number;
  sketch: Sketch;
}

/**
 * The day sketches of `deltas`, whose own sketches are `sketches` (in the
 * same order, from {@link deltaSketch}): one per roll-up and day.
 */
export function daySketches(deltas: HourDelta[], sketches: (Sketch | null)[]): DaySketch[] {
  const days = new Map<string, DaySketch>();
  for (const [i, delta] of deltas.entries()) {
    const sketch = sketches[i];
    if (sketch === null) continue;
    const day = dayOf(delta.hour);
    const key = deltaKey(delta.scope, day);
    const held = days.get(key);
    if (held === undefined) days.set(key, { scope: delta.scope, day, sketch });
    else held.sketch = union(held.sketch, sketch);
  }
  return [...days.values()];
}

/** The delta of an hour written in bulk (`VisitStore.addHours`): added as given. */
export function deltaOfWrite(h: VisitHourWrite): HourDelta {
  return {
    scope: h.scope,
    hour: h.hour.getTime(),
    visits: h.visits,
    hourUniques: h.hourUniques,
    dayUniques: h.dayUniques,
    entries: [],
    sketch: h.sketch ?? null,
    dimensions: new Map(h.dimensions.map((d) => [`${d.dimension}\0${d.value}`, d.count])),
  };
}

/** A delta that adds nothing to `scope`'s hour. */
const emptyDelta = (scope: VisitScope, hour: number): HourDelta => ({
  scope,
  hour,
  visits: 0,
  hourUniques: 0,
  dayUniques: 0,
  entries: [],
  sketch: null,
  dimensions: new Map(),
});

/** `stored` with `added` merged in (either may be absent). */
export function mergeSketch(stored: Sketch | null, added: Sketch | null): Sketch | null {
  if (added === null) return stored;
  return stored === null ? added : union(stored, added);
}

/** The longest dimension value kept (a referrer host is at most 253 characters). */
export const MAX_VALUE_LENGTH = 256;

/** A delta's key in maps. */
export const deltaKey = (scope: VisitScope, hour: number): string => `${scopeKey(scope)}\0${hour}`;

/**
 * The additions `groups` make to the roll-ups: visits, dimensions and the
 * visitors' sketch entries per roll-up and hour. The work is per group and
 * hour, not per visit.
 */
export function rollUp(groups: VisitGroup[]): Map<string, HourDelta> {
  const deltas = new Map<string, HourDelta>();
  // A group's visits of one hour in a row with the group before's, of one target, owner and
  // hour (most of a batch), are a run, counted once and then added to each of its roll-ups'
  // deltas: a group costs its dimensions' counts once, not once a roll-up.
  const keys = dimensionKeyMemo();
  let first: VisitGroup | undefined;
  let run: HourDelta = emptyDelta(SERVER_SCOPE, 0);
  const flush = () => {
    if (first === undefined) return;
    for (const scope of scopesOf(first)) addRun(deltaOf(deltas, scope, run.hour), run);
  };
  const count = (group: VisitGroup, hour: number, visits: number) => {
    if (
      first === undefined || run.hour !== hour || first.targetId !== group.targetId ||
      first.targetKind !== group.targetKind || first.ownerId !== group.ownerId
    ) {
      flush();
      first = group;
      run = emptyDelta(SERVER_SCOPE, hour);
    }
    run.visits += visits;
    for (const dimension of VISIT_DIMENSIONS) {
      const key = keys(dimension, group[dimension]);
      if (key !== null) run.dimensions.set(key, (run.dimensions.get(key) ?? 0) + visits);
    }
    run.entries.push(entryOf(group.visitor));
  };
  for (const group of groups) {
    const { times } = group;
    if (times.length === 1) {
      count(group, hourOf(times[0]), 1);
      continue;
    }
    // Its visits per hour, in the order their hours first come.
    const hours = new Map<number, number>();
    for (const at of times) {
      const hour = hourOf(at);
      hours.set(hour, (hours.get(hour) ?? 0) + 1);
    }
    for (const [hour, visits] of hours) count(group, hour, visits);
  }
  flush();
  return deltas;
}

/** Adds a run's counts and entries to `delta`. */
function addRun(delta: HourDelta, run: HourDelta): void {
  delta.visits += run.visits;
  for (const [key, count] of run.dimensions) {
    delta.dimensions.set(key, (delta.dimensions.get(key) ?? 0) + count);
  }
  for (const entry of run.entries) delta.entries.push(entry);
}

/**
 * The `dimension\0value` key of a dimension's value (`null` without one),
 * each made once: a batch's visitors share a few browsers and referrers.
 */
function dimensionKeyMemo(): (dimension: VisitDimension, value: string | null) => string | null {
  const made = new Map<VisitDimension, Map<string, string>>(
    VISIT_DIMENSIONS.map((d) => [d, new Map()]),
  );
  return (dimension, value) => {
    if (value === null || value === "") return null;
    const own = made.get(dimension)!;
    let key = own.get(value);
    if (key === undefined) {
      own.set(value, key = `${dimension}\0${value.slice(0, MAX_VALUE_LENGTH)}`);
    }
    return key;
  };
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

/** The delta of `scope`'s `hour` in `deltas`, made empty when missing. */
export function deltaOf(
  deltas: Map<string, HourDelta>,
  scope: VisitScope,
  hour: number,
): HourDelta {
  const key = deltaKey(scope, hour);
  let delta = deltas.get(key);
  if (!delta) deltas.set(key, delta = emptyDelta(scope, hour));
  return delta;
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
