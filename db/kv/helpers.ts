/**
 * The small helpers every Deno KV sub-store uses: a patch without its unset
 * fields, `getMany` over any number of keys, and the check-and-retry loop of
 * a read-then-write atomic operation.
 */

/** Keys one `kv.getMany` may read. */
const GET_MANY_KEYS = 10;

/** `patch` without its `undefined` fields, so that spreading it changes only what it sets. */
export function defined<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** `kv.getMany` over any number of keys, 10 a call, the calls run together; in key order. */
export async function getAll<T>(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<Deno.KvEntryMaybe<T>[]> {
  const calls: Promise<Deno.KvEntryMaybe<T>[]>[] = [];
  for (let i = 0; i < keys.length; i += GET_MANY_KEYS) {
    calls.push(kv.getMany<T[]>(keys.slice(i, i + GET_MANY_KEYS)));
  }
  return (await Promise.all(calls)).flat();
}

/**
 * What one try of {@link commitChecked} decided: `{ result }` alone when
 * there is nothing to write (the loop ends with `result`), or an operation
 * to commit and the `result` it gives once committed. `lost` is asked when
 * the commit failed one of its checks: it returns the error to throw when a
 * retry would meet the same clash (a taken name), or `null` to retry.
 */
export type Attempt<T> =
  | { op?: undefined; result: T }
  | { op: Deno.AtomicOperation; result: T; lost?: () => Promise<Error | null> };

/**
 * Reads, decides and commits until the commit lands: `attempt` reads what it
 * needs, checks the versionstamps it read in the operation it returns, and is
 * run again from a fresh read each time a check fails (a concurrent change).
 * A commit that throws (a value or an operation over KV's limits), or an
 * error thrown by `attempt` or `lost`, ends the loop with that error.
 */
export async function commitChecked<T>(attempt: () => Promise<Attempt<T>>): Promise<T> {
  while (true) {
    const tried = await attempt();
    if (!tried.op || (await tried.op.commit()).ok) return tried.result;
    const lost = await tried.lost?.();
    if (lost) throw lost;
  }
}
