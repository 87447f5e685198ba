/**
 * Visits on Deno KV. Keys:
 *
 * - `["visits", kind, id, at, seq]` → a pack of one target's raw visits from one batch
 *   (`../visit_pack.ts`: its groups as bytes, at most `PACK_BYTES`; packs stored
 *   before were arrays of groups, `VisitGroup`, or of single records, and are read
 *   alike), `at` the pack's latest; one key rather than one per visitor or visit;
 *   `["visits_at", at, kind, id, seq]` → `null`, the
 *   retention's index (a pack goes when its latest visit is past the retention);
 * - `["visits_hourly", scopeKind, scopeId, hour]` → one roll-up hour (counts and dimensions);
 *   `["visits_hll", scopeKind, scopeId, hour]` → its visitors' sketch (`../hll.ts`, encoded:
 *   at most 12,289 bytes); `["visits_hours", hour, scopeKind, scopeId]` → `null`, the
 *   retention's index;
 * - `["visits_hll_day", scopeKind, scopeId, day]` → the day's sketch (the union of its
 *   hours'), `["visits_days", day, scopeKind, scopeId]` → `null`, the retention's index;
 * - `["visit_salts", day]` → the day's salt.
 *
 * The roll-up hours a batch touches are checked read-then-writes of
 * {@link HOURS_PER_OP} hours (their counts and sketches) a commit: a
 * concurrent batch of another instance makes it read again, so neither loses
 * the other's visits or sketch registers. A roll-up hour holds at most
 * {@link MAX_DIMENSION_VALUES} dimension values (a value within KV's 64 KiB);
 * later new values count under `(other)`. Schema 11 removed the visitor marks
 * (`visits_seen`) that counted unique visitors before sketches
 * ({@link dropSeenMarks}).
 */
import { commitChecked, getAll } from "./helpers.ts";
import { unpackVisits } from "../visit_pack.ts";
import {
  prepareBatch,
  type VisitBatch,
  type VisitBatchWriter,
  type VisitStoreAddress,
} from "../visit_batch.ts";
import { decodeSketch, encodeSketch, type Sketch } from "../hll.ts";
import {
  type DaySketch,
  daySketches,
  deltaOfWrite,
  deltaSketch,
  dimensionCounts,
  type HourDelta,
  mergeSketch,
  visitsOf,
} from "../visit_rollup.ts";
import {
  SERVER_SCOPE,
  type VisitDay,
  type VisitDimensionCount,
  type VisitGroup,
  type VisitHour,
  type VisitHourWrite,
  type VisitRecord,
  type VisitScope,
  type VisitStore,
  type VisitTargetKind,
} from "../visits.ts";

/** Roll-up hours one commit reads and writes (two keys checked and three written each). */
const HOURS_PER_OP = 10;

/**
 * A stored pack: its bytes (`../visit_pack.ts`), or, as written before packs
 * were bytes, an array of groups or (before groups) of single records.
 */
type StoredPack = Uint8Array | (VisitGroup | VisitRecord)[];

/** The records of one stored pack. */
const recordsOf = (pack: StoredPack): VisitRecord[] =>
  pack instanceof Uint8Array
    ? unpackVisits(pack).flatMap(visitsOf)
    : pack.flatMap((entry) => "times" in entry ? visitsOf(entry) : [entry]);

/** How many visits a stored pack holds. */
const visitsIn = (pack: StoredPack): number =>
  pack instanceof Uint8Array
    ? unpackVisits(pack).reduce((n, g) => n + g.times.length, 0)
    : pack.reduce((n, entry) => n + ("times" in entry ? entry.times.length : 1), 0);

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

/** A roll-up's key of one hour or day under `prefix` (read by range per roll-up). */
const rollupKey = (prefix: string) => (scope: VisitScope, at: number): Deno.KvKey => [
  prefix,
  scope.kind,
  scope.id,
  at,
];
/** A retention index's key under `prefix` (read by range of time). */
const indexKey = (prefix: string) => (scope: VisitScope, at: number): Deno.KvKey => [
  prefix,
  at,
  scope.kind,
  scope.id,
];
const hourKey = rollupKey("visits_hourly");
const sketchKey = rollupKey("visits_hll");
const daySketchKey = rollupKey("visits_hll_day");
const hourIndexKey = indexKey("visits_hours");
const dayIndexKey = indexKey("visits_days");

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
export class KvVisits implements VisitStore, VisitBatchWriter {
  /** `address`: the file `kv` is, when another thread may open it too. */
  constructor(
    private readonly kv: Deno.Kv,
    readonly address: VisitStoreAddress | null = null,
  ) {}

  async add(groups: VisitGroup[]): Promise<void> {
    if (groups.length === 0) return;
    await this.write(prepareBatch(groups));
  }

  async write({ packs, hours }: VisitBatch): Promise<void> {
    for (let i = 0; i < packs.length; i += PACKS_PER_OP) {
      const op = this.kv.atomic();
      for (
        const { targetKind: kind, targetId: id, at, bytes } of packs.slice(i, i + PACKS_PER_OP)
      ) {
        const seq = crypto.randomUUID();
        op.set(["visits", kind, id, at, seq], bytes);
        op.set(["visits_at", at, kind, id, seq], null);
      }
      await op.commit();
    }
    await this.#addToHours(hours);
  }

  /**
   * Adds `deltas` to their roll-up hours: counts and dimensions added, each
   * hour's sketch merged with the visitors the delta brings (made once, not
   * on each retry).
   */
  async #addToHours(deltas: HourDelta[]): Promise<void> {
    const all = deltas.map(deltaSketch);
    for (let i = 0; i < deltas.length; i += HOURS_PER_OP) {
      const part = deltas.slice(i, i + HOURS_PER_OP);
      const sketches = all.slice(i, i + HOURS_PER_OP);
      const keys = part.flatMap((d) => [hourKey(d.scope, d.hour), sketchKey(d.scope, d.hour)]);
      await commitChecked(async () => {
        const current = await getAll<unknown>(this.kv, keys);
        const op = this.kv.atomic();
        for (const [j, delta] of part.entries()) {
          const [value, sketch] = [current[2 * j], current[2 * j + 1]];
          op.check(value, sketch);
          const stored = (value.value as HourValue | null) ?? empty();
          op.set(value.key, added(stored, asValue(delta)));
          const merged = mergeSketch(storedSketch(sketch.value), sketches[j]);
          if (merged !== null && sketches[j] !== null) op.set(sketch.key, encodeSketch(merged));
          op.set(hourIndexKey(delta.scope, delta.hour), null);
        }
        return { op, result: undefined };
      });
    }
    await this.#addToDays(daySketches(deltas, all));
  }

  /** Merges `days` into their stored day sketches, {@link HOURS_PER_OP} a commit. */
  async #addToDays(days: DaySketch[]): Promise<void> {
    for (let i = 0; i < days.length; i += HOURS_PER_OP) {
      const part = days.slice(i, i + HOURS_PER_OP);
      const keys = part.map((d) => daySketchKey(d.scope, d.day));
      await commitChecked(async () => {
        const current = await getAll<unknown>(this.kv, keys);
        const op = this.kv.atomic();
        for (const [j, day] of part.entries()) {
          const merged = mergeSketch(storedSketch(current[j].value), day.sketch)!;
          op.check(current[j]).set(keys[j], encodeSketch(merged));
          op.set(dayIndexKey(day.scope, day.day), null);
        }
        return { op, result: undefined };
      });
    }
  }

  async days(scope: VisitScope, from: Date, to: Date): Promise<VisitDay[]> {
    const entries = this.kv.list<Uint8Array>({
      start: daySketchKey(scope, from.getTime()),
      end: daySketchKey(scope, to.getTime()),
    });
    const out: VisitDay[] = [];
    for await (const e of entries) {
      out.push({ day: new Date(e.key[3] as number), sketch: decodeSketch(e.value) });
    }
    return out;
  }

  async hours(scope: VisitScope, from: Date, to: Date, sketches = true): Promise<VisitHour[]> {
    const [values, stored] = await Promise.all([
      Array.fromAsync(this.#hourEntries(scope, from, to)),
      sketches
        ? Array.fromAsync(this.kv.list<Uint8Array>({
          start: sketchKey(scope, from.getTime()),
          end: sketchKey(scope, to.getTime()),
        }, { batchSize: 500 }))
        : [],
    ]);
    const sketchOf = new Map(stored.map((e) => [e.key[3] as number, e.value]));
    return values.map((entry) => {
      const hour = entry.key[3] as number;
      return {
        hour: new Date(hour),
        visits: entry.value.visits,
        hourUniques: entry.value.hourUniques,
        dayUniques: entry.value.dayUniques,
        sketch: storedSketch(sketchOf.get(hour)),
      };
    });
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
    for await (const entry of this.kv.list<StoredPack>({ prefix: ["visits", kind, id] })) {
      yield* recordsOf(entry.value).sort((a, b) => a.at.getTime() - b.at.getTime());
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
    for await (const entry of this.kv.list<StoredPack>({ prefix: ["visits", kind, id] })) {
      const [, , , at, seq] = entry.key;
      op.delete(entry.key).delete(["visits_at", at, kind, id, seq]);
      removed += visitsIn(entry.value);
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
      await this.kv.atomic().delete(entry.key).delete(sketchKey(target, hour))
        .delete(hourIndexKey(target, hour)).commit();
    }
    await this.#deleteDays(target);
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
      const hour = entry.key[3] as number;
      await this.kv.atomic().delete(entry.key).delete(sketchKey(scope, hour))
        .delete(hourIndexKey(scope, hour)).commit();
    }
    await this.#deleteDays(scope);
  }

  /** Deletes every day sketch of `scope`. */
  async #deleteDays(scope: VisitScope): Promise<void> {
    for await (const entry of this.kv.list({ prefix: ["visits_hll_day", scope.kind, scope.id] })) {
      const day = entry.key[3] as number;
      await this.kv.atomic().delete(entry.key).delete(dayIndexKey(scope, day)).commit();
    }
  }

  async deleteBefore(before: Date, limit: number): Promise<number> {
    let removed = 0;
    const ranges: [Deno.KvKey, (key: Deno.KvKey) => Deno.KvKey[]][] = [
      [["visits_at", before.getTime()], (k) => [k, ["visits", k[2], k[3], k[1], k[4]]]],
      [["visits_hours", before.getTime()], (k) => [
        k,
        ["visits_hourly", k[2], k[3], k[1]],
        ["visits_hll", k[2], k[3], k[1]],
      ]],
      [["visits_days", before.getTime()], (k) => [k, ["visits_hll_day", k[2], k[3], k[1]]]],
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
    await this.#addToHours(hours.map(deltaOfWrite));
  }
}

/** A stored sketch's value decoded; `null` when there is none. */
const storedSketch = (value: unknown): Sketch | null =>
  value instanceof Uint8Array ? decodeSketch(value) : null;

/**
 * Schema 11: removes the visitor marks that counted unique visitors before
 * sketches, a page at a time (resumable: what a stopped pass left, the next
 * removes).
 */
export async function dropSeenMarks(kv: Deno.Kv): Promise<void> {
  for (;;) {
    const page = await Array.fromAsync(kv.list({ prefix: ["visits_seen"] }, { limit: 500 }));
    if (page.length === 0) return;
    const op = kv.atomic();
    for (const entry of page) op.delete(entry.key);
    await op.commit();
  }
}
