/**
 * Many records at once within Deno KV's limits: 100 checks and 1000
 * mutations an atomic operation (KV refuses more: "Too many checks (max
 * 100)"). Used by the bulk writes of imports.
 */
import { commitChecked, getAll } from "./helpers.ts";

/** Checks one atomic operation may hold. */
const MAX_CHECKS = 100;
/**
 * Mutations one bulk atomic operation is given: half of KV's 1000, so that a
 * journaled view (`journal.ts`), which adds one write per mutation, still fits.
 */
const MAX_MUTATIONS = 450;

/** What one item of a bulk write adds to an atomic operation, its owner's counter aside. */
interface AtomicCost {
  checks: number;
  mutations: number;
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
  for (const item of sorted) {
    const c = cost(item);
    const who = owner(item);
    const extra = who !== null && !owners.has(who) ? 1 : 0;
    if (
      run.length > 0 &&
      (checks + c.checks + extra > MAX_CHECKS || mutations + c.mutations + extra > MAX_MUTATIONS)
    ) {
      runs.push(run);
      run = [];
      owners = new Set();
      checks = mutations = 0;
    }
    if (who !== null && !owners.has(who)) {
      owners.add(who);
      checks++;
      mutations++;
    }
    checks += c.checks;
    mutations += c.mutations;
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
 * earlier runs written, so callers run inside `Store.transaction`.
 */
export async function writeInRuns<T, C>(
  kv: Deno.Kv,
  items: T[],
  w: BulkWrite<T, C>,
): Promise<void> {
  for (const run of atomicRuns(items, w.owner, w.cost)) {
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
