/**
 * Each owner's files listed in every order the files list offers, on Deno KV
 * (issue #32), so that a page is a bounded range read instead of a read of
 * every file. For each complete, owned file and each sort key, one key
 *
 *     ["file_index", owner, scope, sortKey, nulls, value, id] → [flags, type]
 *
 * in the scope `"all"`, again in `"fav"` when it is a favourite, in
 * `"folder:<id>"` when it is in a folder and in `"tag:<id>"` for each of its
 * tags (`nulls` is 1 for a file whose value is `null`, which lists last both
 * ways, as PostgreSQL's `NULLS LAST`). The entry's value carries what the
 * list may still filter on without reading the record: favourite and private
 * as bits (0 in a tag's scope, so that neither rewrites a file's entries in
 * each of its tags), and the type. A count per scope,
 * `["file_index_n", owner, scope]`, is a `Deno.KvU64` moved by `sum`.
 *
 * {@link IndexChange} adds a write's changes to the atomic operation that
 * writes the record (`./files.ts`), so the index never disagrees with the
 * records; with the counts of its blocks (newest first: `./file_blocks.ts`;
 * the other orders: `./file_fences.ts`). {@link walkIndex} reads one scope in one order: ascending is a
 * forward read; descending (ties still by id ascending) reads backwards a
 * batch at a time and turns each run of equal values around, reading the run
 * the batch may have cut forwards on its own.
 */
import {
  countFromStats,
  FILE_SORT_KEYS,
  type FileQuery,
  type FileRecord,
  type FileSortKey,
} from "../files.ts";
import { readStats } from "./file_stats.ts";
import { getAll, removeAll, upgradePages } from "./helpers.ts";
import { keyBytes } from "./many.ts";
import { blockBase, blockKeys, hasBlocks, LEAF, locate, type WalkStart } from "./file_blocks.ts";
import {
  applyFences,
  fencePrefixes,
  FenceSums,
  type FenceWrite,
  hasFences,
  locateByFences,
} from "./file_fences.ts";

/** An index entry's value: bit 1 favourite, bit 2 private; and the file's type. */
export type IndexValue = [number, string];

/** The prefix of every index key. */
export const INDEX: Deno.KvKey = ["file_index"];
const COUNT = "file_index_n";
const FAVORITE = 1;
const PRIVATE = 2;
/** Keys one list request reads at most. */
const MAX_BATCH = 1000;

/** The scope of the files carrying the tag `tagId` (the files list's tag filter). */
export const tagScope = (tagId: string) => `tag:${tagId}`;
/** The scope of the files in the folder `folderId` (the files list's folder filter). */
export const folderScope = (folderId: string) => `folder:${folderId}`;
/** Whether `scope` is a tag's ({@link tagScope}). */
const isTagScope = (scope: Deno.KvKeyPart) => typeof scope === "string" && scope.startsWith("tag:");

/**
 * The scopes `file`, carrying the tags `tags`, is listed in (none for a
 * pending or unowned file).
 */
function scopes(file: FileRecord | null, tags: readonly string[] = []): string[] {
  if (!file || file.pending || file.userId === null) return [];
  const s = ["all"];
  if (file.favorite) s.push("fav");
  if (file.folderId !== null) s.push(folderScope(file.folderId));
  for (const tagId of new Set(tags)) s.push(tagScope(tagId));
  return s;
}

/** A file's value for `key` in an index key: `[nulls, value]`. */
function sortPart(file: FileRecord, key: FileSortKey): [number, string | number] {
  const v = file[key];
  if (v === null || v === undefined) return [1, 0];
  if (v instanceof Date) return [0, v.getTime()];
  if (typeof v === "boolean") return [0, v ? 1 : 0];
  return [0, v];
}

/** One index entry: its key and value. */
type Entry = { key: Deno.KvKey; value: IndexValue };

/**
 * The order an upload writes its entries of at once: the files list's default
 * (newest first). Its other orders' entries are left to a build after it
 * (`./order_backlog.ts`).
 */
export const EAGER_KEY: FileSortKey = "createdAt";
/** The sort keys whose entries of an upload wait for the build. */
const DEFERRED_KEYS = FILE_SORT_KEYS.filter((k) => k !== EAGER_KEY);

/**
 * The mark of an upload whose entries of the other orders wait for the build
 * (`./order_backlog.ts`): until it is dropped, no other write touches them.
 */
export const orderMarkKey = (owner: string, id: string): Deno.KvKey => [
  "file_order_todo",
  owner,
  id,
];

/** Whether the index lists `file` (a complete, owned one). */
export const isListed = (file: FileRecord | null): file is FileRecord => scopes(file).length > 0;

/** Every index entry of `file` (of the sort keys `keys`; in the scopes of its tags `tags` too). */
function entryList(
  file: FileRecord,
  keys: readonly FileSortKey[] = FILE_SORT_KEYS,
  tags: readonly string[] = [],
): Entry[] {
  const out: Entry[] = [];
  const flagged: IndexValue = [
    (file.favorite ? FAVORITE : 0) | (file.private ? PRIVATE : 0),
    file.type,
  ];
  const bare: IndexValue = [0, file.type];
  for (const scope of scopes(file, tags)) {
    const value = isTagScope(scope) ? bare : flagged;
    for (const sortKey of keys) {
      const key = ["file_index", file.userId!, scope, sortKey, ...sortPart(file, sortKey), file.id];
      out.push({ key, value });
    }
  }
  return out;
}

/** Every index entry of `file` (carrying `tags`), by its key serialized. */
function entries(file: FileRecord | null, tags: readonly string[]): Map<string, Entry> {
  return new Map(
    (file ? entryList(file, FILE_SORT_KEYS, tags) : []).map((e) => [JSON.stringify(e.key), e]),
  );
}

/** The key of the count of `owner`'s files in `scope`. */
const countKey = (owner: string, scope: string): Deno.KvKey => [COUNT, owner, scope];

/**
 * The index changes of writes of files, gathered for one atomic operation
 * (each scope's count summed once, whatever number of files it writes).
 */
export class IndexChange {
  readonly #deletes = new Map<string, Deno.KvKey>();
  readonly #sets = new Map<string, Entry>();
  /** The entries of new files: none was there, none is compared. */
  readonly #fresh: Entry[] = [];
  readonly #sums = new Map<string, { key: Deno.KvKey; n: number }>();
  /** The moves of entries of orders with fences (`./file_fences.ts`), read by {@link prepare}. */
  readonly #fences = new FenceSums();
  #resolved: FenceWrite | null = null;
  /** The marks of uploads read by {@link prepare}, checked. */
  #marks: Deno.KvEntryMaybe<unknown>[] = [];

  /**
   * Records an uploaded file, whose id no entry holds yet: its counts, and
   * its entries of {@link EAGER_KEY} (with their block counts) only; those
   * of the other orders are left to the build (`./order_backlog.ts`, which
   * {@link deferredEntries} gives them to).
   */
  uploaded(file: FileRecord): this {
    if (!isListed(file)) return this;
    const list = entryList(file, [EAGER_KEY]);
    this.#fresh.push(...list);
    this.#count(file, 1);
    for (const { key } of list) this.#blocks(key, 1);
    return this;
  }

  /**
   * Counts a new file in its scopes without its entries, which its writer
   * writes apart ({@link newEntries}: an import writes its files' entries
   * in key order first).
   */
  counted(file: FileRecord): this {
    this.#count(file, 1);
    // Their fences are summed with the entries (`fenceEntries`).
    for (const { key } of entryList(file)) this.#blocks(key, 1, false);
    return this;
  }

  /**
   * Records a write of one file: `before` it (`null`: new) and `after` it
   * (`null`: removed), carrying the tags `tags` before and `tagsAfter` after
   * (its scopes of tags: `KvTags` changes them, a write of the file reads
   * them). Entries that stay as they were are not stored.
   */
  file(
    before: FileRecord | null,
    after: FileRecord | null,
    tags: readonly string[] = [],
    tagsAfter: readonly string[] = tags,
  ): this {
    const old = entries(before, tags);
    const next = entries(after, tagsAfter);
    for (const [id, { key }] of old) {
      if (next.has(id)) continue;
      this.#deletes.set(id, key);
      this.#blocks(key, -1);
    }
    for (const [id, entry] of next) {
      const was = old.get(id)?.value;
      if (!was) this.#blocks(entry.key, 1);
      if (!was || was[0] !== entry.value[0] || was[1] !== entry.value[1]) {
        this.#deletes.delete(id);
        this.#sets.set(id, entry);
      }
    }
    this.#count(before, -1, tags);
    this.#count(after, 1, tagsAfter);
    return this;
  }

  #count(file: FileRecord | null, n: number, tags: readonly string[] = []): void {
    for (const scope of scopes(file, tags)) this.#sum(countKey(file!.userId!, scope), n);
  }

  /** Counts the entry `key`, already stored, in its blocks (schema 10's upgrade). */
  block(key: Deno.KvKey): this {
    this.#blocks(key, 1, false);
    return this;
  }

  /**
   * Moves the block counts of the entry `key` (`./file_blocks.ts`) by `n`,
   * and its fence's (`./file_fences.ts`) unless `fences` is false.
   */
  #blocks(key: Deno.KvKey, n: number, fences = true): void {
    for (const block of blockKeys(key)) this.#sum(block, n);
    if (fences && hasFences(key[3] as FileSortKey)) this.#fences.add(key, n);
  }

  /**
   * Reads what {@link apply} needs beyond the records: the marks of the
   * files written whose other orders' entries wait for the build (those
   * entries are then left to it: none is stored, the build writes them from
   * the record it finds), and the fences of the entries moved. Called once,
   * after the last file is recorded, before {@link apply}.
   */
  async prepare(kv: Deno.Kv): Promise<this> {
    // A tag's scope is never left to the build: an upload carries no tag.
    const deferred = (key: Deno.KvKey) => key[3] !== EAGER_KEY && !isTagScope(key[2]);
    const fileOf = (key: Deno.KvKey) => JSON.stringify([key[1], key.at(-1)]);
    const ids = new Map<string, Deno.KvKey>();
    for (const key of [...this.#deletes.values(), ...[...this.#sets.values()].map((e) => e.key)]) {
      if (deferred(key)) ids.set(fileOf(key), orderMarkKey(key[1] as string, key.at(-1) as string));
    }
    // The fences read alongside the marks (checked at the commit either way); read again
    // without the moves a mark leaves to the build, when there is one.
    const [read, resolved] = await Promise.all([
      getAll(kv, [...ids.values()]),
      this.#fences.resolve(kv),
    ]);
    const marks = read.filter((m) => m.value !== null);
    this.#resolved = resolved;
    if (marks.length > 0) {
      const marked = new Set(marks.map((m) => fileOf(m.key)));
      const waits = (key: Deno.KvKey) => deferred(key) && marked.has(fileOf(key));
      for (const [id, key] of this.#deletes) if (waits(key)) this.#deletes.delete(id);
      for (const [id, { key }] of this.#sets) if (waits(key)) this.#sets.delete(id);
      this.#fences.drop(waits);
      this.#resolved = await this.#fences.resolve(kv);
    }
    this.#marks = marks;
    return this;
  }

  #sum(key: Deno.KvKey, n: number): void {
    const id = JSON.stringify(key);
    const sum = this.#sums.get(id) ?? { key, n: 0 };
    sum.n += n;
    this.#sums.set(id, sum);
  }

  /** The keys {@link apply} sets (entries new or changed). */
  setKeys(): Deno.KvKey[] {
    return [...this.#sets.values(), ...this.#fresh].map((entry) => entry.key);
  }

  /** How many mutations {@link apply} adds. */
  get size(): number {
    return this.#deletes.size + this.#sets.size + this.#fresh.length + this.#sums.size +
      this.#fences.size;
  }

  /** At least the bytes of the keys {@link apply} writes (`keyBytes`). */
  get keyBytes(): number {
    let n = 0;
    for (const key of this.#deletes.values()) n += keyBytes(key);
    for (const { key } of [...this.#sets.values(), ...this.#fresh]) n += keyBytes(key);
    for (const { key } of this.#sums.values()) n += keyBytes(key);
    for (const { key } of this.#resolved?.sums ?? []) n += keyBytes(key);
    for (const { key } of this.#resolved?.groups ?? []) n += keyBytes(key);
    return n;
  }

  /** The fences' and groups' sums {@link apply} adds at most (two an entry of a fenced order moved). */
  get fenceSize(): number {
    return this.#fences.size;
  }

  /** Adds the changes to `op` ({@link prepare}d first when they move fences). */
  apply(op: Deno.AtomicOperation): Deno.AtomicOperation {
    return this.applyEntries(this.applyFences(op));
  }

  /**
   * Adds the fences' sums and the marks' checks to `op` ({@link prepare}d
   * first): a bulk removal adds those of its files at once.
   */
  applyFences(op: Deno.AtomicOperation): Deno.AtomicOperation {
    if (this.#fences.size > 0 && !this.#resolved) throw new Error("IndexChange: not prepared");
    if (this.#resolved) applyFences(op.check(...this.#marks), this.#resolved);
    return op;
  }

  /** Adds the changes to `op` but the fences' sums (see {@link applyFences}). */
  applyEntries(op: Deno.AtomicOperation): Deno.AtomicOperation {
    for (const key of this.#deletes.values()) op.delete(key);
    for (const { key, value } of this.#sets.values()) op.set(key, value);
    for (const { key, value } of this.#fresh) op.set(key, value);
    for (const { key, n } of this.#sums.values()) {
      if (n !== 0) op.sum(key, BigInt.asUintN(64, BigInt(n)));
    }
    return op;
  }
}

/** The index entries of new `files` (none for a pending or unowned one), keys and values. */
export function newEntries(files: FileRecord[]): { key: Deno.KvKey; value: IndexValue }[] {
  return files.flatMap((file) => entryList(file));
}

/**
 * The index entries of `file` an upload leaves to the build (those of every
 * order but {@link EAGER_KEY}): they move no count.
 */
export function deferredEntries(file: FileRecord): { key: Deno.KvKey; value: IndexValue }[] {
  return entryList(file, DEFERRED_KEYS);
}

/**
 * The fence sums (`./file_fences.ts`) of new index entries (`n` 1) or of
 * entries removed (`n` −1), read for one atomic operation: an import writes
 * its entries apart, in key order.
 */
export async function fenceEntries(
  kv: Deno.Kv,
  keys: Deno.KvKey[],
  n: number,
): Promise<FenceWrite> {
  const sums = new FenceSums();
  for (const key of keys) {
    if (key[0] === INDEX[0] && hasFences(key[3] as FileSortKey)) sums.add(key, n);
  }
  return await sums.resolve(kv);
}

/** The block counts (`./file_blocks.ts`) one index entry moves at most. */
const BLOCK_WRITES_PER_ENTRY = 10;

/**
 * The most mutations {@link IndexChange.file} adds for one file stored anew
 * (an entry, and a fence's and its group's sums or block counts, per order
 * and scope).
 */
export const INDEX_WRITES_PER_FILE = 3 *
  (3 * FILE_SORT_KEYS.length + 1 +
    BLOCK_WRITES_PER_ENTRY * FILE_SORT_KEYS.filter(hasBlocks).length);

/**
 * The block counts {@link IndexChange.counted} moves for `file` at most
 * (before a run's files share them) and the bytes of their keys.
 */
export function blockCost(file: FileRecord): { mutations: number; bytes: number } {
  const keys = entryList(file).flatMap((e) => blockKeys(e.key));
  return { mutations: keys.length, bytes: keys.reduce((n, key) => n + keyBytes(key), 0) };
}

/**
 * Removes every key of `owner`'s scope `scope` once it lists no file (a
 * deleted tag's): its count, its blocks' and fences' counts and split marks
 * (all 0 then), and any entry a write made meanwhile.
 */
export async function dropScope(kv: Deno.Kv, owner: string, scope: string): Promise<void> {
  const prefixes = [
    [...INDEX, owner, scope],
    blockBase(owner, scope, EAGER_KEY).slice(0, 3),
    ...fencePrefixes(owner, scope),
  ];
  for (const prefix of prefixes) await removeAll(kv, prefix);
  await kv.delete(countKey(owner, scope));
}

/** The count of `owner`'s files in `scope`, kept with the index (a wrapped-around one is 0). */
export async function scopeCount(kv: Deno.Kv, owner: string, scope: string): Promise<number> {
  const { value } = await kv.get(countKey(owner, scope));
  if (!(value instanceof Deno.KvU64)) return 0;
  return value.value >= 1n << 63n ? 0 : Number(value.value);
}

/**
 * The scope a query reads and the filters left to apply on each entry's
 * value (`types`: only files of these types).
 */
function plan(q: FileQuery, types?: ReadonlySet<string>) {
  const scope = q.tagIds !== undefined
    ? tagScope(q.tagIds[0])
    : q.folderId !== undefined
    ? folderScope(q.folderId)
    : q.favorite === true
    ? "fav"
    : "all";
  const favorite = scope === "fav" ? undefined : q.favorite;
  const keep = (value: IndexValue) =>
    (favorite === undefined || ((value[0] & FAVORITE) !== 0) === favorite) &&
    (q.private === undefined || ((value[0] & PRIVATE) !== 0) === q.private) &&
    (!q.typePrefixes || q.typePrefixes.some((p) => value[1].startsWith(p))) &&
    (!types || types.has(value[1]));
  const filtered = favorite !== undefined || q.private !== undefined ||
    q.typePrefixes !== undefined;
  return { scope, keep, filtered };
}

/**
 * Whether {@link pageIds} reads `q`'s page of a tag from the tag's scope:
 * one tag, and no other filter than the types (a tag's entries carry no
 * favourite or private bit; a folder's or several tags' files are read as
 * files given by id).
 */
export function inTagScope(q: FileQuery): boolean {
  return q.tagIds !== undefined && new Set(q.tagIds).size === 1 && q.ids === undefined &&
    q.search === undefined && q.folderId === undefined && q.favorite === undefined &&
    q.private === undefined;
}

/**
 * The ids of one page of `q` (which has neither `ids` nor `search`, and
 * tags only as {@link inTagScope} takes them; with
 * `types`, only files of those types) and how many files match: the entries
 * before the page are read (keys and their small values, no record), then
 * the page's; the total is `q.total` when given, the scope's count when
 * nothing filters the scope further, the owner's statistics when they tell
 * (`countFromStats`, not with `types`), and else the count of the remaining
 * entries read to the end.
 */
export async function pageIds(
  kv: Deno.Kv,
  q: FileQuery,
  { types, spread = 1 }: { types?: ReadonlySet<string>; spread?: number } = {},
): Promise<{ ids: string[]; total: number }> {
  const { scope, keep, filtered } = plan(q, types);
  let total = q.total ??
    (types
      ? undefined
      : filtered
      ? await countFromStats(q, () => readStats(kv, q.userId))
      : await scopeCount(kv, q.userId, scope));
  const ids: string[] = [];
  let seen = 0;
  const need = () =>
    total === undefined ? Infinity : Math.ceil((q.offset + q.limit - seen) * spread);
  const base = ["file_index", q.userId, scope, q.sortBy];
  let from: WalkStart = { nulls: 0 };
  if (!filtered && !types && q.offset >= LEAF) {
    // A deep page: the block counts (`./file_blocks.ts`) or the fences
    // (`./file_fences.ts`) say where it starts.
    const at = hasBlocks(q.sortBy)
      ? await locate(kv, q.userId, scope, q.sortBy, q.order, q.offset)
      : await locateByFences(kv, q.userId, scope, q.sortBy, q.order, q.offset);
    if (!at) return { ids, total: total ?? 0 };
    from = at.start;
    seen = q.offset - at.skip;
  }
  for await (const entry of walkFrom(kv, base, q.order, need, from)) {
    if (!keep(entry.value)) continue;
    if (seen >= q.offset && ids.length < q.limit) ids.push(entry.key.at(-1) as string);
    seen++;
    if (total !== undefined && ids.length >= q.limit) break;
  }
  total ??= seen;
  return { ids, total };
}

/** How many keys to ask for at once when about `need` more are wanted. */
const batchFor = (need: number) => Math.max(16, Math.min(MAX_BATCH, need + 1));

/**
 * The entries under `base` (`[..., sortKey]`) in `order`: ascending by value
 * then id, or descending by value then ascending by id, the `null` values
 * last either way. `need()` says how many more entries the reader still
 * wants (it sizes the batches; the reader may stop at any time).
 */
export function walkIndex(
  kv: Deno.Kv,
  base: Deno.KvKey,
  order: "asc" | "desc",
  need: () => number,
): AsyncGenerator<Deno.KvEntry<IndexValue>> {
  return walkFrom(kv, base, order, need, { nulls: 0 });
}

/** {@link walkIndex} from `from` on (a block's start: `./file_blocks.ts`). */
async function* walkFrom(
  kv: Deno.Kv,
  base: Deno.KvKey,
  order: "asc" | "desc",
  need: () => number,
  from: WalkStart,
): AsyncGenerator<Deno.KvEntry<IndexValue>> {
  if (from.nulls === 0) {
    const values = [...base, 0];
    if (order === "asc") yield* forward(kv, values, need, from.start);
    else {
      let end = from.end;
      if (from.exact) {
        const { value, id } = from.exact;
        yield* forward(kv, [...values, value], need, [...values, value, id]);
        end = [...values, value];
      }
      yield* backward(kv, values, need, end);
    }
  }
  yield* forward(kv, [...base, 1], need, from.nulls === 1 ? from.start : undefined);
}

/** The entries under `prefix`, in key order (from `start` on). */
async function* forward(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  need: () => number,
  start?: Deno.KvKey,
): AsyncGenerator<Deno.KvEntry<IndexValue>> {
  while (true) {
    const size = batchFor(need());
    const selector = start ? { prefix, start } : { prefix };
    const batch = await Array.fromAsync(
      kv.list<IndexValue>(selector, { limit: size, batchSize: size }),
    );
    yield* batch;
    if (batch.length < size) return;
    start = [...batch.at(-1)!.key, ""];
    // A key part after the id's: the next key is past the last one read (ids are strings,
    // and any key extending the last one sorts after it).
  }
}

/**
 * The entries under `prefix` (`[..., nulls 0]`), by value descending and id
 * ascending: a batch read backwards holds whole runs of equal values above
 * its smallest value, each yielded turned around; the run of the smallest
 * value, which the batch may have cut, is read forwards on its own.
 */
async function* backward(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  need: () => number,
  end?: Deno.KvKey,
): AsyncGenerator<Deno.KvEntry<IndexValue>> {
  const at = prefix.length; // the value's position in a key
  while (true) {
    const size = batchFor(need());
    const selector = end ? { prefix, end } : { prefix };
    const batch = await Array.fromAsync(
      kv.list<IndexValue>(selector, { limit: size, batchSize: size, reverse: true }),
    );
    if (batch.length === 0) return;
    const whole = batch.length < size; // reached the first key: every run is whole
    const smallest = batch.at(-1)!.key[at];
    let run: Deno.KvEntry<IndexValue>[] = [];
    for (const entry of batch) {
      if (!whole && entry.key[at] === smallest) break;
      if (run.length > 0 && run[0].key[at] !== entry.key[at]) {
        yield* run.reverse();
        run = [];
      }
      run.push(entry);
    }
    yield* run.reverse();
    if (whole) return;
    const last = [...prefix, smallest as string | number];
    yield* forward(kv, last, need);
    end = last;
  }
}

/** Where the upgrade to schema 4 stands: the last file record indexed. */
const BACKFILL: Deno.KvKey = ["meta", "file_index_backfill"];
/** Records one backfill commit indexes (each about 30 writes and 2 checks at most). */
const BACKFILL_PAGE = 20;

/**
 * The index key that tells whether `file` is indexed already (in `scope`):
 * its entry of {@link EAGER_KEY}, which every write that indexes writes at once.
 */
export const probeKey = (file: FileRecord, scope = "all"): Deno.KvKey => [
  "file_index",
  file.userId ?? "",
  scope,
  EAGER_KEY,
  ...sortPart(file, EAGER_KEY),
  file.id,
];

/**
 * Schema 4's upgrade: every file already stored indexed
 * ({@link upgradePages}), checking the absence of each file's entries so
 * that a file stored meanwhile by a process that already indexes is left as
 * that process indexed it.
 */
export async function backfillFileIndex(kv: Deno.Kv): Promise<void> {
  await upgradePages<FileRecord>(kv, ["file"], BACKFILL, BACKFILL_PAGE, async (op, page) => {
    const indexed = indexable(page.map((e) => e.value));
    const probes = await getAll(kv, indexed.map((file) => probeKey(file)));
    op.check(...probes);
    const change = new IndexChange();
    for (const file of indexed) {
      if (probes.find((p) => p.key.at(-1) === file.id)?.value === null) change.file(null, file);
    }
    (await change.prepare(kv)).apply(op);
  });
}

/** Those of `files` that the index lists (complete and owned). */
const indexable = (files: FileRecord[]) => files.filter((f) => scopes(f).length > 0);

/** Where the upgrade to schema 10 stands: the last file record whose blocks are counted. */
const BLOCKS_BACKFILL: Deno.KvKey = ["meta", "file_blocks_backfill"];
/** Records one block backfill commit counts (up to 10 sums per scope, 3 scopes each). */
const BLOCKS_PAGE = 25;

/**
 * Schema 10's upgrade: the block counts (`./file_blocks.ts`) of every file
 * already stored, a page of records at a time ({@link upgradePages}: a
 * stopped upgrade resumes after the last page committed, and a page is
 * counted once whatever number of processes upgrade at once).
 */
export async function backfillFileBlocks(kv: Deno.Kv): Promise<void> {
  await upgradePages<FileRecord>(kv, ["file"], BLOCKS_BACKFILL, BLOCKS_PAGE, (op, page) => {
    const change = new IndexChange();
    for (const { value } of page) {
      for (const { key } of entryList(value)) change.block(key);
    }
    change.apply(op);
  });
}
