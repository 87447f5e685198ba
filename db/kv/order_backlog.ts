/**
 * The files list's entries of an upload in its other orders, stored after
 * its write (issue #31). An upload's atomic operation writes the file's
 * index entries of the default order only (`EAGER_KEY`, newest first, with
 * their counts: `./file_index.ts`, `./file_blocks.ts`): its nine others were
 * most of what an upload wrote beyond the record, on the request's path.
 * It marks the file instead:
 *
 *     ["file_order_todo", owner, id] → true
 *
 * and {@link buildOrders} writes the marked files' other entries (as the
 * record is when it reads it, checked against the record, in the commit
 * that drops the marks): in the background, with the
 * search keys' build (`./search_backlog.ts`: within a second of an upload,
 * and when the store opens with files marked), and first thing in any list
 * of its owner's files in another order ({@link catchUpOrders}), so that a
 * list sorted by size right after an upload already has it.
 *
 * A write of a marked file before the build keeps the index right without
 * knowing of the mark: it changes the entries its change moves (removing
 * one not written yet is no change), counts only the default order's,
 * which the upload wrote; the build then writes every entry of the record
 * as it finds it (none for a deleted file), and a write between its read
 * and its commit fails its check, so that it reads again.
 */
import type { FileRecord } from "../files.ts";
import { deferredEntries, fenceEntries, isListed, orderMarkKey } from "./file_index.ts";
import { applyFences, splitFences } from "./file_fences.ts";
import { commitChecked, compareKeys, getAll } from "./helpers.ts";
import { keyBytes } from "./many.ts";

/** The prefix of every mark. */
export const ORDER_TODO: Deno.KvKey = ["file_order_todo"];

/** The mark of `owner`'s file `id`. */
const markKey = orderMarkKey;

/** Marks one step of the build takes at most. */
export const ORDER_FILES = 1000;
/** Files one try of a commit reads (their records and marks; two checks each, of KV's 100). */
const READ = 48;
/**
 * A commit's mutations and bytes of keys at most (of KV's 1000 and 80 KiB),
 * an entry's fence's and group's sums (`./file_fences.ts`) counted with it.
 */
const MUTATIONS = 800;
const KEY_BYTES = 56 * 1024;

/** Adds to `op` the marks of the uploaded `files` the index lists; returns their keys. */
export function markForOrders(op: Deno.AtomicOperation, files: FileRecord[]): Deno.KvKey[] {
  const keys = files.filter(isListed).map((f) => markKey(f.userId!, f.id));
  for (const key of keys) op.set(key, true);
  return keys;
}

/**
 * One step of the build (of `owner`'s marks only, when given): takes up to
 * `files` marks in key order and writes their files' other entries, as
 * many files a commit as fit; then, in the background (no `owner`; unless
 * not to `split`), splits the blocks of the index grown too long (`splitFences`). Returns how many
 * marks and blocks it took (0: none is left); stops between commits, the
 * marks not reached kept, once `stop()` says so.
 */
export async function buildOrders(
  kv: Deno.Kv,
  { owner, files = ORDER_FILES, stop = () => false, split = true }: {
    owner?: string;
    files?: number;
    stop?: () => boolean;
    split?: boolean;
  } = {},
): Promise<number> {
  const prefix = owner === undefined ? ORDER_TODO : [...ORDER_TODO, owner];
  const marks: Mark[] = [];
  for await (
    const { key, versionstamp } of kv.list({ prefix }, { limit: files, batchSize: files })
  ) {
    marks.push({ key, versionstamp });
  }
  let done = 0;
  while (done < marks.length && !stop()) {
    let listed: Mark[] | null = marks.slice(done, done + READ);
    const keys = listed.map((m) => m.key);
    // The marks as listed first; read again when a check failed.
    done += await commitChecked(async () => {
      const taken = await buildSome(kv, keys, listed ?? await getAll(kv, keys));
      listed = null;
      return taken;
    });
  }
  const blocks = split && owner === undefined && !stop() ? await splitFences(kv, { stop }) : 0;
  return marks.length + blocks;
}

/** A mark as read: its key, and its versionstamp (`null`: taken by another build). */
type Mark = { key: Deno.KvKey; versionstamp: string | null };

/**
 * One try of a commit: reads the records of the marks `keys` (as `marks`
 * holds them, read with or before the records), and writes the
 * entries of as many of them (in order, at least one) as fit a commit, in
 * key order (the entries of one order lie together in KV's tree), checked
 * against the records and the marks read (a mark another build took
 * already is passed over: its entries' fences are summed once), and drops
 * their marks. Returns how many marks it dealt with.
 */
async function buildSome(kv: Deno.Kv, keys: Deno.KvKey[], marks: Mark[]) {
  const records = await getAll<FileRecord>(kv, keys.map((key) => ["file", key[2]]));
  const op = kv.atomic();
  const sets: { key: Deno.KvKey; value: unknown }[] = [];
  let mutations = 0;
  let bytes = 0;
  let taken = 0;
  for (const [i, record] of records.entries()) {
    const entries = record.value === null || marks[i].versionstamp === null
      ? []
      : deferredEntries(record.value);
    const cost = 3 * entries.length + 1;
    const size = entries.reduce((n, e) => n + 3 * keyBytes(e.key), keyBytes(keys[i]));
    if (taken > 0 && (mutations + cost > MUTATIONS || bytes + size > KEY_BYTES)) break;
    op.check(record, marks[i]).delete(keys[i]);
    sets.push(...entries);
    mutations += cost;
    bytes += size;
    taken++;
  }
  sets.sort((a, b) => compareKeys(a.key, b.key));
  for (const { key, value } of sets) op.set(key, value);
  // The entries are new (no other write touches a marked file's: `IndexChange.prepare`).
  applyFences(op, await fenceEntries(kv, sets.map((e) => e.key), 1));
  return { op, result: taken };
}

/**
 * Builds every mark of `owner` made before it is called (a list in another
 * order than the default's, the statistics' recount): steps until one
 * finds fewer marks than it may take.
 */
export async function catchUpOrders(kv: Deno.Kv, owner: string): Promise<void> {
  while (await buildOrders(kv, { owner }) >= ORDER_FILES) {
    // marks of this owner left: the next step takes them
  }
}
