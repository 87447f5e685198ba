/**
 * Each owner's file statistics on Deno KV, kept as counters that move with
 * every write of a file (issue #32): `["file_stats", owner, field]` for the
 * complete files, their bytes, favourites and views, and
 * `["file_stats", owner, "type", type]` for the files of each type, all
 * `Deno.KvU64`s moved by `sum` in the same atomic operation as the record
 * (a sum needs no check, so concurrent uploads and views never fail each
 * other's commits). A negative change is a sum that wraps around. Files
 * without an owner are counted under the owner `""`.
 *
 * {@link recountStats} repairs them from the records a page at a time.
 */
import type { FileRecord, FileStats, StatsRecount } from "../files.ts";

/** The counted fields besides the types. */
const FIELDS = ["files", "bytes", "favorites", "views"] as const;
type Field = typeof FIELDS[number];

/** The prefix of an owner's counters. */
export const statsPrefix = (owner: string | null): Deno.KvKey => ["file_stats", owner ?? ""];
const fieldKey = (owner: string, field: Field): Deno.KvKey => ["file_stats", owner, field];
const typeKey = (owner: string, type: string): Deno.KvKey => ["file_stats", owner, "type", type];
/** Where a recount under way keeps its progress between passes. */
const recountKey = (owner: string): Deno.KvKey => ["file_stats_recount", owner];

/** 2^64: a counter's modulus. */
const WRAP = 1n << 64n;

/** A counter's value, a wrapped-around (negative) one read as 0. */
export function counted(value: unknown): number {
  if (!(value instanceof Deno.KvU64)) return 0;
  return value.value >= WRAP / 2n ? 0 : Number(value.value);
}

/**
 * The changes of counters one atomic operation makes, gathered so that each
 * counter is summed once whatever number of files the operation writes.
 */
export class StatsChange {
  readonly #sums = new Map<string, { key: Deno.KvKey; n: number }>();

  /** Counts `file` (a complete one) `sign` times: +1 when it is stored, -1 when removed. */
  #count(file: FileRecord | null, sign: 1 | -1): void {
    if (!file || file.pending) return;
    const owner = file.userId ?? "";
    this.#add(fieldKey(owner, "files"), sign);
    this.#add(fieldKey(owner, "bytes"), sign * file.size);
    this.#add(fieldKey(owner, "favorites"), file.favorite ? sign : 0);
    this.#add(fieldKey(owner, "views"), sign * file.views);
    this.#add(typeKey(owner, file.type), sign);
  }

  #add(key: Deno.KvKey, n: number): void {
    if (n === 0) return;
    const id = JSON.stringify(key);
    const sum = this.#sums.get(id) ?? { key, n: 0 };
    sum.n += n;
    this.#sums.set(id, sum);
  }

  /** Records a write of one file: `before` it (`null`: new), `after` it (`null`: removed). */
  file(before: FileRecord | null, after: FileRecord | null): this {
    this.#count(before, -1);
    this.#count(after, 1);
    return this;
  }

  /** Adds the sums to `op`. */
  apply<Op extends { sum(key: Deno.KvKey, n: bigint): unknown }>(op: Op): Op {
    for (const { key, n } of this.#sums.values()) {
      if (n !== 0) op.sum(key, BigInt.asUintN(64, BigInt(n)));
    }
    return op;
  }

  /** How many counters {@link apply} moves. */
  get size(): number {
    return this.#sums.size;
  }
}

/** The sums of one file's write added to `op`. */
export function countFile<Op extends { sum(key: Deno.KvKey, n: bigint): unknown }>(
  op: Op,
  before: FileRecord | null,
  after: FileRecord | null,
): Op {
  return new StatsChange().file(before, after).apply(op);
}

/** An owner's statistics, read from its counters. */
export async function readStats(kv: Deno.Kv, owner: string | null): Promise<FileStats> {
  const stats: FileStats = { files: 0, favorites: 0, views: 0, bytes: 0, types: {} };
  for await (const { key, value } of kv.list({ prefix: statsPrefix(owner) })) {
    const n = counted(value);
    if (key[2] === "type") {
      if (n > 0) stats.types[key[3] as string] = n;
    } else if ((FIELDS as readonly unknown[]).includes(key[2])) {
      stats[key[2] as Field] = n;
    }
  }
  return stats;
}

/** A recount's progress between passes. */
interface Progress {
  /** The id of the last file counted. */
  after: string;
  /** The totals so far. */
  stats: FileStats;
  /** Each counter's versionstamp when the recount began (`null`: absent). */
  stamps: Record<string, string | null>;
}

/**
 * One pass of a recount of `owner`'s counters from the records under
 * `prefix` (the owner's copies, in id order): reads up to `budget` of them
 * after where the last pass stopped, keeping its progress in the store; at
 * the end, sets each counter that no write moved since the recount began
 * to what the records say, in one atomic operation checked against those
 * versionstamps (a counter a write moved is left for the next recount, since
 * the records read before the write may not show it).
 */
export async function recountStats(
  kv: Deno.Kv,
  owner: string,
  prefix: Deno.KvKey,
  budget: number,
): Promise<StatsRecount> {
  const saved = await kv.get<Progress>(recountKey(owner));
  let progress = saved.value;
  if (!progress) {
    const stamps: Record<string, string | null> = {};
    for await (const entry of kv.list({ prefix: statsPrefix(owner) })) {
      stamps[JSON.stringify(entry.key)] = entry.versionstamp;
    }
    progress = {
      after: "",
      stats: { files: 0, favorites: 0, views: 0, bytes: 0, types: {} },
      stamps,
    };
  }
  const selector = progress.after ? { prefix, start: [...prefix, progress.after, ""] } : { prefix };
  let read = 0;
  for await (const { key, value: f } of kv.list<FileRecord>(selector, { limit: budget })) {
    read++;
    progress.after = key.at(-1) as string;
    if (f.pending) continue;
    const s = progress.stats;
    s.files++;
    s.bytes += f.size;
    s.views += f.views;
    if (f.favorite) s.favorites++;
    s.types[f.type] = (s.types[f.type] ?? 0) + 1;
  }
  if (read === budget) {
    await kv.set(recountKey(owner), progress);
    return { done: false, repaired: 0, read };
  }
  const repaired = await repair(kv, owner, progress);
  await kv.delete(recountKey(owner));
  return { done: true, repaired, read };
}

/** Sets the counters of `owner` unmoved since `progress` began to its totals; how many changed. */
async function repair(kv: Deno.Kv, owner: string, progress: Progress): Promise<number> {
  const want = new Map<string, { key: Deno.KvKey; n: number }>();
  const s = progress.stats;
  for (const field of FIELDS) {
    const key = fieldKey(owner, field);
    want.set(JSON.stringify(key), { key, n: s[field] });
  }
  for (const [type, n] of Object.entries(s.types)) {
    const key = typeKey(owner, type);
    want.set(JSON.stringify(key), { key, n });
  }
  const current = new Map<string, Deno.KvEntry<unknown>>();
  for await (const entry of kv.list({ prefix: statsPrefix(owner) })) {
    current.set(JSON.stringify(entry.key), entry);
    if (!want.has(JSON.stringify(entry.key))) {
      want.set(JSON.stringify(entry.key), { key: entry.key, n: 0 });
    }
  }
  const op = kv.atomic();
  let changed = 0;
  for (const [id, { key, n }] of want) {
    const entry = current.get(id);
    const stamp = entry?.versionstamp ?? null;
    // Moved (or made) by a write since the recount began: the records read may not show it.
    if ((progress.stamps[id] ?? null) !== stamp) continue;
    const raw = entry?.value instanceof Deno.KvU64 ? entry.value.value : entry ? -1n : 0n;
    if (raw === BigInt(n)) continue;
    op.check({ key, versionstamp: stamp }).set(key, new Deno.KvU64(BigInt(n)));
    changed++;
  }
  if (changed === 0) return 0;
  return (await op.commit()).ok ? changed : 0;
}

/** Where the backfill of schema 3 stands: the last owner copy counted. */
const BACKFILL: Deno.KvKey = ["meta", "file_stats_backfill"];
/** Owner copies one backfill commit counts. */
const BACKFILL_PAGE = 500;

/**
 * Schema 3's upgrade: counts every file already stored into its owner's
 * counters, reading the owners' copies under `prefix` in key order a page at
 * a time; each page's sums commit with the position reached, checked, so a
 * stopped upgrade resumes where it stopped and two processes upgrading at
 * once never count a page twice.
 */
export async function backfillFileStats(kv: Deno.Kv, prefix: Deno.KvKey): Promise<void> {
  while (true) {
    const at = await kv.get<Deno.KvKey>(BACKFILL);
    if (at.value?.length === 0) return; // done
    const selector = at.value ? { prefix, start: [...at.value, ""] } : { prefix };
    const change = new StatsChange();
    let last: Deno.KvKey | null = null;
    for await (const { key, value } of kv.list<FileRecord>(selector, { limit: BACKFILL_PAGE })) {
      change.file(null, value);
      last = key;
    }
    const op = change.apply(kv.atomic().check(at)).set(BACKFILL, last ?? []);
    await op.commit(); // a failed check: another process counted this page; read again
  }
}
