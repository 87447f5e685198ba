/**
 * Many keys at once within Deno KV's limits: 10 keys a `getMany`, 100 checks
 * and 1000 mutations an atomic operation (KV refuses more: "Too many checks
 * (max 100)"). Used by the bulk writes of imports.
 */

/** Keys one `getMany` may read. */
const GET_MANY_KEYS = 10;
/** Checks one atomic operation may hold. */
const MAX_CHECKS = 100;
/**
 * Mutations one bulk atomic operation is given: half of KV's 1000, so that a
 * journaled view (`journal.ts`), which adds one write per mutation, still fits.
 */
const MAX_MUTATIONS = 450;

/** `kv.getMany` over any number of keys, 10 a call, the calls run together; in key order. */
export async function getAll<T>(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<Deno.KvEntryMaybe<T>[]> {
  const calls: Promise<Deno.KvEntryMaybe<T>[]>[] = [];
  for (let i = 0; i < keys.length; i += GET_MANY_KEYS) {
    calls.push(kv.getMany<T[]>(keys.slice(i, i + GET_MANY_KEYS)));
  }
  return (await Promise.all(calls)).flat();
}

/** What one item of a bulk write adds to an atomic operation. */
export interface AtomicCost {
  checks: number;
  mutations: number;
  /**
   * A key shared by items (an owner's counter): the first item of a run that
   * names it adds one check and one mutation for it.
   */
  shared: string | null;
}

/**
 * Splits `items` into runs that each fit one atomic operation. Items sharing
 * a key should be next to each other (sorted by owner) so that runs share it.
 */
export function atomicRuns<T>(items: T[], cost: (item: T) => AtomicCost): T[][] {
  const runs: T[][] = [];
  let run: T[] = [];
  let shared = new Set<string>();
  let checks = 0;
  let mutations = 0;
  for (const item of items) {
    const c = cost(item);
    const extra = c.shared !== null && !shared.has(c.shared) ? 1 : 0;
    if (
      run.length > 0 &&
      (checks + c.checks + extra > MAX_CHECKS || mutations + c.mutations + extra > MAX_MUTATIONS)
    ) {
      runs.push(run);
      run = [];
      shared = new Set();
      checks = mutations = 0;
    }
    if (c.shared !== null && !shared.has(c.shared)) {
      shared.add(c.shared);
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

/** `items` sorted by `owner` (stable), so that {@link atomicRuns} shares owners' keys. */
export function byOwner<T>(items: T[], owner: (item: T) => string | null): T[] {
  return [...items].sort((a, b) => {
    const x = owner(a) ?? "";
    const y = owner(b) ?? "";
    return x < y ? -1 : x > y ? 1 : 0;
  });
}
