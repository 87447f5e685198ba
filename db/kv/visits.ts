/**
 * Visits on Deno KV. Keys:
 *
 * - `["visits", kind, id, at, seq]` → a pack of one target's raw visits from one batch, as
 *   groups (`VisitGroup`: one visitor's alike visits, each visit a time; packs stored
 *   before groups hold single records) of at most {@link PACK_BYTES}, `at` the pack's
 *   latest; one key rather than one per visit, which a busy link would pay per request; `["visits_at", at, kind, id, seq]` → `null`, the
 *   retention's index (a pack goes when its latest visit is past the retention);
 * - `["visits_hourly", scopeKind, scopeId, hour]` → one roll-up hour (counts and dimensions);
 *   `["visits_hours", hour, scopeKind, scopeId]` → `null`, the retention's index;
 * - `["visits_seen", start, scopeKind, scopeId, span, visitor]` → `true`: a visitor seen in an
 *   hour (`h`) or day (`d`), by period first so the retention removes old ones by range;
 * - `["visit_salts", day]` → the day's salt.
 *
 * Each roll-up hour a batch touches is one checked read-then-write with the
 * absent marks it credits (at most {@link MARKS_PER_OP} a commit, within KV's
 * 100 checks): a concurrent batch of another instance makes it read again.
 * A roll-up hour holds at most {@link MAX_DIMENSION_VALUES} dimension values
 * (a value within KV's 64 KiB); later new values count under `(other)`.
 */
import { commitChecked, getAll } from "./helpers.ts";
import {
  credit,
  deltaKey,
  dimensionCounts,
  type HourDelta,
  partsOf,
  rollUp,
  type SeenMark,
  visitsOf,
} from "../visit_rollup.ts";
import {
  SERVER_SCOPE,
  type VisitDimensionCount,
  type VisitGroup,
  type VisitHour,
  type VisitHourWrite,
  type VisitRecord,
  type VisitScope,
  type VisitStore,
  type VisitTargetKind,
} from "../visits.ts";

/** Seen marks one commit checks and writes. */
const MARKS_PER_OP = 90;
/**
 * The most a pack of raw visits may weigh, estimated by {@link groupBytes}
 * and {@link TIME_BYTES} (within KV's 64 KiB a value).
 */
export const PACK_BYTES = 48 * 1024;
/** What one visit's time adds to a pack: a double in V8's serialization. */
const TIME_BYTES = 9;

/** A generous estimate of what a group's fields weigh in a pack, its times aside. */
const groupBytes = (g: VisitGroup): number =>
  160 + [g.targetId, g.ownerId, g.referrer, g.country, g.browser, g.os, g.device, g.visitor]
    .reduce((n, value) => n + 3 * (value?.length ?? 0) + 4, 0);

/**
 * What a pack holds: groups, or single records as packs stored before
 * groups held them (read alike).
 */
type PackEntry = VisitGroup | VisitRecord;

/** The records of one pack entry. */
const recordsOf = (entry: PackEntry): VisitRecord[] => "times" in entry ? visitsOf(entry) : [entry];
/** Packs one commit writes (two keys each), within KV's 800 KiB a commit. */
const PACKS_PER_OP = 8;
/** Dimension values one roll-up hour keeps. */
export const MAX_DIMENSION_VALUES = 400;
/** The value counted in place of new ones past {@link MAX_DIMENSION_VALUES}. */
export const OTHER = "(other)";
/** Records one retention step deletes per commit. */
const DELETES_PER_OP = 200;

/** One roll-up hour as stored. */
interface HourValue {
  visits: number;
  hourUniques: number;
  dayUniques: number;
  /** `dimension\0value` → count. */
  dimensions: Record<string, number>;
}

const hourKey = (scope: VisitScope, hour: number): Deno.KvKey => [
  "visits_hourly",
  scope.kind,
  scope.id,
  hour,
];
const hourIndexKey = (scope: VisitScope, hour: number): Deno.KvKey => [
  "visits_hours",
  hour,
  scope.kind,
  scope.id,
];
const markKvKey = (m: SeenMark): Deno.KvKey => [
  "visits_seen",
  m.start,
  m.scope.kind,
  m.scope.id,
  m.span,
  m.visitor,
];

const empty = (): HourValue => ({ visits: 0, hourUniques: 0, dayUniques: 0, dimensions: {} });

/** `value` with `delta` added (`sign` -1 subtracts, never below zero). */
function added(value: HourValue, delta: HourValue, sign = 1): HourValue {
  const clamp = (n: number) => Math.max(0, n);
  const dimensions = { ...value.dimensions };
  let kept = Object.keys(dimensions).length;
  for (const [key, count] of Object.entries(delta.dimensions)) {
    let into = key;
    if (!(key in dimensions)) {
      if (sign < 0) continue;
      if (kept >= MAX_DIMENSION_VALUES) into = `${key.slice(0, key.indexOf("\0"))}\0${OTHER}`;
      else kept++;
    }
    const next = clamp((dimensions[into] ?? 0) + sign * count);
    if (next === 0) delete dimensions[into];
    else dimensions[into] = next;
  }
  return {
    visits: clamp(value.visits + sign * delta.visits),
    hourUniques: clamp(value.hourUniques + sign * delta.hourUniques),
    dayUniques: clamp(value.dayUniques + sign * delta.dayUniques),
    dimensions,
  };
}

const asValue = (d: HourDelta): HourValue => ({
  visits: d.visits,
  hourUniques: d.hourUniques,
  dayUniques: d.dayUniques,
  dimensions: Object.fromEntries(d.dimensions),
});

/** {@link VisitStore} on Deno KV. */
export class KvVisits implements VisitStore {
  constructor(private readonly kv: Deno.Kv) {}

  async add(groups: VisitGroup[]): Promise<void> {
    if (groups.length === 0) return;
    const byTarget = new Map<string, VisitGroup[]>();
    for (const group of groups) {
      const key = `${group.targetKind}\0${group.targetId}`;
      const list = byTarget.get(key);
      if (list) list.push(group);
      else byTarget.set(key, [group]);
    }
    const packs: VisitGroup[][] = [];
    for (const list of byTarget.values()) {
      packs.push(...partsOf(list, PACK_BYTES, TIME_BYTES, groupBytes));
    }
    for (let i = 0; i < packs.length; i += PACKS_PER_OP) {
      const op = this.kv.atomic();
      for (const pack of packs.slice(i, i + PACKS_PER_OP)) {
        const seq = crypto.randomUUID();
        const { targetKind: kind, targetId: id } = pack[0];
        let at = -Infinity;
        for (const group of pack) for (const time of group.times) if (time > at) at = time;
        op.set(["visits", kind, id, at, seq], pack);
        op.set(["visits_at", at, kind, id, seq], null);
      }
      await op.commit();
    }
    const { deltas, marks } = rollUp(groups);
    const marksOf = new Map<string, SeenMark[]>();
    for (const mark of marks) {
      const key = deltaKey(mark.scope, mark.hour);
      const list = marksOf.get(key);
      if (list) list.push(mark);
      else marksOf.set(key, [mark]);
    }
    for (const [key, delta] of deltas) {
      const all = marksOf.get(key) ?? [];
      await this.#addToHour(delta, all.slice(0, MARKS_PER_OP));
      for (let i = MARKS_PER_OP; i < all.length; i += MARKS_PER_OP) {
        const rest = { ...delta, visits: 0, dimensions: new Map() };
        await this.#addToHour(rest, all.slice(i, i + MARKS_PER_OP));
      }
    }
  }

  /** Adds `delta` and the absent ones of `marks` (credited) to one roll-up hour. */
  async #addToHour(delta: HourDelta, marks: SeenMark[]): Promise<void> {
    const key = hourKey(delta.scope, delta.hour);
    await commitChecked(async () => {
      const [current, ...seen] = await getAll<unknown>(this.kv, [key, ...marks.map(markKvKey)]);
      const fresh = marks.filter((_, i) => seen[i].versionstamp === null);
      const deltas = new Map([[deltaKey(delta.scope, delta.hour), { ...delta }]]);
      credit(deltas, fresh);
      const [withMarks] = deltas.values();
      const op = this.kv.atomic().check(current);
      for (const [i, mark] of marks.entries()) {
        if (seen[i].versionstamp === null) op.check(seen[i]).set(markKvKey(mark), true);
      }
      op.set(key, added((current.value as HourValue | null) ?? empty(), asValue(withMarks)));
      op.set(hourIndexKey(delta.scope, delta.hour), null);
      return { op, result: undefined };
    });
  }

  async hours(scope: VisitScope, from: Date, to: Date): Promise<VisitHour[]> {
    const out: VisitHour[] = [];
    for await (const entry of this.#hourEntries(scope, from, to)) {
      out.push({
        hour: new Date(entry.key[3] as number),
        visits: entry.value.visits,
        hourUniques: entry.value.hourUniques,
        dayUniques: entry.value.dayUniques,
      });
    }
    return out;
  }

  async dimensions(scope: VisitScope, from: Date, to: Date): Promise<VisitDimensionCount[]> {
    const sums = new Map<string, number>();
    for await (const entry of this.#hourEntries(scope, from, to)) {
      for (const [key, count] of Object.entries(entry.value.dimensions)) {
        sums.set(key, (sums.get(key) ?? 0) + count);
      }
    }
    return dimensionCounts(sums).filter((c) => c.count > 0);
  }

  #hourEntries(scope: VisitScope, from: Date, to: Date) {
    return this.kv.list<HourValue>({
      start: hourKey(scope, from.getTime()),
      end: hourKey(scope, to.getTime()),
    }, { batchSize: 500 });
  }

  async *list(kind: VisitTargetKind, id: string): AsyncIterable<VisitRecord> {
    for await (const entry of this.kv.list<PackEntry[]>({ prefix: ["visits", kind, id] })) {
      yield* entry.value.flatMap(recordsOf).sort((a, b) => a.at.getTime() - b.at.getTime());
    }
  }

  /** One target after the other: each is two prefix reads when it has no visits. */
  async deleteTargets(
    kind: VisitTargetKind,
    targets: { id: string; ownerId: string | null }[],
  ): Promise<number> {
    let removed = 0;
    for (const t of targets) removed += await this.deleteTarget(kind, t.id, t.ownerId);
    return removed;
  }

  async deleteTarget(kind: VisitTargetKind, id: string, ownerId: string | null): Promise<number> {
    let removed = 0;
    let op = this.kv.atomic();
    let pending = 0;
    const flush = async () => {
      if (pending > 0) await op.commit();
      op = this.kv.atomic();
      pending = 0;
    };
    for await (const entry of this.kv.list<PackEntry[]>({ prefix: ["visits", kind, id] })) {
      const [, , , at, seq] = entry.key;
      op.delete(entry.key).delete(["visits_at", at, kind, id, seq]);
      for (const packed of entry.value) removed += "times" in packed ? packed.times.length : 1;
      if (++pending >= DELETES_PER_OP) await flush();
    }
    await flush();
    const target: VisitScope = { kind, id };
    const rollups = ownerId === null
      ? [SERVER_SCOPE]
      : [{ kind: "owner" as const, id: ownerId }, SERVER_SCOPE];
    for await (const entry of this.kv.list<HourValue>({ prefix: ["visits_hourly", kind, id] })) {
      const hour = entry.key[3] as number;
      for (const scope of rollups) await this.#subtract(scope, hour, entry.value);
      await this.kv.atomic().delete(entry.key).delete(hourIndexKey(target, hour)).commit();
    }
    return removed;
  }

  /** Takes `value` out of one roll-up hour. */
  async #subtract(scope: VisitScope, hour: number, value: HourValue): Promise<void> {
    const key = hourKey(scope, hour);
    await commitChecked(async () => {
      const current = await this.kv.get<HourValue>(key);
      if (current.value === null) return { result: undefined };
      const op = this.kv.atomic().check(current).set(key, added(current.value, value, -1));
      return { op, result: undefined };
    });
  }

  async deleteOwner(ownerId: string): Promise<void> {
    const scope: VisitScope = { kind: "owner", id: ownerId };
    for await (const entry of this.kv.list({ prefix: ["visits_hourly", "owner", ownerId] })) {
      await this.kv.atomic().delete(entry.key).delete(hourIndexKey(scope, entry.key[3] as number))
        .commit();
    }
  }

  async deleteBefore(before: Date, seenBefore: Date, limit: number): Promise<number> {
    let removed = 0;
    const ranges: [Deno.KvKey, (key: Deno.KvKey) => Deno.KvKey[]][] = [
      [["visits_at", before.getTime()], (k) => [k, ["visits", k[2], k[3], k[1], k[4]]]],
      [["visits_hours", before.getTime()], (k) => [k, ["visits_hourly", k[2], k[3], k[1]]]],
      [["visits_seen", seenBefore.getTime()], (k) => [k]],
    ];
    for (const [end, keysOf] of ranges) {
      const prefix = [end[0]];
      let op = this.kv.atomic();
      let pending = 0;
      for await (
        const entry of this.kv.list({ start: prefix, end }, { limit: limit - removed })
      ) {
        for (const key of keysOf(entry.key)) op.delete(key);
        removed++;
        if (++pending >= DELETES_PER_OP) {
          await op.commit();
          op = this.kv.atomic();
          pending = 0;
        }
      }
      if (pending > 0) await op.commit();
      if (removed >= limit) break;
    }
    return removed;
  }

  async salt(day: string, fresh: string): Promise<string> {
    const key = ["visit_salts", day];
    return await commitChecked(async () => {
      const current = await this.kv.get<string>(key);
      if (current.value !== null) return { result: current.value };
      return { op: this.kv.atomic().check(current).set(key, fresh), result: fresh };
    });
  }

  async deleteSaltsBefore(day: string): Promise<number> {
    let removed = 0;
    for await (
      const entry of this.kv.list({ start: ["visit_salts"], end: ["visit_salts", day] })
    ) {
      await this.kv.delete(entry.key);
      removed++;
    }
    return removed;
  }

  async addHours(hours: VisitHourWrite[]): Promise<void> {
    for (let i = 0; i < hours.length; i += 40) {
      const part = hours.slice(i, i + 40);
      const keys = part.map((h) => hourKey(h.scope, h.hour.getTime()));
      await commitChecked(async () => {
        const current = await getAll<HourValue>(this.kv, keys);
        const op = this.kv.atomic();
        for (const [j, h] of part.entries()) {
          const value: HourValue = {
            visits: h.visits,
            hourUniques: h.hourUniques,
            dayUniques: h.dayUniques,
            dimensions: Object.fromEntries(
              h.dimensions.map((d) => [`${d.dimension}\0${d.value}`, d.count]),
            ),
          };
          op.check(current[j]).set(keys[j], added(current[j].value ?? empty(), value));
          op.set(hourIndexKey(h.scope, h.hour.getTime()), null);
        }
        return { op, result: undefined };
      });
    }
  }
}
