/**
 * Counts per block of the files list's index on Deno KV (issue #32), so that
 * a deep page finds where it starts from a few short reads of counters
 * instead of a walk over every index entry before it.
 *
 * An index entry `["file_index", owner, scope, sortKey, nulls, value, id]`
 * (`./file_index.ts`) of a sort key in {@link BLOCK_KEYS} (numbers: times in
 * ms) lies on a path of nested blocks, coarse to fine, each a contiguous run
 * of the list in both orders:
 *
 *     [nulls, value ranges…, value, id prefixes…]
 *
 * - `nulls` (0, then 1 for the files whose value is `null`);
 * - ranges of the value: the value divided by 2^40, 2^32, 2^24, 2^16, 2^8,
 *   rounded down (for a time: 35 years, 50 days, 4.7 hours, 66 s, 256 ms);
 * - the value itself;
 * - within one value (ties: files imported at one instant), the first 8 and
 *   10 characters of the id (ids start with their time: about 1.3 s, then
 *   1 ms), which orders ties both ways.
 *
 * Each block has a count, `["file_blocks", owner, scope, sortKey, level,
 * ...path to that level]` (a `Deno.KvU64` moved by `sum` in the atomic
 * operation that writes the entry: `IndexChange`). A page at offset N
 * descends from the top: it reads the counts of one block's sub-blocks (a
 * prefix read), in the list's order (descending: the value levels read
 * backwards, the id levels forwards, as the index lists ties by id both
 * ways), skips whole sub-blocks, and stops at a block of at most
 * {@link LEAF} entries (or the finest), whose entries it walks from its
 * start. So a page reads a few hundred small keys at most at any depth,
 * whatever the data: a range with many values is split by finer ranges, a
 * value many files share by their ids.
 */
import type { FileSortKey } from "../files.ts";

/**
 * The sort keys whose index has block counts (each costs 9 sums a file and
 * scope, most of them shared by files close in time); numbers only.
 */
export const BLOCK_KEYS: readonly FileSortKey[] = ["createdAt"];
/** The prefix of every block count. */
const BLOCKS = "file_blocks";
/** A block of at most this many entries is walked rather than descended into. */
export const LEAF = 128;

/** A value's ranges: divided by 2^s for each s, rounded down. */
const SHIFTS = [40, 32, 24, 16, 8];
/** The id prefixes that split one value's files. */
const ID_PREFIXES = [8, 10];
/** The levels of blocks: nulls, the ranges, the value, the id prefixes. */
export const DEPTH = 1 + SHIFTS.length + 1 + ID_PREFIXES.length;

/** A part of a block's path. */
type Part = string | number;

/** Whether the block counts of `sortKey` are kept. */
export const hasBlocks = (sortKey: FileSortKey) => BLOCK_KEYS.includes(sortKey);

/** The block path of an index entry's `[nulls, value, id]`. */
export function blockPath(nulls: number, value: number, id: string): Part[] {
  const coarse = SHIFTS.map((s) => nulls === 1 ? 0 : Math.floor(value / 2 ** s));
  return [nulls, ...coarse, value, ...ID_PREFIXES.map((n) => id.slice(0, n))];
}

/** The counts' key prefix of one owner's scope and sort key. */
export const blockBase = (owner: string, scope: string, sortKey: FileSortKey): Deno.KvKey => [
  BLOCKS,
  owner,
  scope,
  sortKey,
];

/**
 * The keys of the counts an index entry (its full key) moves, one per level;
 * none when its sort key has no blocks.
 */
export function blockKeys(entryKey: Deno.KvKey): Deno.KvKey[] {
  const [, owner, scope, sortKey, nulls, value, id] = entryKey as [
    string,
    string,
    string,
    FileSortKey,
    number,
    number,
    string,
  ];
  if (!hasBlocks(sortKey)) return [];
  const path = blockPath(nulls, value, id);
  const base = blockBase(owner, scope, sortKey);
  return path.map((_, i) => [...base, i + 1, ...path.slice(0, i + 1)]);
}

/**
 * The index entries of the block at `path` of the index under `base`
 * (`["file_index", owner, scope, sortKey]`), in key order: a selector for `kv.list`.
 */
export function blockRange(base: Deno.KvKey, path: Part[]): Deno.KvListSelector {
  const section = [...base, path[0]];
  const k = SHIFTS.length;
  if (path.length <= 1) return { prefix: section };
  if (path.length <= k + 1) {
    const size = 2 ** SHIFTS[path.length - 2];
    const range = path.at(-1) as number;
    return { start: [...section, range * size], end: [...section, (range + 1) * size] };
  }
  const value = [...section, path[k + 1]];
  if (path.length === k + 2) return { prefix: value };
  const id = path.at(-1) as string;
  return { start: [...value, id], end: [...value, `${id}\u{10FFFF}`] };
}

/** A stored count as a number (a wrapped-around one is 0). */
export function countOf(value: unknown): number {
  if (!(value instanceof Deno.KvU64)) return 0;
  return Math.max(0, Number(BigInt.asIntN(64, value.value)));
}

/**
 * Where a walk of the index starts (`./file_index.ts`): in the section of
 * `nulls`, forwards from `start` (ascending, or the `null` values), or
 * descending: the value `exact.value`'s entries from the id `exact.id`
 * on, then the values below it; or the values below `end` (exclusive).
 */
export interface WalkStart {
  nulls: number;
  start?: Deno.KvKey;
  exact?: { value: Part; id: string };
  end?: Deno.KvKey;
}

/**
 * The start of the block at `path` of the index under `base`
 * (`["file_index", owner, scope, sortKey]`), in `order`.
 */
function blockStart(base: Deno.KvKey, order: "asc" | "desc", path: Part[]): WalkStart {
  if (path.length === 0) return { nulls: 0 };
  const nulls = path[0] as number;
  const k = SHIFTS.length;
  if (nulls === 1) {
    const id = path.length > k + 2 ? path.at(-1) as string : undefined;
    return { nulls, start: id === undefined ? undefined : [...base, 1, 0, id] };
  }
  if (path.length === 1) return { nulls };
  const last = path.at(-1)!;
  if (path.length <= k + 1) {
    // A range of values: from its smallest value, or below its end.
    const size = 2 ** SHIFTS[path.length - 2];
    const range = last as number;
    return order === "asc"
      ? { nulls, start: [...base, 0, range * size] }
      : { nulls, end: [...base, 0, (range + 1) * size] };
  }
  const value = path[k + 1];
  const id = path.length > k + 2 ? last as string : "";
  return order === "asc"
    ? { nulls, start: [...base, 0, value, id] }
    : { nulls, exact: { value, id } };
}

/**
 * Where the entry at `offset` of the index `["file_index", owner, scope,
 * sortKey]` in `order` is: the start of a block and how many entries of it
 * to pass over (fewer than {@link LEAF}, or within the finest block);
 * `null` when the counts hold no more than `offset` entries.
 */
export async function locate(
  kv: Deno.Kv,
  owner: string,
  scope: string,
  sortKey: FileSortKey,
  order: "asc" | "desc",
  offset: number,
): Promise<{ start: WalkStart; skip: number } | null> {
  const counts = blockBase(owner, scope, sortKey);
  let path: Part[] = [];
  let count = Infinity;
  let rem = offset;
  while (path.length < DEPTH && count > LEAF) {
    const level = path.length + 1;
    // Value levels read backwards when descending; the nulls and the ids forwards.
    const reverse = order === "desc" && level > 1 && level <= 2 + SHIFTS.length &&
      path[0] === 0;
    let found = false;
    const children = kv.list({ prefix: [...counts, level, ...path] }, { reverse, batchSize: 256 });
    for await (const child of children) {
      const n = countOf(child.value);
      if (rem < n) {
        path = child.key.slice(counts.length + 1) as Part[];
        count = n;
        found = true;
        break;
      }
      rem -= n;
    }
    if (!found) return null;
  }
  const base = ["file_index", owner, scope, sortKey];
  return { start: blockStart(base, order, path), skip: rem };
}
