/**
 * The search index of files on Deno KV (issue #32): a search by name,
 * original name or type reads the files that may match, not every file of
 * the owner. The search stays a case-insensitive substring match
 * (`queryFiles` in `../files.ts`), which the candidates are checked against.
 *
 * - Name and original name: a key per suffix of the lower-cased value,
 *   `["file_sfx", owner, field, suffix, id]` (field `n` or `o`), the suffix cut to
 *   {@link KEY_CHARS} code points. `q` is a substring of `v` exactly when it
 *   is a prefix of one of `v`'s suffixes, so a search is one range read of
 *   the keys starting with the lower-cased query (cut the same way), whatever
 *   its length (one character too). Only the suffixes starting in the first
 *   {@link MAX_START} code points are kept; a longer value also gets
 *   `["file_sfx_long", owner, field, id]`, and those files are always
 *   candidates, so no match is lost.
 * - Type: `["file_by_type", owner, type, id]`. A search reads the owner's
 *   distinct types (one short read each), keeps those containing the query,
 *   and their files are the candidates.
 *
 * Files without an owner are not indexed (a list is always one owner's).
 * The keys are written in the same atomic operation as the record
 * ({@link indexFile}); `KV_SCHEMA_VERSION` 5 fills them for the files stored
 * before ({@link backfillSearchIndex}).
 */
import {
  type FilePage,
  type FileQuery,
  type FileRecord,
  isIndexedSearch,
  queryFiles,
} from "../files.ts";
import { getAll } from "./helpers.ts";

/** The fields with a suffix index. */
const SUFFIX_FIELDS = ["name", "originalName"] as const;
type SuffixField = typeof SUFFIX_FIELDS[number];

/** Suffixes start in a value's first this many code points. */
export const MAX_START = 48;
/** A suffix key holds at most this many code points of its suffix. */
export const KEY_CHARS = 16;

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

const K = {
  suffix: (owner: string, field: SuffixField, suffix: string, id: string) => [
    "file_sfx",
    owner,
    CODE[field],
    suffix,
    id,
  ],
  suffixes: (owner: string, field: SuffixField) => ["file_sfx", owner, CODE[field]],
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

/** The distinct suffixes, cut to {@link KEY_CHARS}, of the first {@link MAX_START} positions. */
function suffixes(value: string): { cut: Set<string>; long: boolean } {
  const points = Array.from(value.toLowerCase());
  const cut = new Set<string>();
  for (let i = 0; i < Math.min(points.length, MAX_START); i++) {
    cut.add(points.slice(i, i + KEY_CHARS).join(""));
  }
  return { cut, long: points.length > MAX_START };
}

/** Every search key of `file` (none for a file without an owner). */
export function searchKeys(file: FileRecord): Deno.KvKey[] {
  const owner = file.userId;
  if (owner === null) return [];
  const keys: Deno.KvKey[] = [K.type(owner, file.type, file.id)];
  for (const field of SUFFIX_FIELDS) {
    const value = file[field];
    if (value === null || value === "") continue;
    const { cut, long } = suffixes(value);
    for (const suffix of cut) keys.push(K.suffix(owner, field, suffix, file.id));
    if (long) keys.push(K.long(owner, field, file.id));
  }
  return keys;
}

/**
 * The most keys {@link searchKeys} gives one file: two fields' suffixes and
 * long marks, and the type (99; a rename that changes both fields deletes
 * and sets at most twice that; at most 140 bytes a key, well within an atomic
 * operation's 1000 mutations and 80 KiB of keys).
 */
export const MAX_SEARCH_KEYS = SUFFIX_FIELDS.length * (MAX_START + 1) + 1;

/**
 * Adds to `op` the search keys' changes of a write of one file: `before` it
 * (`null`: new), `after` it (`null`: removed). Only the keys that differ are
 * written, so a write that changes no searched field (a view, a favourite)
 * adds nothing.
 */
export function indexFile<Op extends Deno.AtomicOperation>(
  op: Op,
  before: FileRecord | null,
  after: FileRecord | null,
): Op {
  if (
    before && after && before.userId === after.userId && before.name === after.name &&
    before.originalName === after.originalName && before.type === after.type
  ) return op;
  const old = new Map((before ? searchKeys(before) : []).map((k) => [JSON.stringify(k), k]));
  for (const key of after ? searchKeys(after) : []) {
    if (!old.delete(JSON.stringify(key))) op.set(key, true);
  }
  for (const key of old.values()) op.delete(key);
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
 * (lower-cased); `null` past {@link MAX_CANDIDATES}.
 */
async function suffixCandidates(
  kv: Deno.Kv,
  owner: string,
  field: SuffixField,
  needle: string,
): Promise<Set<string> | null> {
  const ids = new Set<string>();
  const prefix = Array.from(needle).slice(0, KEY_CHARS).join("");
  const within = K.suffixes(owner, field);
  const range = { start: [...within, prefix], end: [...within, prefix + END] };
  for (const [selector, at] of [[range, 4], [{ prefix: K.longs(owner, field) }, 3]] as const) {
    for await (const { key } of kv.list(selector, { batchSize: 1000 })) {
      ids.add(key[at] as string);
      if (ids.size > MAX_CANDIDATES) return null;
    }
  }
  return ids;
}

/**
 * The page `q` asks for when it searches an indexed field (name, original
 * name, type) or names its files (`ids`, a tag search), read from those
 * candidates alone; `null` for any other query, and for one with more than
 * {@link MAX_CANDIDATES}. The candidates' records are checked against every
 * condition of `q` (`queryFiles`), so the answer is the one a read of every
 * file gives.
 */
export async function searchFiles(kv: Deno.Kv, q: FileQuery): Promise<FilePage | null> {
  if (!isIndexedSearch(q)) return null;
  let ids: Set<string> | null = null;
  if (q.search && q.search.field !== "id" && q.search.query !== "") {
    const needle = q.search.query.toLowerCase();
    ids = q.search.field === "type"
      ? await typeCandidates(kv, q.userId, needle)
      : await suffixCandidates(kv, q.userId, q.search.field, needle);
    if (ids === null) return null;
  }
  if (q.ids) {
    if (q.ids.length > MAX_CANDIDATES) return null;
    const named = new Set(q.ids);
    ids = ids ? new Set([...ids].filter((id) => named.has(id))) : named;
  }
  const records = await getAll<FileRecord>(kv, [...ids!].map(K.file));
  return queryFiles(records.flatMap((e) => e.value ?? []), q);
}

/** Where {@link backfillSearchIndex} keeps its progress: the last owner copy indexed. */
const BACKFILL_CURSOR: Deno.KvKey = ["meta", "search_backfill"];

/** Search keys one atomic operation of the backfill writes, about (a file's are never split). */
const BACKFILL_KEYS = 400;

/**
 * Writes the search keys of every owned file stored before the index (KV
 * schema 5), reading the owners' copies under `copies` in key order a page at
 * a time (never a whole list) and keeping the last one done under
 * {@link BACKFILL_CURSOR}, in the same atomic operation as the keys, so that
 * an upgrade that stopped resumes where it was. Setting a key twice is
 * harmless. Removes the cursor when done.
 */
export async function backfillSearchIndex(kv: Deno.Kv, copies: Deno.KvKey): Promise<void> {
  const cursor = (await kv.get<Deno.KvKey>(BACKFILL_CURSOR)).value;
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
    const written = searchKeys(entry.value);
    if (keys + written.length > BACKFILL_KEYS) await flush();
    for (const key of written) op.set(key, true);
    keys += written.length;
    last = entry.key;
  }
  await flush();
  await kv.delete(BACKFILL_CURSOR);
}
