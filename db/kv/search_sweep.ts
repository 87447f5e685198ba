/**
 * The search keys of removed files, removed after them (issue #32). A
 * file's name and original-name keys (`./file_search.ts`: a score of them,
 * at random places in the tree) were 40 % of a bulk delete's mutations on
 * KV and half of its commits' time (bench/results/scale.md). A removal
 * (`KvFiles.deleteMany`, of a store with a build: not a transaction's
 * view, whose undo would restore the record but not keys swept meanwhile)
 * removes its file's type key at once (the type counters and the broad
 * type page read them) and leaves the others, noting the file instead, in
 * the same atomic operation:
 *
 *     ["file_sfx_gone", owner, id] → the file's searched fields
 *
 * A search meanwhile may take the file as a candidate: its record is gone,
 * so it matches nothing (every candidate is read). {@link sweepGone}, run by
 * the search keys' background build (`./search_backlog.ts`), removes the
 * noted files' keys and their notes; ids are never used again, so no key it
 * removes belongs to a file stored since.
 */
import { type Searched, searchKeys } from "./file_search.ts";
import { compareKeys } from "./helpers.ts";

/** The prefix of every note. */
export const GONE: Deno.KvKey = ["file_sfx_gone"];

/** The key of the note of `owner`'s removed file `id`. */
const goneKey = (owner: string, id: string): Deno.KvKey => [...GONE, owner, id];

/** Mutations one atomic operation of the sweep holds at most (short commits: other requests wait for them). */
const SWEEP_MUTATIONS = 300;
/** Notes one step of the sweep reads. */
export const SWEEP_FILES = 500;

/**
 * Adds the search keys' changes of the removal of `before` to `op`, as
 * `indexFile(op, before, null)` would, but its suffix keys left to
 * {@link sweepGone}: the type key removed, the file noted.
 */
export function leaveSearchKeys<Op extends Deno.AtomicOperation>(
  op: Op,
  before: Searched | null,
): Op {
  if (before === null || before.userId === null) return op;
  for (const { key } of searchKeys(before)) if (key[0] === "file_by_type") op.delete(key);
  const { id, userId, name, originalName, type } = before;
  op.set(goneKey(userId, id), { id, userId, name, originalName, type });
  return op;
}

/**
 * Removes the search keys of up to {@link SWEEP_FILES} noted files, in key
 * order (keys in order share the pages of KV's tree a commit rewrites:
 * `bench/results/kv_import.md`), {@link SWEEP_MUTATIONS} an atomic operation,
 * then their notes: a sweep stopped between two operations leaves the notes,
 * and the next removes the keys left (a key removed twice is no harm).
 * Returns how many files it swept; stops between two operations once
 * `stop()` says so.
 */
export async function sweepGone(
  kv: Deno.Kv,
  { limit = SWEEP_FILES, stop = () => false }: { limit?: number; stop?: () => boolean } = {},
): Promise<number> {
  const notes = await Array.fromAsync(
    kv.list<Searched>({ prefix: GONE }, { limit, batchSize: Math.min(limit, 500) }),
  );
  const keys = notes.flatMap((note) =>
    searchKeys(note.value).flatMap((k) => k.key[0] === "file_by_type" ? [] : [k.key])
  ).sort(compareKeys);
  keys.push(...notes.map((note) => note.key));
  for (let i = 0; i < keys.length; i += SWEEP_MUTATIONS) {
    if (i > 0 && stop()) return 0;
    const op = kv.atomic();
    for (const key of keys.slice(i, i + SWEEP_MUTATIONS)) op.delete(key);
    await op.commit();
  }
  return notes.length;
}
