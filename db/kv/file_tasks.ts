/**
 * The cleaning tasks' index of files on Deno KV (issue #32): one key per
 * file that a task looks at, stored in the same atomic operation as the
 * record (`./files.ts`), so that a pass reads its candidates and no other
 * file:
 *
 *     ["file_task", "expires", deletesAt ms, id]    complete files with a `deletesAt`
 *     ["file_task", "exhausted", id]                complete files whose views reached `maxViews`
 *     ["file_task", "pending", updatedAt ms, id]    pending files (`cleanuploads`)
 *     ["file_task", "thumbnail", id]                files with a thumbnail recorded
 *
 * and, kept the same way, the statistics page's index of the viewed files
 * (`./file_views.ts`: `["file_viewed", -views, name, id]`).
 * A key's value is `true`; the record is read by id. {@link backfillTaskIndex}
 * fills it for the files stored before it (KV schema 7).
 */
import { type FileCandidates, type FileRecord, isCandidate } from "../files.ts";
import { getAll, upgradePages } from "./helpers.ts";
import { viewedKey } from "./file_views.ts";
import { EAGER_KEY, folderScope, INDEX } from "./file_index.ts";

/** The prefix of every key of the index. */
export const TASK_INDEX: Deno.KvKey = ["file_task"];

/** The keys `file` has in the index (none for `null`). */
export function taskKeys(file: FileRecord | null): Deno.KvKey[] {
  if (!file) return [];
  const keys: Deno.KvKey[] = [];
  if (file.pending) keys.push(["file_task", "pending", file.updatedAt.getTime(), file.id]);
  else {
    if (file.deletesAt !== null) {
      keys.push(["file_task", "expires", file.deletesAt.getTime(), file.id]);
    }
    if (file.maxViews !== null && file.views >= file.maxViews) {
      keys.push(["file_task", "exhausted", file.id]);
    }
  }
  if (file.thumbnail) keys.push(["file_task", "thumbnail", file.id]);
  const viewed = viewedKey(file);
  if (viewed) keys.push(viewed);
  return keys;
}

/**
 * Adds to `op` the index changes of a write of one file (`before` → `after`;
 * `null`: new, removed): only the keys that differ (most writes change none;
 * a view, its viewed key: one delete and one set).
 */
export function taskIndex<Op extends Deno.AtomicOperation>(
  op: Op,
  before: FileRecord | null,
  after: FileRecord | null,
): Op {
  const old = new Map(taskKeys(before).map((k) => [JSON.stringify(k), k]));
  const next = new Map(taskKeys(after).map((k) => [JSON.stringify(k), k]));
  for (const [id, key] of old) if (!next.has(id)) op.delete(key);
  for (const [id, key] of next) if (!old.has(id)) op.set(key, true);
  return op;
}

/** The key range (or prefix) of the index that holds `which`'s candidates. */
function range(which: FileCandidates): Deno.KvListSelector {
  switch (which.kind) {
    case "expired":
      // deletesAt ≤ by: every key below the next millisecond.
      return {
        start: ["file_task", "expires"],
        end: ["file_task", "expires", which.by.getTime() + 1],
      };
    case "abandoned":
      return { start: ["file_task", "pending"], end: ["file_task", "pending", which.by.getTime()] };
    case "exhausted":
      return { prefix: ["file_task", "exhausted"] };
    case "thumbnailed":
      return which.after === undefined ? { prefix: ["file_task", "thumbnail"] } : {
        prefix: ["file_task", "thumbnail"],
        start: ["file_task", "thumbnail", which.after, ""],
      };
    case "owned":
    case "foldered":
      throw new Error("a user's files are read from its copies or its folder's index");
  }
}

/**
 * Up to `limit` records of `which`'s candidates, read from the index: the
 * keys, then their records (each checked against the rule once more).
 */
export async function taskCandidates(
  kv: Deno.Kv,
  which: Exclude<FileCandidates, { kind: "owned" | "foldered" }>,
  limit: number,
): Promise<FileRecord[]> {
  const ids: string[] = [];
  for await (const entry of kv.list(range(which), { limit, batchSize: Math.min(limit, 500) })) {
    ids.push(entry.key.at(-1) as string);
  }
  const records = await getAll<FileRecord>(kv, ids.map((id) => ["file", id]));
  return records.flatMap((e) => e.value && isCandidate(e.value, which) ? [e.value] : []);
}

/** Where {@link backfillTaskIndex} stands: the last record key done (`[]`: done). */
const BACKFILL: Deno.KvKey = ["meta", "file_task_backfill"];
/** Records one backfill commit reads and checks (an atomic operation holds 100 checks). */
const BACKFILL_PAGE = 90;

/** KV schema 7's upgrade: every file already stored indexed ({@link upgradePages}). */
export async function backfillTaskIndex(kv: Deno.Kv): Promise<void> {
  await upgradePages<FileRecord>(kv, ["file"], BACKFILL, BACKFILL_PAGE, (op, page) => {
    for (const entry of page) for (const key of taskKeys(entry.value)) op.set(key, true);
  });
}

/**
 * Up to `limit` records of the files in `which`'s folder: its complete files
 * from the folder's scope of the files list's index (`./file_index.ts`),
 * then, room left, its pending ones, found among every pending file (uploads
 * in progress, and abandoned ones until the cleanup removes them: few,
 * whatever the catalogue's size).
 */
export async function folderedCandidates(
  kv: Deno.Kv,
  which: Extract<FileCandidates, { kind: "foldered" }>,
  limit: number,
): Promise<FileRecord[]> {
  const prefix = [...INDEX, which.userId, folderScope(which.folderId), EAGER_KEY];
  const ids: string[] = [];
  for await (const entry of kv.list({ prefix }, { limit, batchSize: Math.min(limit, 500) })) {
    ids.push(entry.key.at(-1) as string);
  }
  if (ids.length < limit) {
    for await (const entry of kv.list({ prefix: ["file_task", "pending"] })) {
      ids.push(entry.key.at(-1) as string);
    }
  }
  const records = await getAll<FileRecord>(kv, [...new Set(ids)].map((id) => ["file", id]));
  return records.flatMap((e) => e.value && isCandidate(e.value, which) ? [e.value] : [])
    .slice(0, limit);
}
