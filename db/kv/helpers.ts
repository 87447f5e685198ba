/**
 * The small helpers every Deno KV sub-store uses: a patch without its unset
 * fields, `getMany` over any number of keys, the check-and-retry loop of
 * a read-then-write atomic operation, a schema upgrade's resumable walk
 * over any record prefix, and the removal of every key under a prefix.
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
 * Commits `op`: its versionstamp, or `null` when a check failed. (A write
 * another handle's lock refused waits for it: the store's handle is
 * `patient`, `./patient.ts`.)
 */
export async function tryCommit(op: Deno.AtomicOperation): Promise<string | null> {
  const result = await op.commit();
  return result.ok ? result.versionstamp : null;
}

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
    if (!tried.op) return tried.result;
    if ((await tried.op.commit()).ok) return tried.result;
    const lost = await tried.lost?.();
    if (lost) throw lost;
  }
}

/**
 * A schema upgrade over every stored record under `prefix` (`["file"]`,
 * `["url"]`), in key order, `pageSize` at a time: `write` adds a page's
 * writes (and any checks of its own) to an operation already checked on the
 * position reached and on the page's records, which commits with the new
 * position under `cursor`. So a stopped upgrade resumes where it stopped, two
 * processes upgrading at once never write a page twice, and a page whose
 * records changed meanwhile is read again (its writer, already at the new
 * schema, wrote its keys). Only one page is in memory.
 */
export async function upgradePages<T>(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  cursor: Deno.KvKey,
  pageSize: number,
  write: (op: Deno.AtomicOperation, page: Deno.KvEntry<T>[]) => Promise<void> | void,
): Promise<void> {
  while (true) {
    const at = await kv.get<Deno.KvKey>(cursor);
    if (at.value?.length === 0) return; // done
    const selector = at.value ? { prefix, start: [...at.value, ""] } : { prefix };
    const page = await Array.fromAsync(kv.list<T>(selector, { limit: pageSize }));
    const op = kv.atomic().check(at, ...page);
    await write(op, page);
    // A failed check: another process did this page, or a record of it changed; read again.
    await op.set(cursor, page.at(-1)?.key ?? []).commit();
  }
}

/** A key part's rank in KV's order: bytes, strings, bigints, numbers, booleans. */
function partRank(part: Deno.KvKeyPart): number {
  if (part instanceof Uint8Array) return 0;
  switch (typeof part) {
    case "string":
      return 1;
    case "bigint":
      return 2;
    case "number":
      return 3;
    default:
      return 4;
  }
}

/**
 * About KV's order of keys, for writing many keys in order (a run of keys
 * in order rewrites far fewer of KV's B-tree pages than the same keys at
 * random): part by part, by type, then by value (strings by UTF-16 code
 * unit, where KV compares UTF-8 bytes: only characters past U+FFFF sort
 * apart; bytes by length and content, not as KV does).
 */
export function compareKeys(a: Deno.KvKey, b: Deno.KvKey): number {
  const parts = Math.min(a.length, b.length);
  for (let i = 0; i < parts; i++) {
    const x = a[i] as string | number | bigint | boolean;
    const y = b[i] as string | number | bigint | boolean;
    if (x === y) continue;
    // Two strings (most parts) need no rank.
    if (typeof x !== "string" || typeof y !== "string") {
      const rank = partRank(x) - partRank(y);
      if (rank !== 0) return rank;
    }
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return a.length - b.length;
}

/** Keys one atomic operation of {@link removeAll} deletes (within KV's 80 KiB of keys). */
const REMOVE_KEYS = 400;

/** Deletes every key under `prefix`, {@link REMOVE_KEYS} an atomic operation. */
export async function removeAll(kv: Deno.Kv, prefix: Deno.KvKey): Promise<void> {
  while (true) {
    const batch = await Array.fromAsync(kv.list({ prefix }, { limit: REMOVE_KEYS }));
    if (batch.length === 0) return;
    const op = kv.atomic();
    for (const { key } of batch) op.delete(key);
    await op.commit();
  }
}
