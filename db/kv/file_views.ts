/**
 * The statistics page's most viewed files on Deno KV (`GET /api/stats/files`,
 * issue #32): one key per complete file with a view,
 *
 *     ["file_viewed", -views, name, id]
 *
 * so that KV's ascending order is the most viewed first, ties by name (code
 * points), as {@link mostViewedOf} orders them. It is one of the keys the
 * task index keeps with every write of a file (`./file_tasks.ts`), so a
 * view moves it (a delete and a set in the view's own atomic operation),
 * and a deletion, an owner's deletion and an import carrying views keep it
 * with the record. Unviewed files have none: when fewer than the page were
 * ever viewed, the rest is read by name from the name index
 * (`["file_by_name", name]`). {@link backfillViewIndex} fills it for the
 * files stored before it (KV schema 20).
 */
import { type FileRecord, mostViewedOf } from "../files.ts";
import { getAll, upgradePages } from "./helpers.ts";

/** The prefix of every key of the index. */
const VIEWED: Deno.KvKey = ["file_viewed"];

/** `file`'s key in the index, or `null` when it has none (pending, or never viewed). */
export function viewedKey(file: FileRecord): Deno.KvKey | null {
  return file.pending || file.views <= 0 ? null : [...VIEWED, -file.views, file.name, file.id];
}

/**
 * Up to `take` complete files, most viewed first ({@link mostViewedOf}):
 * the index's first keys and their records, then, when short, the unviewed
 * ones by name (the name index, a page at a time; at most `take - 1` viewed
 * files and the pending ones to pass over).
 */
export async function mostViewed(kv: Deno.Kv, take: number): Promise<FileRecord[]> {
  const keys = await Array.fromAsync(kv.list({ prefix: VIEWED }, { limit: take }));
  const viewed = await records(kv, keys.map((e) => e.key.at(-1) as string));
  // A record changed between the two reads is placed by what it holds now.
  const top = mostViewedOf(viewed, take);
  const want = take - top.length;
  if (keys.length === take || want <= 0) return top;
  const unviewed: FileRecord[] = [];
  let page: string[] = [];
  const read = async () => {
    for (const f of await records(kv, page)) {
      if (!f.pending && f.views === 0 && unviewed.length < want) unviewed.push(f);
    }
    page = [];
  };
  for await (const e of kv.list<string>({ prefix: ["file_by_name"] }, { batchSize: take })) {
    page.push(e.value);
    if (page.length < want) continue;
    await read();
    if (unviewed.length === want) return [...top, ...unviewed];
  }
  await read();
  return [...top, ...unviewed];
}

/** The records of `ids` that exist, in the order of `ids`. */
async function records(kv: Deno.Kv, ids: string[]): Promise<FileRecord[]> {
  const entries = await getAll<FileRecord>(kv, ids.map((id) => ["file", id]));
  return entries.flatMap((e) => e.value ? [e.value] : []);
}

/** Where {@link backfillViewIndex} stands: the last record key done (`[]`: done). */
const BACKFILL: Deno.KvKey = ["meta", "file_viewed_backfill"];
/** Records one backfill commit reads and checks (an atomic operation holds 100 checks). */
const BACKFILL_PAGE = 90;

/** KV schema 20's upgrade: every viewed file already stored indexed (`upgradePages`). */
export async function backfillViewIndex(kv: Deno.Kv): Promise<void> {
  await upgradePages<FileRecord>(kv, ["file"], BACKFILL, BACKFILL_PAGE, (op, page) => {
    for (const entry of page) {
      const key = viewedKey(entry.value);
      if (key) op.set(key, true);
    }
  });
}
