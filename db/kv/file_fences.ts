/**
 * Counts per block of entries of the files list's index on Deno KV, for
 * every order but newest first (issue #32; `createdAt` keeps its nested
 * block counts, `./file_blocks.ts`, which an upload moves without a read),
 * so that a deep page skips whole blocks instead of walking every entry
 * before it.
 *
 * Each index `["file_index", owner, scope, sortKey, nulls, value, id]`
 * (`./file_index.ts`) is cut by *fences*:
 *
 *     ["file_fence", owner, scope, sortKey, ...tail] → Deno.KvU64
 *
 * whose `tail` is an index entry's `[nulls, value, id]`, or `[0]` and `[1]`
 * (the first fence of the values and of the `null` values: a block never
 * spans both); each holds the count of the entries from it up to the next
 * fence. A write of an entry finds its fence (the last one at or before the
 * entry: one reverse read of one key, or one read of the fences a sorted run
 * of entries spans) and sums ±1 to it in the atomic operation that writes
 * the entry ({@link FenceSums}; and its group's, the second level of
 * counts, found by the same reads at once: `./file_fence_groups.ts`),
 * checking its owner's *epoch*
 * (`["file_fence_epoch", owner]`, moved by every split: one check an owner,
 * within KV's 100 an operation, where a check of each fence would take one
 * per order and scope), so that a split between its reads and its commit
 * makes it read again. A block past `SPLIT_AT` entries (256 in a tag's
 * scope: `sizesOf`, `./file_fence_keys.ts`) is marked
 * (`["file_fence_split", …fence]`) and split by the background build
 * ({@link splitFences}): its entries read, a fence set every `PIECE`,
 * checked against the old fence's count (moved by any write into it); a
 * fence is never removed but with its scope (a group may start there).
 *
 * A deep page ({@link locateByFences}) reads the index's groups' counts
 * (~30 at a million entries), the fences of the group holding the offset
 * (~32–64) and walks at most half a block's entries, from a fence or
 * backwards from the next. Descending lists ties by id
 * ascending (`./file_index.ts`), so a fence within a run of equal values
 * does not cut the descending list: there, the page's value is found from
 * the ascending position mirrored, and its run's place from two ranks.
 */
import { FILE_SORT_KEYS, type FileSortKey } from "../files.ts";
import { countOf, hasBlocks, type WalkStart } from "./file_blocks.ts";
import {
  compareTails,
  countsAt,
  epochKey,
  type Fence,
  fillCounts,
  PIECE,
  readCounts,
  sizesOf,
} from "./file_fence_keys.ts";
import {
  applyGroups,
  groupBase,
  groupFences,
  groupPrefixes,
  type GroupSum,
  readGroups,
  splitGroups,
} from "./file_fence_groups.ts";
import { commitChecked } from "./helpers.ts";

/** The prefixes of fences, epochs and split marks. */
const FENCE = "file_fence";
const SPLITS = "file_fence_split";

/** New fences one split's commit sets at most (a longer block is split again). */
const CUTS = 200;
/** New entries of one block in one write from which they may start a block of their own. */
const MIN_CUT = 256;
/** The sort keys whose indexes have fences: all but those with block counts. */
export const FENCE_KEYS: readonly FileSortKey[] = FILE_SORT_KEYS.filter((k) => !hasBlocks(k));
/** Whether the index of `sortKey` has fences. */
export const hasFences = (sortKey: FileSortKey) => FENCE_KEYS.includes(sortKey);

/** The fences' prefix of one index. */
export const fenceBase = (owner: string, scope: string, sortKey: FileSortKey): Deno.KvKey => [
  FENCE,
  owner,
  scope,
  sortKey,
];
/** The prefixes of the fences, their groups and split marks of every index of `owner`'s `scope`. */
export const fencePrefixes = (owner: string, scope: string): Deno.KvKey[] => [
  [FENCE, owner, scope],
  [SPLITS, owner, scope],
  ...groupPrefixes(owner, scope),
];
/** The prefix of every fence. */
export const FENCES: Deno.KvKey = [FENCE];
/** The index prefix a fence key (or fence base) belongs to. */
const indexOf = (fence: Deno.KvKey): Deno.KvKey => ["file_index", ...fence.slice(1, 4)];

/** What {@link FenceSums.resolve} read: the sums to add, and the epochs to check. */
export interface FenceWrite {
  epochs: Deno.KvEntryMaybe<unknown>[];
  sums: { key: Deno.KvKey; n: number; count: number }[];
  /** The sums of the fences' groups (`./file_fence_groups.ts`). */
  groups: GroupSum[];
  /** New fences at the first of a run of new entries past every entry of their block. */
  cuts: { key: Deno.KvKey; n: number }[];
}

/** A fence's sum while resolved: its new entries' first tail, and whether all are new. */
type Sum = { key: Deno.KvKey; n: number; count: number; first?: Deno.KvKeyPart[]; adds: boolean };

/**
 * Whether the block of `fence` holds no entry at or after `tail` (its
 * entries all before a run of new ones that starts there).
 */
async function endsBefore(kv: Deno.Kv, fence: Deno.KvKey, tail: Deno.KvKeyPart[]) {
  const index = indexOf(fence);
  const end = await blockEnd(kv, fence);
  // A split since the fences were read may end the block before `tail`: nothing is cut then
  // (the operation's epoch check fails, and the write is made again from a fresh read).
  if (compareTails(tail, end.slice(index.length)) >= 0) return false;
  for await (const _ of kv.list({ start: [...index, ...tail], end }, { limit: 1 })) return false;
  return true;
}

/**
 * The moves of index entries of fenced orders gathered for one atomic
 * operation: {@link resolve} reads their fences, {@link applyFences} sums.
 */
export class FenceSums {
  readonly #moves = new Map<string, { key: Deno.KvKey; n: number }>();

  /**
   * `at`: the block size past which a block is split (or a run of at least
   * `cut` new entries past its end starts one; by default its scope's,
   * `sizesOf`); smaller in tests.
   */
  constructor(private readonly sizes?: { at: number; cut: number }) {}

  /** Counts the entry `key` (a full index key) `n` more (−1: removed). */
  add(key: Deno.KvKey, n: number): this {
    const id = JSON.stringify(key);
    const move = this.#moves.get(id) ?? { key, n: 0 };
    move.n += n;
    this.#moves.set(id, move);
    return this;
  }

  /** Drops the moves `drop` says of. */
  drop(drop: (key: Deno.KvKey) => boolean): void {
    for (const [id, { key }] of this.#moves) if (drop(key)) this.#moves.delete(id);
  }

  /** How many sums {@link applyFences} may add at most (two an entry moved: its fence's, its group's). */
  get size(): number {
    let n = 0;
    for (const m of this.#moves.values()) if (m.n !== 0) n += 2;
    return n;
  }

  /** Reads the epochs of the owners, then the fences of the entries. */
  async resolve(kv: Deno.Kv): Promise<FenceWrite> {
    const moves = [...this.#moves.values()].filter((m) => m.n !== 0);
    if (moves.length === 0) return { epochs: [], sums: [], groups: [], cuts: [] };
    const owners = [...new Set(moves.map((m) => m.key[1] as string))];
    const epochs = await Promise.all(owners.map((o) => kv.get(epochKey(o))));
    // By index and nulls, sorted: each run's fences read together, and their groups.
    const runs = new Map<string, { key: Deno.KvKey; n: number }[]>();
    for (const m of moves) {
      const id = JSON.stringify(m.key.slice(1, 5));
      runs.set(id, [...runs.get(id) ?? [], m]);
    }
    const sums = new Map<string, Sum>();
    const groups = new Map<string, GroupSum>();
    await Promise.all([...runs.values()].map(async (run) => {
      run.sort((a, b) => compareTails(a.key.slice(4), b.key.slice(4)));
      const base = [FENCE, ...run[0].key.slice(1, 4)];
      const tails = run.map((m) => m.key.slice(4));
      const [fences, ofGroups] = await Promise.all([
        countsAt(kv, base, tails),
        countsAt(kv, groupBase(base), tails),
      ]);
      fences.forEach((f, i) => {
        const id = JSON.stringify(f.key);
        const sum = sums.get(id) ?? { key: f.key, n: 0, count: f.count, adds: true };
        sum.n += run[i].n;
        sum.first ??= run[i].key.slice(4);
        sum.adds &&= run[i].n > 0;
        sums.set(id, sum);
      });
      ofGroups.forEach((g, i) => {
        const id = JSON.stringify(g.key);
        const sum = groups.get(id) ?? { key: g.key, n: 0, count: g.count };
        sum.n += run[i].n;
        groups.set(id, sum);
      });
    }));
    // A long run of new entries past the end of a block that grows too long (an import's
    // entries in key order) starts a block of its own: no split reads the block again.
    const cuts: FenceWrite["cuts"] = [];
    await Promise.all([...sums.values()].map(async (sum) => {
      const { at, cut } = this.sizes ?? { at: sizesOf(sum.key[2]).at, cut: MIN_CUT };
      if (!sum.adds || sum.n < cut || sum.count + sum.n <= at) return;
      if (compareTails(sum.first!, sum.key.slice(4)) <= 0) return;
      if (!await endsBefore(kv, sum.key, sum.first!)) return;
      cuts.push({ key: [...sum.key.slice(0, 4), ...sum.first!], n: sum.n });
      sum.n = 0;
    }));
    return { epochs, sums: [...sums.values()], groups: [...groups.values()], cuts };
  }
}

/**
 * Adds `w` to `op`: the epochs checked, the fences and their groups summed,
 * those grown too long marked.
 */
export function applyFences(op: Deno.AtomicOperation, w: FenceWrite): Deno.AtomicOperation {
  op.check(...w.epochs);
  applyGroups(op, w.groups);
  for (const { key, n, count } of w.sums) {
    if (n === 0) continue;
    op.sum(key, BigInt.asUintN(64, BigInt(n)));
    if (count + n > sizesOf(key[2]).at) op.set([SPLITS, ...key.slice(1)], true);
  }
  for (const { key, n } of w.cuts) op.set(key, new Deno.KvU64(BigInt(n)));
  // A new fence moves where later entries count: writers that read the old ones read again.
  for (const epoch of w.cuts.length > 0 ? w.epochs : []) {
    op.set(epoch.key, ((epoch.value as number | null) ?? 0) + 1);
  }
  return op;
}

/**
 * The fences of one index (`base`: its fences' prefix), in key order, the
 * first fences of both sections included (a count of 0 when never written).
 */
export const readFences = (kv: Deno.Kv, base: Deno.KvKey): Promise<Fence[]> => readCounts(kv, base);

/** The walk's start at the fence `fence` (ascending, from its first entry). */
function startAt(fence: Deno.KvKey, base: Deno.KvKey): WalkStart {
  const tail = fence.slice(base.length);
  const nulls = tail[0] as number;
  return tail.length === 1 ? { nulls } : { nulls, start: [...indexOf(fence), ...tail] };
}

/**
 * A run of one index's counts (its groups, or one group's fences) with the
 * running count of entries before each (`from` before the first); `end`:
 * the key past the last (the next group's first fence), `null`: each
 * section's end.
 */
class Ranks {
  readonly before: number[] = [];
  readonly total: number;
  constructor(
    readonly fences: Fence[],
    readonly base: Deno.KvKey,
    from = 0,
    readonly end: Deno.KvKey | null = null,
  ) {
    let n = from;
    for (const f of fences) {
      this.before.push(n);
      n += f.count;
    }
    this.total = n;
  }

  /** The number of entries with a value (`nulls` 0). */
  get valued(): number {
    const i = this.fences.findIndex((f) => f.key[this.base.length] === 1);
    return i < 0 ? this.total : this.before[i];
  }

  /** The block holding the entry at `position` (the last non-empty fence at or before it). */
  blockOf(position: number): number {
    let i = this.fences.length - 1;
    while (i >= 0 && this.before[i] > position) i--;
    while (i >= 0 && this.fences[i].count === 0) i--;
    return i;
  }

  /** The first index key of block `i`, and the key past its last (the next fence's, or its section's end). */
  bounds(i: number): { start: Deno.KvKey; end: Deno.KvKey } {
    const fence = this.fences[i].key;
    const index = indexOf(fence);
    const nulls = fence[this.base.length] as number;
    const next = this.fences[i + 1]?.key ?? this.end;
    const end = next && next[this.base.length] === nulls
      ? [...index, ...next.slice(this.base.length)]
      : [...index, nulls + 1];
    return { start: [...index, ...fence.slice(this.base.length)], end };
  }

  /**
   * The key of the entry at `position` in key order (`null`: past the end),
   * read from the nearer end of its block: forwards from its fence, or
   * backwards from the next.
   */
  async at(kv: Deno.Kv, position: number): Promise<Deno.KvKey | null> {
    const i = this.blockOf(position);
    if (i < 0 || position >= this.total) return null;
    const skip = position - this.before[i];
    const after = this.fences[i].count - 1 - skip; // the block's entries after it
    const selector = this.bounds(i);
    const [n, reverse] = skip <= after ? [skip + 1, false] : [after + 1, true];
    const got = await Array.fromAsync(
      kv.list(selector, { limit: n, batchSize: Math.min(n, 1000), reverse }),
    );
    return got.length === n ? got[n - 1].key : null;
  }

  /** How many entries sort before the tail `tail` (by the fences, then a walk). */
  async rank(kv: Deno.Kv, tail: Deno.KvKeyPart[]): Promise<number> {
    let i = this.fences.length - 1;
    while (i > 0 && compareTails(this.fences[i].key.slice(this.base.length), tail) > 0) i--;
    const fence = this.fences[i].key;
    const index = indexOf(fence);
    const selector = {
      start: [...index, ...fence.slice(this.base.length)],
      end: [...index, ...tail],
    };
    let n = 0;
    for await (const _ of kv.list(selector, { batchSize: 1000 })) n++;
    return this.before[i] + n;
  }
}

/**
 * An index's groups (`./file_fence_groups.ts`), and the fences of one group
 * at a time: the entry at a position, or a tail's rank, from the groups'
 * counts, one group's fences and a walk of at most half a block.
 */
class Levels {
  private constructor(readonly groups: Ranks, readonly base: Deno.KvKey) {}

  /** The groups of the index of the fences' prefix `base`. */
  static async read(kv: Deno.Kv, base: Deno.KvKey): Promise<Levels> {
    const groups = groupBase(base);
    return new Levels(new Ranks(await readGroups(kv, groups), groups), base);
  }

  /** The fences of group `i`, ranked after the entries before it. */
  async fencesOf(kv: Deno.Kv, i: number): Promise<Ranks> {
    const { fences, end } = await groupFences(kv, this.groups.fences, i);
    return new Ranks(fences, this.base, this.groups.before[i], end);
  }

  /** The fences of the group holding the entry at `position` (`null`: none). */
  async around(kv: Deno.Kv, position: number): Promise<Ranks | null> {
    const i = this.groups.blockOf(position);
    return i < 0 || position >= this.groups.total ? null : await this.fencesOf(kv, i);
  }

  /** The key of the entry at `position` in key order (`null`: past the end). */
  async at(kv: Deno.Kv, position: number): Promise<Deno.KvKey | null> {
    return await (await this.around(kv, position))?.at(kv, position) ?? null;
  }

  /** How many entries sort before the tail `tail`. */
  async rank(kv: Deno.Kv, tail: Deno.KvKeyPart[]): Promise<number> {
    const { fences, base } = this.groups;
    let i = fences.length - 1;
    while (i > 0 && compareTails(fences[i].key.slice(base.length), tail) > 0) i--;
    return await (await this.fencesOf(kv, i)).rank(kv, tail);
  }
}

/**
 * Where the entry at `offset` of the index `["file_index", owner, scope,
 * sortKey]` in `order` is, from its fences: a walk's start (`./file_index.ts`)
 * and the entries of it to pass over; `null` when it holds no more than `offset`.
 */
export async function locateByFences(
  kv: Deno.Kv,
  owner: string,
  scope: string,
  sortKey: FileSortKey,
  order: "asc" | "desc",
  offset: number,
): Promise<{ start: WalkStart; skip: number } | null> {
  const base = fenceBase(owner, scope, sortKey);
  const levels = await Levels.read(kv, base);
  if (offset >= levels.groups.total) return null;
  const valued = levels.groups.valued;
  if (order === "asc" || offset >= valued) {
    // The `null` values list last in both orders, by id.
    const ranks = await levels.around(kv, offset);
    const i = ranks?.blockOf(offset) ?? -1;
    if (!ranks || i < 0) return null;
    const skip = offset - ranks.before[i];
    if (skip < ranks.fences[i].count / 2) {
      return { start: startAt(ranks.fences[i].key, base), skip };
    }
    // In the block's second half: its entry found from the block's end.
    const key = await ranks.at(kv, offset);
    if (!key) return null;
    return { start: { nulls: key[4] as number, start: key }, skip: 0 };
  }
  // Descending: the value at the mirrored place, the run of that value, the place within it.
  const place = valued - 1 - offset;
  const mirror = await levels.at(kv, place);
  if (!mirror) return null;
  const value = mirror[5] as string | number;
  const target = await inShortRun(kv, mirror, place, offset, valued) ??
    await inLongRun(kv, levels, value, offset, valued);
  if (!target) return null;
  return { start: { nulls: 0, exact: { value, id: target[6] as string } }, skip: 0 };
}

/** Entries of a run of equal values read on each side of an entry before the run is taken as long. */
const SHORT_RUN = 32;

/**
 * The key of the descending list's entry `offset` (of `valued` entries with
 * a value) when the run of equal values around `mirror` (the ascending
 * list's entry `place`, of the same value) holds fewer than
 * {@link SHORT_RUN} entries on each side of it: read whole, it says its own
 * place. `null` when the run is longer.
 */
async function inShortRun(
  kv: Deno.Kv,
  mirror: Deno.KvKey,
  place: number,
  offset: number,
  valued: number,
): Promise<Deno.KvKey | null> {
  const prefix = mirror.slice(0, 6);
  const options = { limit: SHORT_RUN, batchSize: SHORT_RUN };
  const [before, after] = await Promise.all([
    Array.fromAsync(kv.list({ prefix, end: mirror }, { ...options, reverse: true })),
    Array.fromAsync(kv.list({ prefix, start: [...mirror, ""] }, options)),
  ]);
  if (before.length === SHORT_RUN || after.length === SHORT_RUN) return null;
  // The run in ascending order; the descending list holds it in that order too, by id,
  // after the entries of greater values (those after the run in ascending order).
  const run = [...before.reverse().map((e) => e.key), mirror, ...after.map((e) => e.key)];
  const first = place - before.length; // the run's first ascending place
  return run[offset - (valued - first - run.length)] ?? null;
}

/** The key of the descending list's entry `offset` within a long run of `value`, from two ranks. */
async function inLongRun(
  kv: Deno.Kv,
  ranks: Levels,
  value: string | number,
  offset: number,
  valued: number,
): Promise<Deno.KvKey | null> {
  const below = await ranks.rank(kv, [0, value]);
  const through = await ranks.rank(kv, [0, value, 0]);
  return await ranks.at(kv, below + offset - (valued - through));
}

/**
 * Splits blocks of more than `at` entries into blocks of `piece` (by
 * default their scope's, `sizesOf`; the marked ones; every fence of `owner`
 * with `all`, as tests do with small sizes). Returns how many blocks it
 * looked at; stops between two once `stop()` says so.
 */
export async function splitFences(
  kv: Deno.Kv,
  { owner, at, piece, all = false, stop = () => false }: {
    owner?: string;
    at?: number;
    piece?: number;
    all?: boolean;
    stop?: () => boolean;
  } = {},
): Promise<number> {
  const fences: Deno.KvKey[] = [];
  if (all) {
    for (const scope of await scopesOf(kv, owner!)) {
      for (const sortKey of FENCE_KEYS) {
        const base = fenceBase(owner!, scope, sortKey);
        for (const f of await readFences(kv, base)) fences.push(f.key);
      }
    }
  } else {
    const prefix = owner === undefined ? [SPLITS] : [SPLITS, owner];
    for await (const { key } of kv.list({ prefix }, { limit: 200 })) {
      fences.push([FENCE, ...key.slice(1)]);
    }
  }
  let done = 0;
  for (const fence of fences) {
    if (stop()) break;
    const sizes = sizesOf(fence[2]);
    await splitOne(kv, fence, at ?? sizes.at, piece ?? sizes.piece);
    done++;
  }
  // Then the groups of fences grown too long (tests split them apart).
  return all ? done : done + await splitGroups(kv, { owner, stop });
}

/** The scopes of `owner` the index has (those counted). */
async function scopesOf(kv: Deno.Kv, owner: string): Promise<string[]> {
  const entries = await Array.fromAsync(kv.list({ prefix: ["file_index_n", owner] }));
  return entries.map((e) => e.key[2] as string);
}

/** The key past the block that starts at `fence` (the next fence's entry, or the section's end). */
async function blockEnd(kv: Deno.Kv, fence: Deno.KvKey): Promise<Deno.KvKey> {
  const nulls = fence[4] as number;
  const base = fence.slice(0, 4);
  const range = { start: [...fence, ""], end: [...base, nulls + 1] };
  for await (const e of kv.list(range, { limit: 1 })) return [...indexOf(fence), ...e.key.slice(4)];
  return [...indexOf(fence), nulls + 1];
}

/** How many index entries the block of `fence` holds now. */
export async function blockSize(kv: Deno.Kv, fence: Deno.KvKey): Promise<number> {
  const start = [...indexOf(fence), ...fence.slice(4)];
  let n = 0;
  for await (const _ of kv.list({ start, end: await blockEnd(kv, fence) }, { batchSize: 1000 })) {
    n++;
  }
  return n;
}

/** Index entries one commit of schema 15's fill reads (its fences: a few sets). */
const FILL_PAGE = 500;

/**
 * Schema 15's upgrade: fences and their counts for every index already
 * stored ({@link fillCounts}: a walk of every entry in key order,
 * {@link FILL_PAGE} a commit, resumable), a fence set every `piece` entries.
 */
export async function fillFences(
  kv: Deno.Kv,
  { piece = PIECE, stop }: { piece?: number; stop?: () => boolean } = {},
): Promise<void> {
  await fillCounts(kv, {
    state: ["meta", "file_fence_fill"],
    source: ["file_index"],
    prefix: FENCE,
    drop: [FENCES, [SPLITS]],
    page: FILL_PAGE,
    weight: (entry) => hasFences(entry.key[3] as FileSortKey) ? 1 : null,
    piece: () => piece,
    stop,
  });
}

/** Splits the block of `fence` when it holds more than `at` entries (its mark dropped). */
async function splitOne(kv: Deno.Kv, fence: Deno.KvKey, at: number, piece: number) {
  const owner = fence[1] as string;
  const mark = [SPLITS, ...fence.slice(1)];
  await commitChecked(async () => {
    const epoch = await kv.get<number>(epochKey(owner));
    const current = await kv.get(fence);
    const op = kv.atomic().check(epoch, current).delete(mark);
    const first = fence.length === 5;
    if (current.value === null && !first) return { op, result: undefined }; // gone
    const start = [...indexOf(fence), ...fence.slice(4)];
    const end = await blockEnd(kv, fence);
    // At most the entries of CUTS new blocks and one more: a longer block is split again.
    const limit = (CUTS + 1) * piece;
    const keys: Deno.KvKey[] = [];
    for await (const e of kv.list({ start, end }, { limit, batchSize: 1000 })) keys.push(e.key);
    // Past the limit, the count (checked) says how many the last block keeps.
    const total = keys.length < limit ? keys.length : Math.max(keys.length, countOf(current.value));
    if (total <= at) {
      if (countOf(current.value) !== keys.length) {
        op.set(fence, new Deno.KvU64(BigInt(keys.length)));
      }
      return { op, result: undefined };
    }
    const cuts = Math.min(CUTS, Math.ceil(total / piece) - 1);
    op.set(fence, new Deno.KvU64(BigInt(piece)));
    for (let c = 1; c <= cuts; c++) {
      const n = c === cuts ? total - cuts * piece : piece;
      const cut = [...fence.slice(0, 4), ...keys[c * piece].slice(4)];
      op.set(cut, new Deno.KvU64(BigInt(n)));
      if (n > at) op.set([SPLITS, ...cut.slice(1)], true); // longer than one commit splits
    }
    op.set(epochKey(owner), (epoch.value ?? 0) + 1);
    return { op, result: undefined };
  });
}
