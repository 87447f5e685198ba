/**
 * The search index of files on Deno KV (issue #32): a search by name,
 * original name or type reads the files that may match, not every file of
 * the owner. The search stays a case-insensitive substring match
 * (`queryFiles` in `../files.ts`), which the candidates are checked against.
 *
 * - Name and original name: a key per suffix of the lower-cased value
 *   starting at every {@link STEP}th position (in code points),
 *   `["file_sfx2", owner, field, suffix, id]` (field `n` or `o`), the suffix
 *   cut to {@link KEY_CHARS} code points, whose value lists the up to
 *   `STEP - 1` code points before it (one string per position where the
 *   same cut suffix recurs). A query of `STEP` code points or more found at
 *   position `s` has, `d < STEP` code points on, a kept position: its tail
 *   from `d` is a prefix of that suffix and its first `d` code points end
 *   what precedes it. So a search is `STEP` range reads of the keys starting
 *   with the lower-cased query's tails (cut the same way), each kept when
 *   its value ends with the head. Schema 5 kept a suffix at every position,
 *   `STEP` times as many keys, and an import's cost is mostly keys. Only the
 *   suffixes starting in the first {@link MAX_START} code points are kept; a
 *   longer value also gets `["file_sfx_long", owner, field, id]`, and those
 *   files are always candidates, so no match is lost. A shorter query (in
 *   most names anyway) is answered from the owner's list.
 * - Type: `["file_by_type", owner, type, id]`. A search reads the owner's
 *   distinct types (one short read each), keeps those containing the query,
 *   and their files are the candidates; when they are many, the page is
 *   read from the list index instead, in its order, its entries holding
 *   their file's type (`broadTypePage`), the total from the type counters.
 *
 * Files without an owner are not indexed (a list is always one owner's).
 * A change of a stored file changes its keys in the same atomic operation as
 * the record ({@link indexFile}); a new file's (an upload's, an import's) are
 * listed for a build after it (`./search_backlog.ts`), its files meanwhile
 * candidates of every search of their owner; `KV_SCHEMA_VERSION` 6 fills
 * them for the files stored before ({@link upgradeSearchIndex}).
 */
import {
  type FilePage,
  type FileQuery,
  type FileRecord,
  isIndexedSearch,
  queryFiles,
} from "../files.ts";
import { getAll, removeAll } from "./helpers.ts";
import { readStats } from "./file_stats.ts";
import { pageIds } from "./file_index.ts";

/** The fields with a suffix index. */
const SUFFIX_FIELDS = ["name", "originalName"] as const;
type SuffixField = typeof SUFFIX_FIELDS[number];

/** Suffixes start in a value's first this many code points (a multiple of {@link STEP}). */
export const MAX_START = 48;
/** A suffix key holds at most this many code points of its suffix. */
export const KEY_CHARS = 16;
/** Every how many code points a suffix is kept. */
const STEP = 2;

/**
 * The most candidates a search reads through the index. A broader search
 * (a query in most names: `.`, `e`) is left to the owner's list, which
 * reads every file anyway, rather than holding that many records at once.
 */
export const MAX_CANDIDATES = 50_000;

/** The highest code point: `prefix + END` bounds the strings starting with `prefix`. */
const END = "\u{10FFFF}";

/** A field's code in the keys (short: a file has a few dozen of them). */
const CODE: Record<SuffixField, string> = { name: "n", originalName: "o" };

/** The prefix of schema 5's suffix keys (one per position), which schema 6 removes. */
const OLD_SUFFIXES: Deno.KvKey = ["file_sfx"];

const K = {
  suffix: (owner: string, field: SuffixField, suffix: string, id: string) => [
    "file_sfx2",
    owner,
    CODE[field],
    suffix,
    id,
  ],
  suffixes: (owner: string, field: SuffixField) => ["file_sfx2", owner, CODE[field]],
  long: (
    owner: string,
    field: SuffixField,
    id: string,
  ) => ["file_sfx_long", owner, CODE[field], id],
  longs: (owner: string, field: SuffixField) => ["file_sfx_long", owner, CODE[field]],
  type: (owner: string, type: string, id: string) => ["file_by_type", owner, type, id],
  types: (owner: string) => ["file_by_type", owner],
  file: (id: string) => ["file", id],
};

/** A UTF-16 surrogate: a value without one has one code unit per code point. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * The suffixes of `value` lower-cased, cut to {@link KEY_CHARS}, at the
 * positions below {@link MAX_START} that are a multiple of {@link STEP},
 * each with the code points before it (up to `STEP - 1` of them; one string
 * per position where the same cut suffix recurs). A value without a
 * surrogate (most) is cut as it is, one code unit a code point; one with
 * is split into its code points first.
 */
function suffixes(value: string): { cut: Map<string, string[]>; long: boolean } {
  const lower = value.toLowerCase();
  const points: string | string[] = SURROGATE.test(lower) ? Array.from(lower) : lower;
  const slice = typeof points === "string"
    ? (from: number, to: number) => points.slice(from, to)
    : (from: number, to: number) => points.slice(from, to).join("");
  const cut = new Map<string, string[]>();
  for (let i = 0; i < Math.min(points.length, MAX_START); i += STEP) {
    const suffix = slice(i, i + KEY_CHARS);
    const before = slice(Math.max(0, i - STEP + 1), i);
    const seen = cut.get(suffix);
    if (seen === undefined) cut.set(suffix, [before]);
    else if (!seen.includes(before)) seen.push(before);
  }
  return { cut, long: points.length > MAX_START };
}

/** What a file's search keys come from: its id, owner, names and type. */
export type Searched = Pick<FileRecord, "id" | "userId" | "name" | "originalName" | "type">;

/** Whether `a` and `b`, the same file at two times (or none), have the same search keys. */
export function sameSearched(a: Searched | null, b: Searched | null): boolean {
  if (a === null || b === null) return a === b;
  return a.userId === b.userId && a.name === b.name &&
    a.originalName === b.originalName && a.type === b.type;
}

/** One search key and its value. */
export interface SearchKey {
  key: Deno.KvKey;
  value: string[] | true;
}

/** Every search key of `file` (none for a file without an owner). */
export function searchKeys(file: Searched): SearchKey[] {
  const owner = file.userId;
  if (owner === null) return [];
  const keys: SearchKey[] = [{ key: K.type(owner, file.type, file.id), value: true }];
  for (const field of SUFFIX_FIELDS) {
    const value = file[field];
    if (value === null || value === "") continue;
    const { cut, long } = suffixes(value);
    for (const [suffix, before] of cut) {
      keys.push({ key: K.suffix(owner, field, suffix, file.id), value: before });
    }
    if (long) keys.push({ key: K.long(owner, field, file.id), value: true });
  }
  return keys;
}

/**
 * The most keys {@link searchKeys} gives one file: two fields' suffixes and
 * long marks, and the type (51 with a {@link STEP} of 2; a rename that changes both fields deletes
 * and sets at most twice that; at most 140 bytes a key, well within an atomic
 * operation's 1000 mutations and 80 KiB of keys).
 */
export const MAX_SEARCH_KEYS = SUFFIX_FIELDS.length * (MAX_START / STEP + 1) + 1;

/**
 * Adds to `op` the search keys' changes of a write of one file: `before` it
 * (`null`: new), `after` it (`null`: removed). Only the keys that differ are
 * stored, so a write that changes no searched field (a view, a favourite)
 * adds nothing.
 */
export function indexFile<Op extends Deno.AtomicOperation>(
  op: Op,
  before: Searched | null,
  after: Searched | null,
): Op {
  if (before && after && sameSearched(before, after)) return op;
  const old = new Map(
    (before ? searchKeys(before) : []).map((k) => [JSON.stringify(k.key), k]),
  );
  for (const { key, value } of after ? searchKeys(after) : []) {
    const id = JSON.stringify(key);
    if (JSON.stringify(old.get(id)?.value) !== JSON.stringify(value)) op.set(key, value);
    old.delete(id);
  }
  for (const { key } of old.values()) op.delete(key);
  return op;
}

/**
 * The ids of the owner's files whose type contains `needle` (lower-cased);
 * `null` past {@link MAX_CANDIDATES}.
 */
async function typeCandidates(
  kv: Deno.Kv,
  owner: string,
  needle: string,
): Promise<Set<string> | null> {
  const ids = new Set<string>();
  let start: Deno.KvKey = K.types(owner);
  // One read per distinct type: its first key gives the type, the next read starts past it.
  while (true) {
    const [first] = await Array.fromAsync(
      kv.list({ start, end: [...K.types(owner), END] }, { limit: 1 }),
    );
    if (!first) return ids;
    const type = first.key[2] as string;
    if (type.toLowerCase().includes(needle)) {
      for await (const { key } of kv.list({ prefix: [...K.types(owner), type] })) {
        ids.add(key[3] as string);
        if (ids.size > MAX_CANDIDATES) return null;
      }
    }
    start = [...K.types(owner), type, END];
  }
}

/**
 * The ids of the owner's files whose `field` may contain `needle`
 * (lower-cased, well-formed, of {@link STEP} code points or more): found at
 * a kept position, or `d` code points before one (`d` < `STEP`), where its
 * tail after `d` code points starts the suffix and its head ends what
 * precedes it; and the long values. `null` past {@link MAX_CANDIDATES}.
 */
async function suffixCandidates(
  kv: Deno.Kv,
  owner: string,
  field: SuffixField,
  needle: string,
): Promise<Set<string> | null> {
  const ids = new Set<string>();
  const points = Array.from(needle);
  const within = K.suffixes(owner, field);
  for (let d = 0; d < STEP; d++) {
    const prefix = points.slice(d, d + KEY_CHARS).join("");
    const head = points.slice(0, d).join("");
    const range = { start: [...within, prefix], end: [...within, prefix + END] };
    for await (const { key, value } of kv.list<string[]>(range, { batchSize: 1000 })) {
      if (d > 0 && !value.some((before) => before.endsWith(head))) continue;
      ids.add(key[4] as string);
      if (ids.size > MAX_CANDIDATES) return null;
    }
  }
  for await (const { key } of kv.list({ prefix: K.longs(owner, field) }, { batchSize: 1000 })) {
    ids.add(key[3] as string);
    if (ids.size > MAX_CANDIDATES) return null;
  }
  return ids;
}

/**
 * A search by type matching many files (`needle`, lower-cased), paged from
 * the list index in `q`'s order (each entry holds its file's type) rather
 * than read whole, its total from the owner's counters of each type; `null`
 * when something else narrows it (favourite, private, folder: the counters
 * cannot tell its total), or when few files match, fewer than the entries
 * the list index would skip to reach the page (their records are read
 * instead).
 */
async function broadTypePage(kv: Deno.Kv, q: FileQuery, needle: string): Promise<FilePage | null> {
  if (q.favorite !== undefined || q.private !== undefined || q.folderId !== undefined) return null;
  const stats = await readStats(kv, q.userId);
  const types = new Set(
    Object.keys(stats.types).filter((type) =>
      type.toLowerCase().includes(needle) &&
      (!q.typePrefixes || q.typePrefixes.some((p) => type.startsWith(p)))
    ),
  );
  const matches = [...types].reduce((sum, type) => sum + stats.types[type], 0);
  // Entries read to the page: (offset + limit) × files / matches; records otherwise: matches.
  if (matches === 0 || matches * matches < (q.offset + q.limit) * stats.files) return null;
  const { ids } = await pageIds(
    kv,
    { ...q, search: undefined, total: matches },
    { types, spread: Math.max(1, stats.files / matches) },
  );
  const records = await getAll<FileRecord>(kv, ids.map(K.file));
  return { files: records.flatMap((e) => e.value ?? []), total: matches };
}

/**
 * The page `q` asks for when it searches an indexed field (name, original
 * name, type) or names its files (`ids`, a tag search), read from those
 * candidates alone (with, in a search, the owner's files `unbuilt` names:
 * those whose keys are not stored yet, `./search_backlog.ts`); `null` for
 * any other query, and for one with more than {@link MAX_CANDIDATES}. The candidates' records are checked against every
 * condition of `q` (`queryFiles`), so the answer is the one a read of every
 * file gives.
 */
export async function searchFiles(
  kv: Deno.Kv,
  q: FileQuery,
  unbuilt?: (owner: string) => Promise<string[] | null>,
): Promise<FilePage | null> {
  if (!isIndexedSearch(q)) return null;
  let ids: Set<string> | null = null;
  if (q.search && q.search.field !== "id" && q.search.query !== "") {
    const needle = q.search.query.toLowerCase();
    // One code point, or a lone surrogate: not in the index's terms; the owner's list answers.
    const indexed = q.search.field === "type" ||
      (needle.isWellFormed() && Array.from(needle).length >= STEP);
    if (!indexed) return null;
    if (q.search.field === "type" && !q.ids) {
      const page = await broadTypePage(kv, q, needle);
      if (page) return page;
    }
    // Files whose keys are not stored yet (an import's, `./search_backlog.ts`): all
    // candidates. Read first: a build writes a file's keys before it drops the file's list.
    const more = unbuilt ? await unbuilt(q.userId) : [];
    if (more === null) return null;
    ids = q.search.field === "type"
      ? await typeCandidates(kv, q.userId, needle)
      : await suffixCandidates(kv, q.userId, q.search.field, needle);
    if (ids === null) return null;
    for (const id of more) ids.add(id);
    if (ids.size > MAX_CANDIDATES) return null;
  }
  if (q.ids) {
    if (q.ids.length > MAX_CANDIDATES) return null;
    const named = new Set(q.ids);
    ids = ids ? new Set([...ids].filter((id) => named.has(id))) : named;
  }
  const records = await getAll<FileRecord>(kv, [...ids!].map(K.file));
  return queryFiles(records.flatMap((e) => e.value ?? []), q);
}

/** Where schema 5's backfill kept its progress (a stopped one's is dropped by schema 6's). */
const OLD_CURSOR: Deno.KvKey = ["meta", "search_backfill"];
/** Where {@link upgradeSearchIndex} keeps its progress: the last owner copy indexed. */
const BACKFILL_CURSOR: Deno.KvKey = ["meta", "search_backfill_6"];

/** Search keys one atomic operation of the backfill writes, about (a file's are never split). */
const BACKFILL_KEYS = 400;

/**
 * KV schema 6's upgrade (from any earlier schema): removes schema 5's suffix
 * keys, then writes the search keys of every owned file, reading the owners'
 * copies under `copies` in key order a page at a time (never a whole list)
 * and keeping the last one done under {@link BACKFILL_CURSOR}, in the same
 * atomic operation as the keys, so that an upgrade that stopped resumes
 * where it was (the removal resumes by itself: what it removed is gone).
 * Setting a key twice is harmless. Removes the cursors when done.
 */
export async function upgradeSearchIndex(kv: Deno.Kv, copies: Deno.KvKey): Promise<void> {
  const cursor = (await kv.get<Deno.KvKey>(BACKFILL_CURSOR)).value;
  if (cursor === null) await removeAll(kv, OLD_SUFFIXES);
  const selector = cursor ? { prefix: copies, start: cursor } : { prefix: copies };
  let op = kv.atomic();
  let keys = 0;
  let last: Deno.KvKey | null = null;
  const flush = async () => {
    if (last === null) return;
    const { ok } = await op.set(BACKFILL_CURSOR, [...last, ""]).commit();
    if (!ok) throw new Error("the search index backfill could not write");
    op = kv.atomic();
    keys = 0;
    last = null;
  };
  for await (const entry of kv.list<FileRecord>(selector, { batchSize: 500 })) {
    const fileKeys = searchKeys(entry.value);
    if (keys + fileKeys.length > BACKFILL_KEYS) await flush();
    for (const { key, value } of fileKeys) op.set(key, value);
    keys += fileKeys.length;
    last = entry.key;
  }
  await flush();
  await kv.atomic().delete(BACKFILL_CURSOR).delete(OLD_CURSOR).commit();
}
