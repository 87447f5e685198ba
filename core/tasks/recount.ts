/**
 * The recount task: puts right the counters behind each user's statistics
 * (`FileStore.stats`, moved by every write of a file; `UrlStore.recount`:
 * the URL count and views total, and on Deno KV the URL list's copies,
 * moved by every write of a URL) should one ever drift
 * (a write made by hand in the database, a bug), from the records, a bounded
 * number of records a pass: owners in turn (every user, then the files
 * without one), each recount carried over passes by the store until it ends.
 * It never reads the whole catalogue in one pass.
 */
import type { Services } from "../services.ts";
import { perServices } from "../services.ts";

/** File records one pass reads at most. */
export const RECOUNT_BUDGET = 20_000;

/** Where the recounts stand in this process: the owners to go through and the next one. */
const position = perServices((_: Services) => ({ owners: [] as (string | null)[], next: 0 }));

/**
 * One pass: recounts owners' statistics from where the last pass stopped,
 * reading at most `budget` file records, until `signal` is aborted; returns
 * how many counters it set right.
 */
export async function recountFileStats(
  s: Services,
  budget = RECOUNT_BUDGET,
  signal?: AbortSignal,
): Promise<number> {
  const at = position(s);
  let repaired = 0;
  let left = budget;
  while (left > 0 && !signal?.aborted) {
    if (at.next >= at.owners.length) {
      if (at.owners.length > 0 && left < budget) break; // a round ended in this pass
      at.owners = [...(await s.store.users.list()).map((u) => u.id), null];
      at.next = 0;
    }
    const pass = await s.store.files.recountStats(at.owners[at.next], left);
    repaired += pass.repaired;
    left -= Math.max(1, pass.read);
    if (!pass.done) break;
    // The owner's URL counters (few records: a user's URLs) once its files are done.
    repaired += await s.store.urls.recount(at.owners[at.next]);
    at.next++;
  }
  if (repaired > 0) s.logger.warn("file statistics counters repaired", { counters: repaired });
  return repaired;
}
