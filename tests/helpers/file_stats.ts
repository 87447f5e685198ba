/**
 * Users' file statistics in tests (issue #32): what they should say, counted
 * from the records, and counters spoilt behind the store's back, as a change
 * made by hand in the database would.
 */
import type { Sql } from "postgres";
import type { FileStats } from "../../db/files.ts";
import type { Backend } from "../../db/store.ts";

/** What `owner`'s statistics should say, counted from its records. */
export async function recounted(store: Backend, owner: string | null): Promise<FileStats> {
  const stats: FileStats = { files: 0, favorites: 0, views: 0, bytes: 0, types: {} };
  for await (const f of store.files.iterate()) {
    if (f.pending || f.userId !== owner) continue;
    stats.files++;
    stats.bytes += f.size;
    stats.views += f.views;
    if (f.favorite) stats.favorites++;
    stats.types[f.type] = (stats.types[f.type] ?? 0) + 1;
  }
  return stats;
}

/**
 * Spoils `owner`'s counters in the plain backend `store`: files and views
 * off, the count of `image/png` gone, a type with no file counted.
 */
export async function spoilCounters(store: Backend, owner: string): Promise<void> {
  if (store.kind === "kv") {
    const kv = (store as unknown as { kv: Deno.Kv }).kv;
    await kv.atomic()
      .set(["file_stats", owner, "files"], new Deno.KvU64(99n))
      .sum(["file_stats", owner, "views"], 5n)
      .delete(["file_stats", owner, "type", "image/png"])
      .set(["file_stats", owner, "type", "none/such"], new Deno.KvU64(4n))
      .commit();
    return;
  }
  const sql = (store as unknown as { sql: Sql }).sql;
  await sql`UPDATE file_counts SET files = 99, views = views + 5
    WHERE owner = ${owner} AND type <> 'image/png'`;
  await sql`DELETE FROM file_counts WHERE owner = ${owner} AND type = 'image/png'`;
  await sql`INSERT INTO file_counts (owner, type, files) VALUES (${owner}, 'none/such', 4)`;
}
