/**
 * Visits on PostgreSQL: a batch is one transaction of four statements (the
 * raw visits, a row per target and batch in `visit_packs` holding its groups
 * of alike visits as bytes (039, `../visit_pack.ts`; rows of `visits` stored
 * before, a row per group (032), are read, exported and deleted alike); the
 * hours upserted by addition, answering their stored sketches (037) with
 * the rows locked; the sketches merged with the batch's visitors written
 * back; the same for the days' sketches (`visits_daily`); the hours'
 * dimensions upserted by addition), each over arrays with
 * `unnest` and in key order, so that concurrent batches of several
 * instances add up exactly, lose no sketch register, and never deadlock.
 */
import type { Sql } from "postgres";
import { Buffer } from "node:buffer";
import { decodeSketch, encodeSketch, type Sketch } from "../hll.ts";
import {
  type DaySketch,
  daySketches,
  deltaKey,
  deltaOfWrite,
  deltaSketch,
  dimensionCounts,
  type HourDelta,
  mergeSketch,
  visitsOf,
} from "../visit_rollup.ts";
import type {
  VisitDay,
  VisitDimension,
  VisitDimensionCount,
  VisitGroup,
  VisitHour,
  VisitHourWrite,
  VisitRecord,
  VisitScope,
  VisitStore,
  VisitTargetKind,
} from "../visits.ts";
import { SERVER_SCOPE } from "../visits.ts";
import { unpackVisits, type VisitPack } from "../visit_pack.ts";
import {
  prepareBatch,
  type VisitBatch,
  type VisitBatchWriter,
  type VisitStoreAddress,
} from "../visit_batch.ts";

/** Rows stored per statement. */
const ROWS_PER_STATEMENT = 5000;
/** Packs one statement inserts (about 10 MiB of hex at most). */
const PACKS_PER_STATEMENT = 100;

interface VisitRow {
  /** Each visit's time (ms) when the row holds several; `null`: one visit, at `at`. */
  times: string[] | null;
  target_kind: VisitTargetKind;
  target_id: string;
  owner_id: string | null;
  at: Date;
  referrer: string | null;
  country: string | null;
  browser: string | null;
  os: string | null;
  device: string;
  bot: boolean;
  visitor: string;
}

/** The visits of one raw row. */
const visitsOfRow = (r: VisitRow): VisitRecord[] =>
  visitsOf({
    targetKind: r.target_kind,
    targetId: r.target_id,
    ownerId: r.owner_id,
    referrer: r.referrer,
    country: r.country,
    browser: r.browser,
    os: r.os,
    device: r.device,
    bot: r.bot,
    visitor: r.visitor,
    times: r.times === null ? [r.at.getTime()] : r.times.map(Number),
  });

/** {@link VisitStore} on PostgreSQL. */
export class PostgresVisits implements VisitStore, VisitBatchWriter {
  /** `address`: the server's URL, when another thread may connect too. */
  constructor(
    private readonly sql: Sql,
    readonly address: VisitStoreAddress | null = null,
  ) {}

  async add(groups: VisitGroup[]): Promise<void> {
    if (groups.length === 0) return;
    await this.write(prepareBatch(groups));
  }

  async write({ packs, hours }: VisitBatch): Promise<void> {
    if (packs.length === 0 && hours.length === 0) return;
    await this.sql.begin(async (tx) => {
      for (let i = 0; i < packs.length; i += PACKS_PER_STATEMENT) {
        await insertPacks(tx as unknown as Sql, packs.slice(i, i + PACKS_PER_STATEMENT));
      }
      await addDeltas(tx as unknown as Sql, hours);
    });
  }

  async days(scope: VisitScope, from: Date, to: Date): Promise<VisitDay[]> {
    const rows = await this.sql<{ day: Date; sketch: Uint8Array }[]>`
      SELECT day, sketch FROM visits_daily
      WHERE target_kind = ${scope.kind} AND target_id = ${scope.id}
        AND day >= ${from} AND day < ${to} AND sketch IS NOT NULL
      ORDER BY day`;
    return rows.map((r) => ({ day: r.day, sketch: decodeSketch(r.sketch) }));
  }

  async hours(scope: VisitScope, from: Date, to: Date, sketches = true): Promise<VisitHour[]> {
    const rows = await this.sql<
      {
        hour: Date;
        visits: string;
        hour_uniques: string;
        day_uniques: string;
        sketch: Uint8Array | null;
      }[]
    >`
      SELECT hour, visits, hour_uniques, day_uniques, CASE WHEN ${sketches} THEN sketch END AS sketch
      FROM visits_hourly
      WHERE target_kind = ${scope.kind} AND target_id = ${scope.id}
        AND hour >= ${from} AND hour < ${to}
      ORDER BY hour`;
    return rows.map((r) => ({
      hour: r.hour,
      visits: Number(r.visits),
      hourUniques: Number(r.hour_uniques),
      dayUniques: Number(r.day_uniques),
      sketch: r.sketch === null ? null : decodeSketch(r.sketch),
    }));
  }

  async dimensions(scope: VisitScope, from: Date, to: Date): Promise<VisitDimensionCount[]> {
    const rows = await this.sql<{ dimension: VisitDimension; value: string; count: string }[]>`
      SELECT dimension, value, sum(count) AS count FROM visits_hourly_dims
      WHERE target_kind = ${scope.kind} AND target_id = ${scope.id}
        AND hour >= ${from} AND hour < ${to}
      GROUP BY dimension, value HAVING sum(count) > 0`;
    return rows.map((r) => ({ dimension: r.dimension, value: r.value, count: Number(r.count) }));
  }

  async *list(kind: VisitTargetKind, id: string): AsyncIterable<VisitRecord> {
    // Rows stored before packs first: they are older than any pack.
    let after = "0";
    for (;;) {
      const rows = await this.sql<(VisitRow & { id: string })[]>`
        SELECT * FROM visits WHERE target_kind = ${kind} AND target_id = ${id} AND id > ${after}::bigint
        ORDER BY id LIMIT 1000`;
      for (const row of rows) yield* visitsOfRow(row);
      if (rows.length < 1000) break;
      after = String(rows[rows.length - 1].id);
    }
    after = "0";
    for (;;) {
      const rows = await this.sql<{ id: string; pack: Uint8Array }[]>`
        SELECT id, pack FROM visit_packs
        WHERE target_kind = ${kind} AND target_id = ${id} AND id > ${after}::bigint
        ORDER BY id LIMIT 50`;
      for (const row of rows) {
        yield* unpackVisits(row.pack).flatMap(visitsOf).sort((a, b) =>
          a.at.getTime() - b.at.getTime()
        );
      }
      if (rows.length < 50) return;
      after = String(rows[rows.length - 1].id);
    }
  }

  deleteTarget(kind: VisitTargetKind, id: string, ownerId: string | null): Promise<number> {
    return this.deleteTargets(kind, [{ id, ownerId }]);
  }

  /**
   * One transaction per owner among `targets`, whose statements each take
   * all of that owner's targets (`= ANY`): the roll-ups' hours are summed over
   * the targets before they are taken out of the owner's and the server's.
   */
  async deleteTargets(
    kind: VisitTargetKind,
    targets: { id: string; ownerId: string | null }[],
  ): Promise<number> {
    const owners = new Map<string | null, string[]>();
    for (const t of targets) owners.set(t.ownerId, [...owners.get(t.ownerId) ?? [], t.id]);
    let removed = 0;
    for (const [ownerId, ids] of owners) removed += await this.#deleteOwned(kind, ids, ownerId);
    return removed;
  }

  /** {@link deleteTargets} of targets of one owner. */
  async #deleteOwned(kind: VisitTargetKind, ids: string[], ownerId: string | null) {
    return await this.sql.begin(async (tx) => {
      const [raw] = await tx<{ n: string }[]>`
        WITH gone AS (
          DELETE FROM visits WHERE target_kind = ${kind} AND target_id = ANY(${ids})
          RETURNING coalesce(cardinality(times), 1) AS n
        ), packs AS (
          DELETE FROM visit_packs WHERE target_kind = ${kind} AND target_id = ANY(${ids})
          RETURNING visits AS n
        )
        SELECT (SELECT coalesce(sum(n), 0) FROM gone) + (SELECT coalesce(sum(n), 0) FROM packs)
          AS n`;
      const scopes = ownerId === null
        ? [SERVER_SCOPE]
        : [{ kind: "owner", id: ownerId }, SERVER_SCOPE];
      for (const scope of scopes) {
        await tx`
          UPDATE visits_hourly AS o SET
            visits = GREATEST(o.visits - t.visits, 0),
            hour_uniques = GREATEST(o.hour_uniques - t.hour_uniques, 0),
            day_uniques = GREATEST(o.day_uniques - t.day_uniques, 0)
          FROM (SELECT hour, sum(visits) AS visits, sum(hour_uniques) AS hour_uniques,
              sum(day_uniques) AS day_uniques
            FROM visits_hourly WHERE target_kind = ${kind} AND target_id = ANY(${ids})
            GROUP BY hour) AS t
          WHERE o.target_kind = ${scope.kind} AND o.target_id = ${scope.id} AND o.hour = t.hour`;
        await tx`
          UPDATE visits_hourly_dims AS o SET count = GREATEST(o.count - t.count, 0)
          FROM (SELECT hour, dimension, value, sum(count) AS count
            FROM visits_hourly_dims WHERE target_kind = ${kind} AND target_id = ANY(${ids})
            GROUP BY hour, dimension, value) AS t
          WHERE o.target_kind = ${scope.kind} AND o.target_id = ${scope.id} AND o.hour = t.hour
            AND o.dimension = t.dimension AND o.value = t.value`;
      }
      await tx`DELETE FROM visits_hourly WHERE target_kind = ${kind} AND target_id = ANY(${ids})`;
      await tx`
        DELETE FROM visits_hourly_dims WHERE target_kind = ${kind} AND target_id = ANY(${ids})`;
      await tx`DELETE FROM visits_daily WHERE target_kind = ${kind} AND target_id = ANY(${ids})`;
      return Number(raw.n);
    });
  }

  async deleteOwner(ownerId: string): Promise<void> {
    await this.sql.begin(async (tx) => {
      await tx`DELETE FROM visits_hourly WHERE target_kind = 'owner' AND target_id = ${ownerId}`;
      await tx`
        DELETE FROM visits_hourly_dims WHERE target_kind = 'owner' AND target_id = ${ownerId}`;
      await tx`DELETE FROM visits_daily WHERE target_kind = 'owner' AND target_id = ${ownerId}`;
    });
  }

  async deleteBefore(before: Date, limit: number): Promise<number> {
    let removed = 0;
    for (
      const table of [
        "visits",
        "visit_packs",
        "visits_hourly",
        "visits_hourly_dims",
        "visits_daily",
      ] as const
    ) {
      const left = limit - removed;
      if (left <= 0) break;
      const column = table === "visits" || table === "visit_packs"
        ? "at"
        : table === "visits_daily"
        ? "day"
        : "hour";
      const result = await this.sql`
        DELETE FROM ${this.sql(table)} WHERE ctid = ANY(ARRAY(
          SELECT ctid FROM ${this.sql(table)} WHERE ${this.sql(column)} < ${before} LIMIT ${left}
        ))`;
      removed += result.count;
    }
    return removed;
  }

  async salt(day: string, fresh: string): Promise<string> {
    const [row] = await this.sql<{ salt: string }[]>`
      WITH put AS (
        INSERT INTO visit_salts (day, salt) VALUES (${day}, ${fresh})
        ON CONFLICT (day) DO NOTHING RETURNING salt
      )
      SELECT salt FROM put UNION ALL SELECT salt FROM visit_salts WHERE day = ${day}`;
    return row.salt;
  }

  async deleteSaltsBefore(day: string): Promise<number> {
    return (await this.sql`DELETE FROM visit_salts WHERE day < ${day}`).count;
  }

  async addHours(hours: VisitHourWrite[]): Promise<void> {
    const deltas = hours.map(deltaOfWrite);
    // A few hundred hours a statement: a dense sketch travels as 24 KiB of hex.
    for (let i = 0; i < deltas.length; i += 500) {
      await this.sql.begin((tx) => addDeltas(tx as unknown as Sql, deltas.slice(i, i + 500)));
    }
  }
}

/**
 * Inserts `packs` in one statement, their bytes sent as one array of hex
 * texts (Node's hex encoder is native; PostgreSQL decodes them).
 */
async function insertPacks(sql: Sql, packs: VisitPack[]): Promise<void> {
  await sql`
    INSERT INTO visit_packs (target_kind, target_id, at, visits, pack)
    SELECT k, i, to_timestamp(a / 1000.0), v, decode(p, 'hex') FROM unnest(
      ${packs.map((p) => p.targetKind)}::text[],
      ${packs.map((p) => p.targetId)}::text[],
      ${packs.map((p) => p.at)}::float8[],
      ${packs.map((p) => p.visits)}::integer[],
      ${
    packs.map((p) =>
      Buffer.from(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength).toString("hex")
    )
  }::text[]
    ) AS t(k, i, a, v, p)`;
}

/** A row's key and stored sketch, as an upsert answers them. */
interface StoredSketch {
  k: string;
  i: string;
  /** The row's hour or day (ms, as text). */
  t: string;
  sketch: Uint8Array | null;
}

/**
 * Writes each of `sketches` (their rows locked by the upsert that answered
 * `stored`, in key order) merged with its row's stored sketch, into `table`
 * (`visits_hourly` by `hour`, `visits_daily` by `day`), in one statement.
 */
async function writeSketches(
  sql: Sql,
  table: "visits_hourly" | "visits_daily",
  sketches: { scope: VisitScope; at: number; sketch: Sketch }[],
  stored: StoredSketch[],
): Promise<void> {
  if (sketches.length === 0) return;
  const before = new Map(stored.map((r) => [`${r.k}\0${r.i}\0${r.t}`, r.sketch]));
  const hex = sketches.map(({ scope, at, sketch }) => {
    const bytes = before.get(deltaKey(scope, at)) ?? null;
    const merged = mergeSketch(bytes === null ? null : decodeSketch(bytes), sketch)!;
    return Buffer.from(encodeSketch(merged)).toString("hex");
  });
  const column = table === "visits_hourly" ? "hour" : "day";
  await sql`
    UPDATE ${sql(table)} AS h SET sketch = decode(u.s, 'hex')
    FROM unnest(
      ${sketches.map((r) => r.scope.kind)}::text[],
      ${sketches.map((r) => r.scope.id)}::text[],
      ${sketches.map((r) => r.at)}::bigint[],
      ${hex}::text[]
    ) AS u(k, i, t, s)
    WHERE h.target_kind = u.k AND h.target_id = u.i
      AND h.${sql(column)} = to_timestamp(u.t / 1000.0)`;
}

/**
 * Merges `days` into their roll-up days' sketches: the upsert locks each
 * day's row (made when missing) and answers its sketch, in key order.
 */
async function addDays(sql: Sql, days: DaySketch[]): Promise<void> {
  if (days.length === 0) return;
  const sorted = [...days].sort((a, b) =>
    deltaKey(a.scope, a.day) < deltaKey(b.scope, b.day) ? -1 : 1
  );
  const stored = await sql<StoredSketch[]>`
    INSERT INTO visits_daily AS d (target_kind, target_id, day)
    SELECT k, i, to_timestamp(t / 1000.0) FROM unnest(
      ${sorted.map((d) => d.scope.kind)}::text[],
      ${sorted.map((d) => d.scope.id)}::text[],
      ${sorted.map((d) => d.day)}::bigint[]
    ) AS t(k, i, t)
    ON CONFLICT (target_kind, target_id, day) DO UPDATE SET sketch = d.sketch
    RETURNING target_kind AS k, target_id AS i,
      (extract(epoch FROM day) * 1000)::bigint::text AS t, sketch`;
  const sketches = sorted.map((d) => ({ scope: d.scope, at: d.day, sketch: d.sketch }));
  await writeSketches(sql, "visits_daily", sketches, stored);
}

/**
 * Adds `deltas` to the hours and their dimensions, in key order: the hours'
 * upsert answers their stored sketches and holds their rows locked until the
 * transaction ends, so the merged sketches written next lose no register of
 * a concurrent batch (which waits, then reads this one's).
 */
async function addDeltas(sql: Sql, deltas: HourDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  const sorted = [...deltas].sort((a, b) =>
    deltaKey(a.scope, a.hour) < deltaKey(b.scope, b.hour) ? -1 : 1
  );
  const stored = await sql<StoredSketch[]>`
    INSERT INTO visits_hourly AS h (target_kind, target_id, hour, visits, hour_uniques, day_uniques)
    SELECT k, i, to_timestamp(t / 1000.0), v, hu, du FROM unnest(
      ${sorted.map((d) => d.scope.kind)}::text[],
      ${sorted.map((d) => d.scope.id)}::text[],
      ${sorted.map((d) => d.hour)}::bigint[],
      ${sorted.map((d) => d.visits)}::bigint[],
      ${sorted.map((d) => d.hourUniques)}::bigint[],
      ${sorted.map((d) => d.dayUniques)}::bigint[]
    ) AS t(k, i, t, v, hu, du)
    ON CONFLICT (target_kind, target_id, hour) DO UPDATE SET
      visits = h.visits + excluded.visits,
      hour_uniques = h.hour_uniques + excluded.hour_uniques,
      day_uniques = h.day_uniques + excluded.day_uniques
    RETURNING target_kind AS k, target_id AS i,
      (extract(epoch FROM hour) * 1000)::bigint::text AS t, sketch`;
  const own = sorted.map(deltaSketch);
  const sketches = sorted.flatMap((d, i) => {
    const sketch = own[i];
    return sketch === null ? [] : [{ scope: d.scope, at: d.hour, sketch }];
  });
  await writeSketches(sql, "visits_hourly", sketches, stored);
  await addDays(sql, daySketches(sorted, own));
  const dims = sorted.flatMap((d) =>
    dimensionCounts(d.dimensions).map((c) => ({ ...c, scope: d.scope, hour: d.hour }))
  ).sort((a, b) => {
    const x = `${deltaKey(a.scope, a.hour)}\0${a.dimension}\0${a.value}`;
    const y = `${deltaKey(b.scope, b.hour)}\0${b.dimension}\0${b.value}`;
    return x < y ? -1 : x > y ? 1 : 0;
  });
  for (let i = 0; i < dims.length; i += ROWS_PER_STATEMENT) {
    const part = dims.slice(i, i + ROWS_PER_STATEMENT);
    await sql`
      INSERT INTO visits_hourly_dims AS h (target_kind, target_id, hour, dimension, value, count)
      SELECT k, i, to_timestamp(t / 1000.0), d, v, c FROM unnest(
        ${part.map((d) => d.scope.kind)}::text[],
        ${part.map((d) => d.scope.id)}::text[],
        ${part.map((d) => d.hour)}::bigint[],
        ${part.map((d) => d.dimension)}::text[],
        ${part.map((d) => d.value)}::text[],
        ${part.map((d) => d.count)}::bigint[]
      ) AS t(k, i, t, d, v, c)
      ON CONFLICT (target_kind, target_id, hour, dimension, value) DO UPDATE SET
        count = h.count + excluded.count`;
  }
}
