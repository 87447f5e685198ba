/**
 * The recount of the files list's block counts (`./file_blocks.ts`) on Deno
 * KV, in passes of a budget of index entries (the statistics' recount task,
 * `KvFiles.recountStats`). A pass walks one owner's index of a blocked sort
 * key, scope by scope, in key order, where every block is a contiguous run:
 * each block is set right when the walk leaves it, the finest from its
 * entries, the others as the sum of their sub-blocks (set right just
 * before), each read after the count it sets and committed checked against
 * that count's versionstamp, so a write meanwhile (which moves the count)
 * leaves it for the next recount. A sub-block the walk did not meet whose
 * count is not 0 and that holds no entry is set to 0 with its own.
 *
 * Then ({@link recountFences}) the other orders' fences
 * (`./file_fences.ts`): each set to the entries of its block, checked
 * against the count read before them (a write or a split meanwhile moves
 * it: left for the next recount).
 */
import { BLOCK_KEYS, blockBase, blockPath, blockRange, countOf, DEPTH } from "./file_blocks.ts";
import { blockSize, FENCE_KEYS, fenceBase, readFences } from "./file_fences.ts";
import { compareTails } from "./file_fence_keys.ts";
import { groupBase, groupFences, readGroups } from "./file_fence_groups.ts";
import type { FileSortKey } from "../files.ts";

/** A block's path. */
type Part = string | number;

/** A recount's progress between passes. */
interface Progress {
  /** `"stats"`: the blocks are done, the statistics' recount runs. */
  phase: "blocks" | "stats";
  /** The scope and sort key walked (indexes into the lists of scopes and {@link BLOCK_KEYS}). */
  scope: number;
  sortKey: number;
  /** The last index key read, and its path. */
  after: Deno.KvKey | null;
  path: Part[];
}

const progressKey = (owner: string): Deno.KvKey => ["meta", "file_blocks_recount", owner];

/** The scopes of `owner` the index counts. */
async function scopesOf(kv: Deno.Kv, owner: string): Promise<string[]> {
  const entries = await Array.fromAsync(kv.list({ prefix: ["file_index_n", owner] }));
  return entries.map((e) => e.key[2] as string);
}

/** What one pass did. */
export interface BlockRecount {
  done: boolean;
  repaired: number;
  read: number;
}

/**
 * One pass of the recount of `owner`'s block counts, reading at most
 * `budget` index entries; `done` once every scope's are set right (and then
 * on each call until {@link endBlockRecount}).
 */
export async function recountBlocks(
  kv: Deno.Kv,
  owner: string,
  budget: number,
): Promise<BlockRecount> {
  const saved = (await kv.get<Progress>(progressKey(owner))).value;
  const p: Progress = saved ?? { phase: "blocks", scope: 0, sortKey: 0, after: null, path: [] };
  if (p.phase === "stats") return { done: true, repaired: 0, read: 0 };
  const scopes = await scopesOf(kv, owner);
  const fixer = new Fixer(kv);
  let read = 0;
  while (p.scope < scopes.length && read < budget) {
    const sortKey = BLOCK_KEYS[p.sortKey];
    const walk = new Walk(kv, fixer, owner, scopes[p.scope], sortKey, p.path);
    const base = ["file_index", owner, scopes[p.scope], sortKey];
    const selector = p.after ? { prefix: base, start: [...p.after, ""] } : { prefix: base };
    const limit = budget - read;
    let n = 0;
    for await (const { key } of kv.list(selector, { limit, batchSize: Math.min(limit, 500) })) {
      n++;
      await walk.entry(blockPath(key[4] as number, key[5] as number, key[6] as string));
      p.after = key;
    }
    read += n;
    if (n === limit) {
      p.path = walk.path;
      break;
    }
    await walk.end();
    p.after = null;
    p.path = [];
    if (++p.sortKey === BLOCK_KEYS.length) {
      p.sortKey = 0;
      p.scope++;
    }
  }
  if (p.scope >= scopes.length) p.phase = "stats";
  await kv.set(progressKey(owner), p);
  return { done: p.phase === "stats", repaired: fixer.repaired, read };
}

/** Ends a round of recounts of `owner` (its statistics recounted too): the next starts over. */
export async function endBlockRecount(kv: Deno.Kv, owner: string): Promise<void> {
  await kv.delete(progressKey(owner));
  await kv.delete(fenceProgressKey(owner));
}

const fenceProgressKey = (owner: string): Deno.KvKey => ["meta", "file_fence_recount", owner];

/** Where a recount of fences stands: the index (of scopes × sort keys) and the last fence set. */
interface FenceProgress {
  index: number;
  after: Deno.KvKey | null;
}

/**
 * One pass of the recount of `owner`'s fences, reading at most about
 * `budget` index entries (a block at least); `done` once every index's are
 * set right (and then on each call until {@link endBlockRecount}).
 */
export async function recountFences(
  kv: Deno.Kv,
  owner: string,
  budget: number,
): Promise<BlockRecount> {
  const p = (await kv.get<FenceProgress>(fenceProgressKey(owner))).value ??
    { index: 0, after: null };
  const scopes = await scopesOf(kv, owner);
  const bases = scopes.flatMap((scope) => FENCE_KEYS.map((k) => fenceBase(owner, scope, k)));
  const fixer = new Fixer(kv);
  let read = 0;
  while (p.index < bases.length && read < budget) {
    const after = p.after;
    const fences = (await readFences(kv, bases[p.index])).filter((f) =>
      after === null || compareTails(f.key, after) > 0
    );
    for (const { key } of fences) {
      if (read >= budget) break;
      // A fence is kept at 0: a group may start there.
      await fixer.set(key, async () => {
        const n = await blockSize(kv, key);
        read += n;
        return n;
      }, true);
      p.after = key;
    }
    if (read < budget) {
      await recountGroups(kv, fixer, bases[p.index]);
      p.index++;
      p.after = null;
    }
  }
  await kv.set(fenceProgressKey(owner), p);
  return { done: p.index >= bases.length, repaired: fixer.repaired, read };
}

/**
 * Sets each group of the index of the fences' prefix `base`
 * (`./file_fence_groups.ts`) to the sum of its fences' counts (set right
 * just before), each checked against the group's count read before its
 * fences (any write into the group moves it); a group is kept at 0.
 */
async function recountGroups(kv: Deno.Kv, fixer: Fixer, base: Deno.KvKey): Promise<void> {
  const groups = await readGroups(kv, groupBase(base));
  for (const [i, { key }] of groups.entries()) {
    await fixer.set(key, async () => {
      const { fences } = await groupFences(kv, groups, i);
      return fences.reduce((n, f) => n + f.count, 0);
    }, true);
  }
}

/** Sets counts right, each checked against what it read first. */
class Fixer {
  repaired = 0;
  constructor(private readonly kv: Deno.Kv) {}

  /**
   * Sets `key` to the count `measure()` gives (read after it), unless a
   * write moved it; a count of 0 is removed, unless to `keep` it.
   */
  async set(key: Deno.KvKey, measure: () => Promise<number>, keep = false): Promise<void> {
    const current = await this.kv.get(key);
    const n = await measure();
    if (countOf(current.value) === n && (n > 0 || current.value === null || keep)) return;
    const op = this.kv.atomic().check(current);
    if (n === 0 && !keep) op.delete(key);
    else op.set(key, new Deno.KvU64(BigInt(n)));
    if ((await op.commit()).ok) this.repaired++;
  }
}

/** A walk of one index (owner, scope, sort key) in key order, closing each block it leaves. */
class Walk {
  /** The path of the last entry met. */
  path: Part[];
  /** The sub-blocks closed in this pass, per level of the open path (JSON of their paths). */
  readonly #closed: Set<string>[];
  readonly #counts: Deno.KvKey;
  readonly #index: Deno.KvKey;

  constructor(
    private readonly kv: Deno.Kv,
    private readonly fixer: Fixer,
    owner: string,
    scope: string,
    sortKey: FileSortKey,
    path: Part[],
  ) {
    this.path = path;
    this.#closed = Array.from({ length: path.length + 1 }, () => new Set());
    this.#counts = blockBase(owner, scope, sortKey);
    this.#index = ["file_index", owner, scope, sortKey];
  }

  /** Meets the next entry, whose block path is `path`. */
  async entry(path: Part[]): Promise<void> {
    let same = 0;
    while (same < this.path.length && this.path[same] === path[same]) same++;
    if (same === path.length && this.path.length === path.length) return;
    await this.#closeTo(same);
    this.path = path;
    while (this.#closed.length < path.length + 1) this.#closed.push(new Set());
  }

  /** Closes every block left open, then checks the top level's. */
  async end(): Promise<void> {
    await this.#closeTo(0);
    await this.#settle([]);
  }

  /** Closes the open blocks deeper than `depth` levels, finest first. */
  async #closeTo(depth: number): Promise<void> {
    for (let level = this.path.length; level > depth; level--) {
      const path = this.path.slice(0, level);
      const key = [...this.#counts, level, ...path];
      if (level === this.path.length) {
        await this.fixer.set(key, () => this.#entries(path, Infinity));
      } else {
        await this.#settle(path);
        await this.fixer.set(key, () => this.#childSum(path));
      }
      this.#closed[level - 1].add(JSON.stringify(path));
      this.#closed[level] = new Set();
    }
    this.path = this.path.slice(0, depth);
  }

  /**
   * Sets to 0 (with all below) the sub-blocks of `path` that this pass did
   * not close and that hold no entry.
   */
  async #settle(path: Part[]): Promise<void> {
    const closed = this.#closed[path.length] ?? new Set();
    const level = path.length + 1;
    for await (const child of this.kv.list({ prefix: [...this.#counts, level, ...path] })) {
      const childPath = child.key.slice(this.#counts.length + 1) as Part[];
      if (closed.has(JSON.stringify(childPath))) continue;
      if (await this.#entries(childPath, 1) > 0) continue;
      await this.fixer.set(child.key, () => Promise.resolve(0));
      for (let deeper = level + 1; deeper <= DEPTH; deeper++) {
        const prefix = [...this.#counts, deeper, ...childPath];
        for await (const stale of this.kv.list({ prefix })) {
          await this.fixer.set(stale.key, () => Promise.resolve(0));
        }
      }
    }
  }

  /** The sum of the counts of the sub-blocks of `path`. */
  async #childSum(path: Part[]): Promise<number> {
    let n = 0;
    const prefix = [...this.#counts, path.length + 1, ...path];
    for await (const child of this.kv.list({ prefix })) n += countOf(child.value);
    return n;
  }

  /** How many index entries (up to `most`) lie in the block at `path`. */
  async #entries(path: Part[], most: number): Promise<number> {
    let n = 0;
    for await (const _ of this.kv.list(blockRange(this.#index, path))) {
      if (++n >= most) break;
    }
    return n;
  }
}
