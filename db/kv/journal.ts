/**
 * All-or-nothing changes too large for one KV atomic operation (imports):
 * every write made through a journaled view of the database also records,
 * in the same atomic operation, the value its key held before, under
 * `["journal", id, seq]` (the journal's state: `["journal_state", id]`);
 * keys that held nothing are listed together, many to an entry, so that a
 * bulk import adds few journal writes and a commit has few to remove.
 * Writes land in their real keys at once, so uniqueness is still checked by
 * the same index keys. Setting the journal's
 * state to `committed` makes them final; undoing the journal (on failure, or
 * for a journal whose process died: its heartbeat stops) restores every
 * earlier value, newest write first.
 *
 * What a concurrent reader sees on KV: each journaled write as soon as it is
 * made (an import's users, files and URLs appear one by one), and, if the
 * change fails, their disappearance during the undo.
 *
 * Heartbeats go by the real clock: they tell other processes, on their own
 * clocks, that this one is alive.
 */
import { systemClock } from "../../core/clock.ts";
import { getAll } from "./helpers.ts";

/** How often a running journal proves its process alive, and when it is deemed dead. */
const HEARTBEAT_MS = 5_000;
/** A running journal whose heartbeat is older than this is undone by {@link recoverJournals}. */
export const JOURNAL_STALE_MS = 30_000;

interface JournalState {
  state: "running" | "committed";
  heartbeat: number;
}

/** The value a key held before a journaled write; `u64` when it was a `Deno.KvU64`. */
interface PriorValue {
  key: Deno.KvKey;
  existed: boolean;
  value?: unknown;
  u64?: bigint;
}

const stateKey = (id: string) => ["journal_state", id];
const writesPrefix = (id: string) => ["journal", id];

type Mutation =
  | { type: "set"; key: Deno.KvKey; value: unknown; expireIn?: number }
  | { type: "delete"; key: Deno.KvKey }
  | { type: "sum"; key: Deno.KvKey; value: Deno.KvU64 };

/** An atomic operation that journals the prior value of every key it writes. */
class JournaledAtomic {
  private readonly checks: Deno.AtomicCheck[] = [];
  private readonly mutations: Mutation[] = [];
  /** Keys known to hold nothing before this operation (serialized): not read. */
  readonly absent = new Set<string>();

  constructor(private readonly kv: Deno.Kv, private readonly journal: Journal) {}

  check(...checks: Deno.AtomicCheck[]): this {
    this.checks.push(...checks);
    return this;
  }

  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }): this {
    this.mutations.push({ type: "set", key, value, expireIn: options?.expireIn });
    return this;
  }

  delete(key: Deno.KvKey): this {
    this.mutations.push({ type: "delete", key });
    return this;
  }

  sum(key: Deno.KvKey, n: bigint): this {
    this.mutations.push({ type: "sum", key, value: new Deno.KvU64(n) });
    return this;
  }

  async commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    const op = this.kv.atomic().check(...this.checks);
    const known = (m: Mutation) => this.absent.size > 0 && this.absent.has(JSON.stringify(m.key));
    const read = this.mutations.filter((m) => !known(m));
    const priors = (await getAll(this.kv, read.map((m) => m.key))).map(priorOf);
    for (const m of this.mutations) if (known(m)) priors.push({ key: m.key, existed: false });
    for (const entry of packed(priors)) op.set(this.journal.nextKey(), entry);
    for (const m of this.mutations) {
      if (m.type === "set") op.set(m.key, m.value, { expireIn: m.expireIn });
      else if (m.type === "delete") op.delete(m.key);
      else op.sum(m.key, m.value.value);
    }
    return await op.commit();
  }
}

/**
 * Tells `op`, when it is journaled, that `keys` hold nothing before it (keys
 * that name a record it creates, or that it checks are absent), so that it
 * records their absence without reading each (an import's index keys);
 * `keys` is only called for a journaled one.
 */
export function knownAbsent(op: Deno.AtomicOperation, keys: () => Iterable<Deno.KvKey>): void {
  if (!(op instanceof JournaledAtomic)) return;
  for (const key of keys()) op.absent.add(JSON.stringify(key));
}

function priorOf(entry: Deno.KvEntryMaybe<unknown>): PriorValue {
  if (entry.versionstamp === null) return { key: entry.key, existed: false };
  return entry.value instanceof Deno.KvU64
    ? { key: entry.key, existed: true, u64: entry.value.value }
    : { key: entry.key, existed: true, value: entry.value };
}

/** Bytes of absent keys one journal entry gathers (KV takes 64 KiB a value). */
const PACK_BYTES = 32 * 1024;

/** An upper bound of a key's size in bytes. */
function keySize(key: Deno.KvKey): number {
  return key.reduce<number>(
    (sum, part) =>
      sum + 9 +
      (typeof part === "string" ? part.length * 3 : part instanceof Uint8Array ? part.length : 16),
    0,
  );
}

/**
 * The journal entries for `priors`: a key that held a value gets an entry of
 * its own (the value may be up to 64 KiB); keys that held nothing are gathered
 * into lists of up to {@link PACK_BYTES}, so that a bulk write of new records
 * adds one or two entries, not one per key.
 */
function packed(priors: PriorValue[]): (PriorValue | PriorValue[])[] {
  const entries: (PriorValue | PriorValue[])[] = [];
  let pack: PriorValue[] = [];
  let size = 0;
  for (const prior of priors) {
    if (prior.existed) {
      entries.push(prior);
      continue;
    }
    const bytes = keySize(prior.key);
    if (pack.length > 0 && size + bytes > PACK_BYTES) {
      entries.push(pack);
      pack = [];
      size = 0;
    }
    pack.push(prior);
    size += bytes;
  }
  if (pack.length > 0) entries.push(pack);
  return entries;
}

/** One journal: its id and the number of its next write. */
class Journal {
  private seq = 0;
  constructor(readonly id: string) {}
  nextKey(): Deno.KvKey {
    return [...writesPrefix(this.id), this.seq++];
  }
}

/** A view of `kv` whose writes (`set`, `delete`, `atomic`) are journaled in `journal`. */
function journaledView(kv: Deno.Kv, journal: Journal): Deno.Kv {
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") return () => new JournaledAtomic(target, journal);
      if (prop === "set") {
        return (key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) =>
          new JournaledAtomic(target, journal).set(key, value, options).commit();
      }
      if (prop === "delete") {
        return async (key: Deno.KvKey) => {
          await new JournaledAtomic(target, journal).delete(key).commit();
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Runs `fn` with a journaled view of `kv`; commits when it resolves and
 * undoes every write it made when it throws (then rethrows).
 */
export async function journaled<T>(
  kv: Deno.Kv,
  fn: (view: Deno.Kv) => Promise<T>,
  now: () => number = systemClock.now,
): Promise<T> {
  const journal = new Journal(crypto.randomUUID());
  const beat = () => kv.set(stateKey(journal.id), { state: "running", heartbeat: now() });
  await beat();
  const timer = setInterval(() => beat().catch(() => {}), HEARTBEAT_MS);
  try {
    const result = await fn(journaledView(kv, journal));
    clearInterval(timer);
    await kv.set(stateKey(journal.id), { state: "committed", heartbeat: now() });
    await forget(kv, journal.id);
    return result;
  } catch (error) {
    clearInterval(timer);
    await undo(kv, journal.id);
    throw error;
  }
}

/** Restores every key the journal wrote, newest write first, then removes the journal. */
async function undo(kv: Deno.Kv, id: string): Promise<void> {
  let batch: PriorValue[] = [];
  const entries = kv.list<PriorValue | PriorValue[]>({ prefix: writesPrefix(id) }, {
    reverse: true,
  });
  for await (const entry of entries) {
    batch.push(...(Array.isArray(entry.value) ? entry.value.toReversed() : [entry.value]));
    if (batch.length >= 200) {
      await restore(kv, batch);
      batch = [];
    }
  }
  await restore(kv, batch);
  await forget(kv, id);
}

/**
 * Writes back prior values in order (so for a key stored twice the oldest
 * wins); one atomic operation, or one per value when together they pass
 * KV's size limit.
 */
async function restore(kv: Deno.Kv, priors: PriorValue[]): Promise<void> {
  const write = (op: Deno.AtomicOperation, prior: PriorValue) => {
    if (!prior.existed) op.delete(prior.key);
    else if (prior.u64 !== undefined) op.set(prior.key, new Deno.KvU64(prior.u64));
    else op.set(prior.key, prior.value);
    return op;
  };
  try {
    const op = kv.atomic();
    for (const prior of priors) write(op, prior);
    await op.commit();
  } catch {
    for (const prior of priors) await write(kv.atomic(), prior).commit();
  }
}

/** Removes a journal's records (the state last: until then, recovery can finish the job). */
async function forget(kv: Deno.Kv, id: string): Promise<void> {
  let op = kv.atomic();
  let size = 0;
  for await (const entry of kv.list({ prefix: writesPrefix(id) })) {
    op.delete(entry.key);
    if (++size === 900) {
      await op.commit();
      op = kv.atomic();
      size = 0;
    }
  }
  await op.commit();
  await kv.delete(stateKey(id));
}

/**
 * Finishes journals left behind by a process that stopped: a committed one is
 * removed, a running one whose heartbeat is older than {@link JOURNAL_STALE_MS}
 * at `now` is undone. Returns how many were undone.
 */
export async function recoverJournals(
  kv: Deno.Kv,
  now: number = systemClock.now(),
): Promise<number> {
  let undone = 0;
  const states: [string, JournalState][] = [];
  for await (const entry of kv.list<JournalState>({ prefix: ["journal_state"] })) {
    states.push([entry.key[1] as string, entry.value]);
  }
  for (const [id, state] of states) {
    if (state.state === "committed") await forget(kv, id);
    else if (now - state.heartbeat > JOURNAL_STALE_MS) {
      await undo(kv, id);
      undone++;
    }
  }
  return undone;
}
