/**
 * Each owner's URL records packed in chunks, in the owner's oldest-first
 * order, so that the URL list reads a thousand URLs in a few values instead
 * of an entry each. A chunk is one value under `["url_chunk", owner, ...start]`:
 * the JSON of its records as tuples (views left out: they are a hot
 * write and stay in their own counters), up to {@link CHUNK_URLS} records and
 * {@link CHUNK_BYTES} bytes (KV takes 64 KiB a value; a destination may be 10,000
 * characters and three device destinations as many each). A chunk holds the
 * owner's URLs from its start up to the next chunk's start (a position is
 * `[createdAt, id]`); the first chunk ever made starts at {@link FIRST}, before
 * any position, so two first writes of one owner race for one key. Every write
 * of a chunk checks the chunks it read: a write that lost a race reads again.
 */
import type { UrlRecord } from "../urls.ts";

/** Records one chunk holds at most. */
export const CHUNK_URLS = 100;
/** Bytes of one chunk's value at most (KV's limit is 65,536 with its encoding). */
export const CHUNK_BYTES = 60_000;
/** The start of the first chunk an owner ever gets: before every position. */
const FIRST: Deno.KvKeyPart[] = [0n];

const prefixOf = (owner: string): Deno.KvKey => ["url_chunk", owner];

/** One record as a chunk keeps it: a tuple of its fields but views and owner. */
type Packed = [
  string,
  string,
  string | null,
  string,
  number | null,
  string | null,
  boolean,
  number,
  number,
  number | null,
  UrlRecord["deviceDestinations"],
  boolean,
];

/** `url` as a chunk's element. */
function pack(url: UrlRecord): Packed {
  return [
    url.id,
    url.code,
    url.vanity,
    url.destination,
    url.maxViews,
    url.password,
    url.enabled,
    url.createdAt.getTime(),
    url.updatedAt.getTime(),
    url.expiresAt?.getTime() ?? null,
    url.deviceDestinations ?? null,
    url.forwardQuery ?? false,
  ];
}

/** The record of a chunk's element, owned by `owner`, its views 0. */
function unpack(p: Packed, owner: string): UrlRecord {
  return {
    id: p[0],
    code: p[1],
    vanity: p[2],
    destination: p[3],
    views: 0,
    maxViews: p[4],
    password: p[5],
    enabled: p[6],
    userId: owner,
    createdAt: new Date(p[7]),
    updatedAt: new Date(p[8]),
    expiresAt: p[9] === null ? null : new Date(p[9]),
    deviceDestinations: p[10],
    forwardQuery: p[11],
  };
}

/** The records of a chunk's value (views 0). */
function recordsOf(value: string, owner: string): UrlRecord[] {
  return (JSON.parse(value) as Packed[]).map((p) => unpack(p, owner));
}

/** Orders two chunk elements by position. */
function byPosition(a: Packed, b: Packed): number {
  const d = a[7] - b[7];
  return d !== 0 ? d : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/** The position of a chunk element. */
const placeOf = (p: Packed): Deno.KvKeyPart[] => [p[7], p[0]];

/**
 * The owner's URL records from its chunks, in order (views 0), up to the
 * chunk that brings them to `limit` (every chunk without it). The chunks are
 * read by one `list` call, a few values, not an entry per URL.
 */
export async function chunkedUrls(
  kv: Deno.Kv,
  owner: string,
  limit?: number,
): Promise<UrlRecord[]> {
  const urls: UrlRecord[] = [];
  const iter = kv.list<string>({ prefix: prefixOf(owner) }, {
    batchSize: limit === undefined ? 100 : Math.min(100, Math.ceil(limit / CHUNK_URLS) + 1),
  });
  for await (const entry of iter) {
    urls.push(...recordsOf(entry.value, owner));
    if (limit !== undefined && urls.length >= limit) break;
  }
  return urls;
}

/** What {@link placeUrls} changes of one owner's chunks. */
export interface ChunkChange {
  /** Records to add or to put in place of those with their id. */
  put?: UrlRecord[];
  /** Records to take out (those at their position with their id). */
  remove?: UrlRecord[];
}

/**
 * Adds to `op` the checks and writes that apply `change` to `owner`'s chunks:
 * the chunks holding the positions from the first to the last it names are
 * read, their records changed and packed again (a full chunk split: at the
 * end of the owner's order a new chunk begins; elsewhere in two halves); an
 * emptied chunk is removed.
 */
export async function placeUrls(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  owner: string,
  change: ChunkChange,
): Promise<void> {
  const puts = (change.put ?? []).map(pack);
  const named = [...puts, ...(change.remove ?? []).map(pack)].sort(byPosition);
  if (named.length === 0) return;
  const prefix = prefixOf(owner);
  const lo = placeOf(named[0]);
  const hi = placeOf(named.at(-1)!);
  // The chunk holding the first position (the greatest start at or before it)…
  const before = await Array.fromAsync(
    kv.list<string>({ prefix, end: [...prefix, ...lo, ""] }, { reverse: true, limit: 1 }),
  );
  // …and those after it up to the last (none past one position that has its chunk);
  // with none before, the first chunk starts later.
  const one = before.length > 0 && named.length === 1;
  const after = one ? [] : await Array.fromAsync(kv.list<string>({
    start: before.length ? [...before[0].key, ""] : prefix,
    end: [...prefix, ...hi, ""],
  }));
  let read = [...before, ...after];
  if (read.length === 0) {
    read = await Array.fromAsync(kv.list<string>({ prefix }, { limit: 1 }));
  }
  op.check(...read);
  // By position: a copy at another place (a drift) is another record. Elements as
  // they are stored: a write parses its chunks, but makes no record of them.
  const records = new Map<string, Packed>();
  const at = (p: Packed) => `${p[7]} ${p[0]}`;
  for (const entry of read) {
    for (const p of JSON.parse(entry.value) as Packed[]) records.set(at(p), p);
  }
  for (const url of change.remove ?? []) records.delete(at(pack(url)));
  for (const p of puts) records.set(at(p), p);
  const sorted = [...records.values()].sort(byPosition);
  const appended = puts.length === 1 && sorted.at(-1)?.[0] === puts[0][0];
  const packs = split(sorted.map((p) => JSON.stringify(p)), appended);
  // The first keeps its start when it held the first position; a first chunk ever, FIRST;
  // else (the owner's first chunk, moved down) and every other, its first record's.
  let first = 0;
  const keys = packs.map((p, i) => {
    const key = i === 0 && before.length > 0
      ? before[0].key
      : i === 0 && read.length === 0
      ? [...prefix, ...FIRST]
      : [...prefix, ...placeOf(sorted[first])];
    first += p.length;
    return key;
  });
  const readKeys = new Set(read.map((e) => keyText(e.key)));
  const kept = new Set(keys.map(keyText));
  for (const entry of read) if (!kept.has(keyText(entry.key))) op.delete(entry.key);
  packs.forEach((p, i) => {
    // A new start: no chunk may have taken it meanwhile (two first chunks ever race here).
    if (!readKeys.has(keyText(keys[i]))) op.check({ key: keys[i], versionstamp: null });
    op.set(keys[i], `[${p.join(",")}]`);
  });
}

/** A chunk's key as text, to compare (the first chunk's start is a bigint). */
const keyText = (key: Deno.KvKey) =>
  JSON.stringify(key, (_, v) => typeof v === "bigint" ? `${v}n` : v);

/** What a string costs in a KV value: a byte a character, two once one is past Latin-1. */
const costOf = (s: string) => /[\u0100-\uffff]/.test(s) ? 2 * s.length : s.length;

/**
 * Packed records cut into chunks within {@link CHUNK_URLS} and
 * {@link CHUNK_BYTES} (a chunk's string costs two bytes a character once one
 * record in it is past Latin-1): filled in turn when `appended` (one record
 * added at the end: the next ones come after it), else cut evenly.
 */
function split(packed: string[], appended: boolean): string[][] {
  const sizes = packed.map((p) => p.length + 1);
  const wide = packed.map((p) => costOf(p) > p.length);
  const total = packed.reduce((n, p) => n + costOf(p) + 1, 2);
  const parts = appended
    ? 1
    : Math.max(Math.ceil(packed.length / CHUNK_URLS), Math.ceil(total / CHUNK_BYTES));
  const aimUrls = Math.ceil(packed.length / parts);
  const aimBytes = Math.ceil(total / parts);
  const chunks: string[][] = [];
  let chunk: string[] = [];
  let length = 2;
  let twoByte = false;
  packed.forEach((p, i) => {
    const cost = (length + sizes[i]) * (twoByte || wide[i] ? 2 : 1);
    const full = chunk.length >= CHUNK_URLS || cost > CHUNK_BYTES ||
      (!appended && (chunk.length >= aimUrls || cost > aimBytes + sizes[i]));
    if (chunk.length > 0 && full) {
      chunks.push(chunk);
      chunk = [];
      length = 2;
      twoByte = false;
    }
    chunk.push(p);
    length += sizes[i];
    twoByte ||= wide[i];
  });
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
