/**
 * The second level of the fences' counts of the files list's index on Deno
 * KV (issue #32, schema 22): a deep page reads an index's groups (~30 at a
 * million entries), then one group's fences (~32–64), instead of every
 * fence (~1,000).
 *
 * Each index's fences (`./file_fences.ts`) are cut by *groups*:
 *
 *     ["file_fence_group", owner, scope, sortKey, ...tail] → Deno.KvU64
 *
 * whose `tail` is a fence's (`[0]`/`[1]`: a section's first group, a count
 * of 0 when never written; a group's start is always a fence, and fences are
 * never removed but with their index's scope), each holding the count of the
 * entries of the fences from it up to the next group. A write of an entry
 * finds its group as it finds its fence (the last at or before the entry:
 * both read at once, `FenceSums.resolve`) and sums ±1 to it in the same
 * atomic operation: one more sum an entry of a fenced order moved (shared by
 * every entry of one group a write moves), checked by the owner's split
 * epoch as the fence's is. A group past {@link GROUP_AT} blocks' pieces of
 * entries is marked (`["file_fence_group_split", …group]`) and split by the
 * background build after the fences ({@link splitGroups}): its fences read,
 * a group started at the fence after every {@link GROUP_PIECE} pieces, each
 * group's count the sum of its fences', checked against the old group's
 * count (moved by any write into it) and the epoch (moved by any split of a
 * fence), which it moves. The recount sets each group to its fences' sum
 * (`./file_block_recount.ts`).
 */
import { countOf } from "./file_blocks.ts";
import { commitChecked } from "./helpers.ts";
import {
  epochKey,
  type Fence,
  fillCounts,
  keyAfter,
  readCounts,
  sizesOf,
} from "./file_fence_keys.ts";

/** The prefixes of groups and their split marks. */
const GROUP = "file_fence_group";
const SPLITS = "file_fence_group_split";
/** A group of more entries than this many blocks' pieces is split. */
const GROUP_AT = 64;
/** The blocks' pieces of entries a split leaves in each group. */
const GROUP_PIECE = 32;
/** New groups one split's commit sets at most (a longer group is split again). */
const CUTS = 200;

/** The entries past which a group of the index of `scope` is split, and the split's pieces. */
function groupSizes(scope: Deno.KvKeyPart): { at: number; piece: number } {
  const { piece } = sizesOf(scope);
  return { at: GROUP_AT * piece, piece: GROUP_PIECE * piece };
}

/** The groups' prefix of one index, of the fences' prefix `fences` (`["file_fence", …]`). */
export const groupBase = (fences: Deno.KvKey): Deno.KvKey => [GROUP, ...fences.slice(1, 4)];
/** The prefixes of the groups and split marks of every index of `owner`'s `scope`. */
export const groupPrefixes = (owner: string, scope: string): Deno.KvKey[] => [
  [GROUP, owner, scope],
  [SPLITS, owner, scope],
];
/** The fences' key of the group `group`'s first fence. */
const fenceOf = (group: Deno.KvKey): Deno.KvKey => ["file_fence", ...group.slice(1)];

/** The groups of one index (`base`: its groups' prefix), in key order, sections' firsts included. */
export const readGroups = (kv: Deno.Kv, base: Deno.KvKey): Promise<Fence[]> => readCounts(kv, base);

/** A group's fences, and the fence key past them (the next group's first; `null`: the section's end). */
export type GroupFences = { fences: Fence[]; end: Deno.KvKey | null };

/**
 * The fences of the `i`-th of one index's groups `groups` (all of them, as
 * {@link readGroups} reads them).
 */
export function groupFences(kv: Deno.Kv, groups: Fence[], i: number): Promise<GroupFences> {
  const { key } = groups[i];
  const next = groups[i + 1]?.key;
  return fencesOfGroup(kv, key, next && next[4] === key[4] ? next : null);
}

/**
 * The fences of the group `group` (its first included, with a count of 0
 * when never written), up to the group `next` (`null`: its section's end;
 * by default the next one stored).
 */
async function fencesOfGroup(
  kv: Deno.Kv,
  group: Deno.KvKey,
  next?: Deno.KvKey | null,
): Promise<GroupFences> {
  next = next === undefined ? await keyAfter(kv, group) : next;
  const fences = fenceOf(group).slice(0, 4);
  const to = next?.slice(4);
  return {
    fences: await readCounts(kv, fences, { from: group.slice(4), to }),
    end: next && fenceOf(next),
  };
}

/** A group's sum in a write: its key, the entries moved, its count read. */
export type GroupSum = { key: Deno.KvKey; n: number; count: number };

/** Adds the groups' sums `sums` to `op`, marking those grown too long for the build's split. */
export function applyGroups(op: Deno.AtomicOperation, sums: GroupSum[]): void {
  for (const { key, n, count } of sums) {
    if (n === 0) continue;
    op.sum(key, BigInt.asUintN(64, BigInt(n)));
    if (count + n > groupSizes(key[2]).at) op.set([SPLITS, ...key.slice(1)], true);
  }
}

/**
 * Splits the marked groups (of `owner` when given; every group of `owner`
 * with `all`, `at` and `piece` entries a group, as tests do with small
 * sizes). Returns how many groups it looked at; stops between two once
 * `stop()` says so.
 */
export async function splitGroups(
  kv: Deno.Kv,
  { owner, at, piece, all = false, stop = () => false }: {
    owner?: string;
    at?: number;
    piece?: number;
    all?: boolean;
    stop?: () => boolean;
  } = {},
): Promise<number> {
  const groups: Deno.KvKey[] = [];
  if (all) {
    for await (const { key } of kv.list({ prefix: [GROUP, owner!] })) groups.push(key);
  } else {
    const prefix = owner === undefined ? [SPLITS] : [SPLITS, owner];
    for await (const { key } of kv.list({ prefix }, { limit: 200 })) {
      groups.push([GROUP, ...key.slice(1)]);
    }
  }
  let done = 0;
  for (const group of groups) {
    if (stop()) break;
    const sizes = groupSizes(group[2]);
    await splitGroup(kv, group, at ?? sizes.at, piece ?? sizes.piece);
    done++;
  }
  return done;
}

/** Splits the group `group` when it holds more than `at` entries (its mark dropped). */
async function splitGroup(kv: Deno.Kv, group: Deno.KvKey, at: number, piece: number) {
  const owner = group[1] as string;
  await commitChecked(async () => {
    const [epoch, current] = await Promise.all([
      kv.get<number>(epochKey(owner)),
      kv.get(group),
    ]);
    const op = kv.atomic().check(epoch, current).delete([SPLITS, ...group.slice(1)]);
    if (current.value === null && group.length > 5) return { op, result: undefined }; // gone
    const { fences } = await fencesOfGroup(kv, group);
    // The groups from here: a new one at the fence after every `piece` entries.
    const parts: { key: Deno.KvKey; n: number }[] = [{ key: group, n: 0 }];
    for (const [i, f] of fences.entries()) {
      const last = parts.at(-1)!;
      if (i > 0 && last.n >= piece && parts.length <= CUTS) {
        parts.push({ key: [...group.slice(0, 4), ...f.key.slice(4)], n: 0 });
      }
      parts.at(-1)!.n += f.count;
    }
    const total = parts.reduce((n, p) => n + p.n, 0);
    if (parts.length === 1 || total <= at) {
      // Nothing to cut: the count set to its fences' sum (a drift repaired).
      op.set(group, new Deno.KvU64(BigInt(total)));
      return { op, result: undefined };
    }
    for (const { key, n } of parts) {
      op.set(key, new Deno.KvU64(BigInt(n)));
      if (n > at && key !== group) op.set([SPLITS, ...key.slice(1)], true); // split again
    }
    op.set(epochKey(owner), (epoch.value ?? 0) + 1);
    return { op, result: undefined };
  });
}

/** Fences one commit of schema 22's fill reads. */
const FILL_PAGE = 500;

/**
 * Schema 22's upgrade: groups and their counts for every index's fences
 * already stored ({@link fillCounts}: a walk of every fence in key order,
 * {@link FILL_PAGE} a commit, `page` in tests, resumable), a group started at
 * each section and at the fence after every `piece` entries (by default its
 * scope's, {@link groupSizes}).
 */
export async function fillFenceGroups(
  kv: Deno.Kv,
  { piece, page = FILL_PAGE, stop }: { piece?: number; page?: number; stop?: () => boolean } = {},
): Promise<void> {
  await fillCounts(kv, {
    state: ["meta", "file_fence_group_fill"],
    source: ["file_fence"],
    prefix: GROUP,
    drop: [[GROUP], [SPLITS]],
    page,
    weight: (entry) => countOf(entry.value),
    piece: (key) => piece ?? groupSizes(key[2]).piece,
    stop,
  });
}
