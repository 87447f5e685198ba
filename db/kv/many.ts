/**
 * Many records at once within Deno KV's limits: 100 checks and 1000
 * mutations an atomic operation (KV refuses more: "Too many checks (max
 * 100)"). Used by the bulk writes of imports.
 */
import { commitChecked, compareKeys, getAll } from "./helpers.ts";
import { knownAbsent } from "./journal.ts";

/** Checks one atomic operation may hold. */
const MAX_CHECKS = 100;
/**
 * Mutations one bulk atomic operation is given: nearly KV's 1000; half of
 * them when it is journaled (`journal.ts`), which may add one write per
 * mutation. A commit costs far more than a key on a busy disk, so an import
 * writes as few as it can.
 */
const MAX_MUTATIONS = { plain: 900, journaled: 450 };
/** Bytes of keys one bulk atomic operation is given, of KV's 80 KiB (checks' included). */
const MAX_KEY_BYTES = 64 * 1024;

/** What one item of a bulk write adds to an atomic operation, its owner's counter aside. */
interface AtomicCost {
  checks: number;
  mutations: number;
  /** The bytes of the keys it checks and writes (see {@link keyBytes}); 0 when small. */
  keyBytes?: number;
}

/** At least the bytes of `s` in UTF-8 (each half of a surrogate pair counted 3). */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
  }
  return n;
}

/**
 * At least the size of `key` as KV encodes it: a type byte, the part (a
 * string in UTF-8, bytes doubled for their escapes), a terminator.
 */
export function keyBytes(key: Deno.KvKey): number {
  let n = 0;
  for (const part of key) {
    n += typeof part === "string"
      ? 2 + utf8Length(part)
      : part instanceof Uint8Array
      ? 2 + part.length * 2
      : 10;
  }
  return n;
}

/**
 * Splits `items` into runs that each fit one atomic operation; the first item
 * of a run with a given owner adds one check and one mutation for the owner's
 * counter. Items are sorted by owner first so that runs share owners.
 */
function atomicRuns<T>(
  items: T[],
  owner: (item: T) => string | null,
  cost: (item: T) => AtomicCost,
  maxMutations: number,
): T[][] {
  const sorted = [...items].sort((a, b) => {
    const x = owner(a) ?? "";
    const y = owner(b) ?? "";
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const runs: T[][] = [];
  let run: T[] = [];
  let owners = new Set<string>();
  let checks = 0;
  let mutations = 0;
  let bytes = 0;
  for (const item of sorted) {
    const c = cost(item);
    const who = owner(item);
    const extra = who !== null && !owners.has(who) ? 1 : 0;
    const size = c.keyBytes ?? 0;
    if (
      run.length > 0 &&
      (checks + c.checks + extra > MAX_CHECKS || mutations + c.mutations + extra > maxMutations ||
        bytes + size > MAX_KEY_BYTES)
    ) {
      runs.push(run);
      run = [];
      owners = new Set();
      checks = mutations = bytes = 0;
    }
    if (who !== null && !owners.has(who)) {
      owners.add(who);
      checks++;
      mutations++;
    }
    checks += c.checks;
    mutations += c.mutations;
    bytes += size;
    run.push(item);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** How a bulk write lays out its items; see {@link writeInRuns}. */
export interface BulkWrite<T, C> {
  /** The item's owner, whose counter it moves, or `null`. */
  owner(item: T): string | null;
  cost(item: T): AtomicCost;
  /** The key of an owner's counter. */
  counter(owner: string): Deno.KvKey;
  /** The counter's next value once `owned` are added. */
  count(current: C | null, owned: T[]): C;
  /** Adds one item's checks and writes. */
  write(op: Deno.AtomicOperation, item: T): void;
  /** Adds what a whole run writes besides its items (sums over them), within their cost. */
  after?(op: Deno.AtomicOperation, run: T[]): void;
  /** The error to throw when a run's commit failed on a clash; `null` (a counter moved) retries it. */
  clash(run: T[]): Promise<Error | null>;
}

/**
 * Writes `items` in as few atomic operations as KV's limits allow, each with
 * its owners' counters checked and moved; on KV alone a failure leaves the
 * earlier runs stored, so callers run inside `Store.transaction`.
 */
export async function writeInRuns<T, C>(
  kv: Deno.Kv,
  items: T[],
  w: BulkWrite<T, C>,
): Promise<void> {
  // A journaled view's operations are its own class, not KV's.
  const journaled = !(kv.atomic() instanceof Deno.AtomicOperation);
  const most = journaled ? MAX_MUTATIONS.journaled : MAX_MUTATIONS.plain;
  for (const run of atomicRuns(items, w.owner, w.cost, most)) {
    const owners = [...new Set(run.flatMap((item) => w.owner(item) ?? []))];
    await commitChecked(async () => {
      const counters = await getAll<C>(kv, owners.map(w.counter));
      const op = kv.atomic();
      counters.forEach((entry, i) => {
        const owned = run.filter((item) => w.owner(item) === owners[i]);
        op.check(entry).set(entry.key, w.count(entry.value, owned));
      });
      for (const item of run) w.write(op, item);
      w.after?.(op, run);
      return { op, result: undefined, lost: () => w.clash(run) };
    });
  }
}

/** Keys one atomic operation of {@link setInOrder} sets at most (a journal's few entries aside). */
const IN_ORDER_KEYS = 800;
/** Mutations one atomic operation of {@link setInOrder} holds at most with what `also` adds. */
const IN_ORDER_MUTATIONS = 900;
/** Mutations `also` may add to one operation (their keys within the bytes left: 8 KiB). */
const ALSO_MUTATIONS = 100;

/**
 * Sets `writes` in key order (`compareKeys`), {@link IN_ORDER_KEYS} and
 * {@link MAX_KEY_BYTES} of keys an atomic operation: keys stored in order
 * rewrite far fewer pages of KV's tree than the same keys at random
 * (measured on 10,000 files' index and search keys: a fifth of the time).
 * `absent`: the keys hold nothing before (new records' index entries), so a
 * journaled view need not read them. `also` adds what each operation
 * writes besides its keys (with checks of its own: the operation is then
 * read and tried again until it lands) and returns how many mutations it
 * added: past {@link IN_ORDER_MUTATIONS} with the keys, or past
 * {@link ALSO_MUTATIONS}, the operation is made again with half of them. Stops between two operations once `stop()`
 * says so; `true` then.
 */
export async function setInOrder(
  kv: Deno.Kv,
  writes: { key: Deno.KvKey; value: unknown }[],
  { absent = false, stop = () => false, also }: {
    absent?: boolean;
    stop?: () => boolean;
    also?: (op: Deno.AtomicOperation, keys: Deno.KvKey[]) => Promise<number>;
  } = {},
): Promise<boolean> {
  writes.sort((a, b) => compareKeys(a.key, b.key));
  let at = 0;
  while (at < writes.length) {
    let keys: Deno.KvKey[] = [];
    let bytes = 0;
    while (at + keys.length < writes.length && keys.length < IN_ORDER_KEYS) {
      const size = keyBytes(writes[at + keys.length].key);
      if (keys.length > 0 && bytes + size > MAX_KEY_BYTES - (also ? 8 * 1024 : 0)) break;
      keys.push(writes[at + keys.length].key);
      bytes += size;
    }
    await commitChecked(async () => {
      while (true) {
        const op = kv.atomic();
        for (const { key, value } of writes.slice(at, at + keys.length)) op.set(key, value);
        if (absent) knownAbsent(op, () => keys);
        const more = await also?.(op, keys) ?? 0;
        if (
          keys.length > 1 && (keys.length + more > IN_ORDER_MUTATIONS || more > ALSO_MUTATIONS)
        ) {
          keys = keys.slice(0, Math.ceil(keys.length / 2));
          continue;
        }
        return {
          op,
          result: undefined,
          lost: () =>
            Promise.resolve(also ? null : new Error("a write of keys in order was refused")),
        };
      }
    });
    at += keys.length;
    if (at < writes.length && stop()) return true;
  }
  return false;
}
