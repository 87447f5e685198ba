/**
 * The files list's tag filter combined with another filter (favourites or
 * not, a folder, types) or with more tags, on Deno KV (issue #32), read from
 * the list index (`./file_index.ts`) without any record but the page's:
 * the scope of the query's tag with the fewest files (`tag:<id>`) is walked
 * in the asked order, each entry kept when its type is one asked (its value
 * carries it) and when it is (or, not a favourite, is not) in each other
 * scope the query names: the other tags', the favourites' (`fav`), the
 * folder's. Every scope lists its entries in the same order (value, then
 * id), so a scope of a size near the walked one's is read alongside it, a
 * merge (one range read a thousand entries); the entries of a much larger
 * one are looked up by key instead (its key is the walked entry's with the
 * scope changed), a batch at a time. The walk goes to the scope's end for
 * the total (exact, as every filter's), unless the query gives it.
 */
import type { FileQuery } from "../files.ts";
import { compareTails } from "./file_fence_keys.ts";
import { EAGER_KEY, type IndexValue, scopeCount, tagScope, walkIndex } from "./file_index.ts";
import { getAll } from "./helpers.ts";
import { catchUpOrders } from "./order_backlog.ts";

/**
 * A scope is read alongside the walked one when it holds at most this many
 * times its files; a larger one's entries are looked up by key (a key looked
 * up cost about as much as two entries of a range read, measured at 1M:
 * `bench/kv_tag_filter.ts`).
 */
const MERGE_RATIO = 2;
/** Walked entries whose lookups go in one batch. */
const LOOKUP_BATCH = 400;

/** Whether {@link tagFilterPage} answers `q`: tags with favourites, a folder or more tags. */
export function isTagFilter(q: FileQuery): boolean {
  return q.tagIds !== undefined && q.ids === undefined && q.search === undefined &&
    q.private === undefined &&
    (new Set(q.tagIds).size > 1 || q.favorite !== undefined || q.folderId !== undefined);
}

/** A scope the walked entries are checked against: in it (`member`), or not. */
interface Check {
  scope: string;
  member: boolean;
}

/** An entry's tail in the index (`[nulls, value, id]`). */
type Tail = readonly Deno.KvKeyPart[];

/** The walk's order of two tails: `nulls` first, the value in `order`, then the id ascending. */
function walkOrder(order: "asc" | "desc") {
  return (a: Tail, b: Tail): number => {
    if (a[0] !== b[0]) return (a[0] as number) - (b[0] as number);
    if (order === "desc") {
      const v = compareTails([a[1]], [b[1]]);
      if (v !== 0) return -v;
    }
    return compareTails(a.slice(order === "desc" ? 2 : 1), b.slice(order === "desc" ? 2 : 1));
  };
}

/** A scope read alongside the walk: its entries in the walk's order, one ahead. */
class Alongside {
  #head: Tail | undefined;
  #done = false;
  constructor(
    private readonly entries: AsyncIterator<Deno.KvEntry<IndexValue>>,
    private readonly at: number,
    private readonly compare: (a: Tail, b: Tail) => number,
  ) {}

  /** Whether the scope holds the entry of `tail` (later tails only, call after call). */
  async has(tail: Tail): Promise<boolean> {
    while (!this.#done && (this.#head === undefined || this.compare(this.#head, tail) < 0)) {
      const next = await this.entries.next();
      if (next.done) this.#done = true;
      else this.#head = next.value.key.slice(this.at);
    }
    return this.#head !== undefined && this.compare(this.#head, tail) === 0;
  }
}

/**
 * The ids of one page of `q` ({@link isTagFilter}) and how many files match,
 * from the list index alone (see the module's doc).
 */
export async function tagFilterPage(
  kv: Deno.Kv,
  q: FileQuery,
): Promise<{ ids: string[]; total: number }> {
  const owner = q.userId;
  const tags = [...new Set(q.tagIds)].map(tagScope);
  const checks: Check[] = tags.map((scope) => ({ scope, member: true }));
  if (q.favorite !== undefined) checks.push({ scope: "fav", member: q.favorite });
  if (q.folderId !== undefined) checks.push({ scope: `folder:${q.folderId}`, member: true });
  const sized = await Promise.all(
    checks.map(async (c) => ({ ...c, n: await scopeCount(kv, owner, c.scope) })),
  );
  if (sized.some((c) => c.member && c.n === 0)) return { ids: [], total: q.total ?? 0 };
  // The walked scope: the tag of the fewest files.
  const walked = sized.filter((c) => tags.includes(c.scope)).sort((a, b) => a.n - b.n)[0];
  const others = sized.filter((c) => c !== walked);
  // The favourites' and a folder's entries of an order but the default's may wait for the
  // build (`./order_backlog.ts`); a tag's never do.
  if (q.sortBy !== EAGER_KEY && others.some((c) => !tags.includes(c.scope))) {
    await catchUpOrders(kv, owner);
  }
  const base = (scope: string): Deno.KvKey => ["file_index", owner, scope, q.sortBy];
  const at = base("").length;
  const compare = walkOrder(q.order);
  const merged = others.filter((c) => c.n <= MERGE_RATIO * walked.n).map((c) => ({
    ...c,
    along: new Alongside(walkIndex(kv, base(c.scope), q.order, () => Infinity), at, compare),
  }));
  const looked = others.filter((c) => c.n > MERGE_RATIO * walked.n);
  const ids: string[] = [];
  let seen = 0;
  const enough = () => q.total !== undefined && ids.length >= q.limit;
  const take = (tail: Tail) => {
    if (seen >= q.offset && ids.length < q.limit) ids.push(tail.at(-1) as string);
    seen++;
  };
  let batch: Tail[] = [];
  const lookUp = async () => {
    const keys = batch.flatMap((tail) => looked.map((c) => [...base(c.scope), ...tail]));
    const found = await getAll(kv, keys);
    for (const [i, tail] of batch.entries()) {
      const row = found.slice(i * looked.length, (i + 1) * looked.length);
      if (row.every((e, j) => (e.value !== null) === looked[j].member)) take(tail);
    }
    batch = [];
  };
  const types = q.typePrefixes;
  for await (const entry of walkIndex(kv, base(walked.scope), q.order, () => Infinity)) {
    if (types && !types.some((p) => entry.value[1].startsWith(p))) continue;
    const tail = entry.key.slice(at);
    let kept = true;
    for (const c of merged) {
      if (await c.along.has(tail) !== c.member) {
        kept = false;
        break;
      }
    }
    if (!kept) continue;
    if (looked.length === 0) take(tail);
    else if (batch.push(tail) >= LOOKUP_BATCH) await lookUp();
    if (enough()) break;
  }
  if (batch.length > 0) await lookUp();
  return { ids, total: q.total ?? seen };
}
