/**
 * What the fences of the files list's index on Deno KV (`./file_fences.ts`)
 * and their groups (`./file_fence_groups.ts`) share: both are counts keyed
 * `[prefix, owner, scope, sortKey, ...tail]` by an index entry's tail
 * `[nulls, value, id]` (or `[0]`/`[1]`, a section's first, a count of 0 when
 * never written), each counting the entries from it up to the next one of
 * its kind; their sizes, the owner's split epoch, their reads, and the
 * resumable fill that builds either from what they count.
 */
import { compareCodePoints } from "../files.ts";
import { countOf } from "./file_blocks.ts";
import { removeAll } from "./helpers.ts";

/** A block of more entries than this is split. */
const SPLIT_AT = 2048;
/** The entries a split leaves in each block. */
export const PIECE = 1024;
/**
 * A tag's scope (`tag:<id>`, `./file_index.ts`) is cut finer: its deep page
 * walks at most {@link TAG_PIECE}-odd entries (a walk of 1,000 took 40–90 ms
 * on the loaded bench machine), from a few dozen fences for a tag of
 * thousands of files.
 */
const TAG_SPLIT_AT = 256;
const TAG_PIECE = 128;
/** The block size past which a block of the index of `scope` is split, and the split's pieces. */
export function sizesOf(scope: Deno.KvKeyPart): { at: number; piece: number } {
  return typeof scope === "string" && scope.startsWith("tag:")
    ? { at: TAG_SPLIT_AT, piece: TAG_PIECE }
    : { at: SPLIT_AT, piece: PIECE };
}

/**
 * An owner's split epoch, moved by every split of a fence or a group: a
 * write checks it, so that one whose reads a split moved reads again.
 */
export const epochKey = (owner: string): Deno.KvKey => ["file_fence_epoch", owner];

/** A key part's rank in KV's order: bytes, strings, bigints, numbers, booleans. */
function rank(part: Deno.KvKeyPart): number {
  if (part instanceof Uint8Array) return 0;
  return { string: 1, bigint: 2, number: 3 }[typeof part as string] ?? 4;
}

/** Two keys of numbers and strings in KV's order. */
export function compareTails(a: readonly Deno.KvKeyPart[], b: readonly Deno.KvKeyPart[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    const r = rank(x) - rank(y);
    if (r !== 0) return r;
    if (typeof x === "string") return compareCodePoints(x, y as string);
    return (x as number) < (y as number) ? -1 : 1;
  }
  return a.length - b.length;
}

/** A count read: its key and count (a section's first never written: 0). */
export type Fence = { key: Deno.KvKey; count: number };

/** Entries of one index past which a run's counts are read as a range rather than one by one. */
const ONE_BY_ONE = 4;
/** Counts a run's range read takes a tail at most before the rest are read one by one. */
const RANGE_PER_TAIL = 4;

/** The count under `base` of the entry `tail` (the last at or before it). */
async function countAt(kv: Deno.Kv, base: Deno.KvKey, tail: Deno.KvKeyPart[]): Promise<Fence> {
  const selector = { start: [...base, tail[0]], end: [...base, ...tail, ""] };
  for await (const e of kv.list(selector, { reverse: true, limit: 1 })) {
    return { key: e.key, count: countOf(e.value) };
  }
  return { key: [...base, tail[0]], count: 0 };
}

/**
 * The counts under `base` (fences' or groups') of `tails` (sorted, of one
 * index and one `nulls`): one by one when few, else the first's, then the
 * counts up to the last tail, {@link RANGE_PER_TAIL} a tail at most; those
 * of the tails past what that read reached (entries spread over a large
 * index: a bulk delete's), one by one.
 */
export async function countsAt(
  kv: Deno.Kv,
  base: Deno.KvKey,
  tails: Deno.KvKeyPart[][],
): Promise<Fence[]> {
  if (tails.length <= ONE_BY_ONE) return await Promise.all(tails.map((t) => countAt(kv, base, t)));
  const first = await countAt(kv, base, tails[0]);
  const range = { start: [...first.key, ""], end: [...base, ...tails.at(-1)!, ""] };
  const limit = RANGE_PER_TAIL * tails.length;
  const later = (await Array.fromAsync(kv.list(range, { limit, batchSize: Math.min(limit, 500) })))
    .map((e) => ({ key: e.key, count: countOf(e.value) }));
  const whole = later.length < limit;
  const out: (Fence | Promise<Fence>)[] = [];
  let at = first;
  let next = 0;
  for (const tail of tails) {
    while (
      next < later.length && compareTails(later[next].key.slice(base.length), tail) <= 0
    ) at = later[next++];
    out.push(whole || next < later.length ? at : countAt(kv, base, tail));
  }
  return await Promise.all(out);
}

/**
 * The counts under `base` (one index's fences or groups) in key order, from
 * the tail `from` up to `to` (exclusive; by default the end of `from`'s
 * section), or all of both sections; a section's first included (a count of
 * 0 when never written).
 */
export async function readCounts(
  kv: Deno.Kv,
  base: Deno.KvKey,
  range?: { from: Deno.KvKeyPart[]; to?: Deno.KvKeyPart[] },
): Promise<Fence[]> {
  const selector = range
    ? {
      start: [...base, ...range.from],
      end: [...base, ...range.to ?? [(range.from[0] as number) + 1]],
    }
    : { prefix: base };
  const stored = (await Array.fromAsync(kv.list(selector, { batchSize: 1000 }))).map((e) => ({
    key: e.key,
    count: countOf(e.value),
  }));
  if (range && range.from.length > 1) return stored;
  const out: Fence[] = [];
  for (const nulls of range ? [range.from[0]] : [0, 1]) {
    const section = stored.filter((f) => f.key[base.length] === nulls);
    if (section[0]?.key.length !== base.length + 1) out.push({ key: [...base, nulls], count: 0 });
    out.push(...section);
  }
  return out;
}

/** The key after `key` under its base, in its section (`null`: the section's last). */
export async function keyAfter(kv: Deno.Kv, key: Deno.KvKey): Promise<Deno.KvKey | null> {
  const range = { start: [...key, ""], end: [...key.slice(0, 4), (key[4] as number) + 1] };
  for await (const e of kv.list(range, { limit: 1 })) return e.key;
  return null;
}

/** A fill's state between two commits. */
interface Fill {
  /** The last key read; `[]`: done. */
  after: Deno.KvKey | null;
  /** The count open (still growing), and its count so far. */
  open: Deno.KvKey | null;
  n: number;
}

/** What {@link fillCounts} builds, and from what. */
export interface CountsFill {
  /** Where the fill's state is kept between commits. */
  state: Deno.KvKey;
  /** The prefix walked, in key order. */
  source: Deno.KvKey;
  /** The prefix of the counts made (`[prefix, owner, scope, sortKey, ...tail]`). */
  prefix: string;
  /** Prefixes cleared before the fill's first commit (its counts and their split marks). */
  drop: Deno.KvKey[];
  /** Keys one commit reads. */
  page: number;
  /** What a walked entry adds to its count; `null`: the entry is not counted. */
  weight: (entry: Deno.KvEntry<unknown>) => number | null;
  /** How much one count holds before the next starts (`key`: the entry that would start it). */
  piece: (key: Deno.KvKey) => number;
  /** Stops between commits once it says so (tests). */
  stop?: () => boolean;
}

/**
 * A resumable walk of every entry under `source` that counts them in runs:
 * a count starts at each section (owner, scope, sort key, nulls) and at the
 * entry after every `piece`, keyed by that entry's tail. `page` entries a
 * commit, with the walk's state, so that a stopped fill resumes after its last
 * commit; its first commit drops whatever `drop` holds.
 */
export async function fillCounts(kv: Deno.Kv, fill: CountsFill): Promise<void> {
  let at = await kv.get<Fill & { fence?: Deno.KvKey | null }>(fill.state);
  if (at.value === null) {
    for (const prefix of fill.drop) await removeAll(kv, prefix);
    await kv.set(fill.state, { after: null, open: null, n: 0 });
    at = await kv.get(fill.state);
  }
  while (at.value && at.value.after?.length !== 0 && !fill.stop?.()) {
    // `fence`: the state of a fill stopped by a version before the state was shared.
    let { after, open = at.value.fence ?? null, n } = at.value;
    const selector = after
      ? { prefix: fill.source, start: [...after, ""] }
      : { prefix: fill.source };
    const page = await Array.fromAsync(
      kv.list(selector, { limit: fill.page, batchSize: fill.page }),
    );
    const op = kv.atomic().check(at);
    const close = () => open && op.set(open, new Deno.KvU64(BigInt(n)));
    for (const entry of page) {
      const weight = fill.weight(entry);
      if (weight === null) continue;
      const { key } = entry;
      const section = [fill.prefix, ...key.slice(1, 5)];
      if (open === null || JSON.stringify(open.slice(0, 5)) !== JSON.stringify(section)) {
        close();
        open = section;
        n = 0;
      } else if (n >= fill.piece(key)) {
        close();
        open = [fill.prefix, ...key.slice(1)];
        n = 0;
      }
      n += weight;
    }
    after = page.at(-1)?.key ?? [];
    if (page.length < fill.page) {
      close();
      after = [];
    }
    // A failed check: another process filled this page.
    await op.set(fill.state, { after, open, n }).commit();
    at = await kv.get(fill.state);
  }
}
