/**
 * Where a deep page of the newest-first order starts, from the owner's block
 * counts (migration 041, `file_time_blocks`): the coarse blocks summed in the
 * page's order to the one the page starts in, then that block's fine ones.
 * The page is then read from the fine block's edge, skipping only the files
 * of that block before it (a minute's at most, but for files of one
 * instant), not every file before the page. The name order's blocks
 * (`./file_name_blocks.ts`) are read the same way.
 */
import type { Sql } from "postgres";
import type { FileQuery } from "../files.ts";

/** A list offset from which a page starts from the block counts (before it, the index alone). */
export const BLOCKS_FROM = 1000;

/** The block a page starts in (its key as text: a time block's number, a name block's character) and the files before it. */
export interface BlockStart {
  block: string;
  before: number;
}

/**
 * Whether `q`'s page starts from the block counts of its order (`createdAt`
 * or `name`, either direction): every complete file of the owner, deep enough.
 */
export function startsFromBlocks(q: FileQuery): boolean {
  return (q.sortBy === "createdAt" || q.sortBy === "name") && q.offset >= BLOCKS_FROM &&
    q.favorite === undefined && q.private === undefined && q.typePrefixes === undefined &&
    q.folderId === undefined && q.ids === undefined && q.tagIds === undefined &&
    q.search === undefined;
}

/** The fine block at offset `offset` of `userId`'s files in `order` of `created_at`; `null`: past the end. */
export async function blockStart(
  sql: Sql,
  userId: string,
  offset: number,
  order: "asc" | "desc",
): Promise<BlockStart | null> {
  const dir = sql.unsafe(order === "asc" ? "ASC" : "DESC");
  const [start] = await sql<{ block: string; before: string }[]>`
    WITH coarse AS (
      SELECT block, files, sum(files) OVER (ORDER BY block ${dir}) AS through
      FROM file_time_blocks WHERE owner = ${userId} AND level = 1
    ), start AS (
      SELECT block, through - files AS before FROM coarse WHERE through > ${offset}
      ORDER BY block ${dir} LIMIT 1
    ), fine AS (
      SELECT block, files, sum(files) OVER (ORDER BY block ${dir}) AS through
      FROM file_time_blocks WHERE owner = ${userId} AND level = 0
        AND block >= (SELECT block FROM start) * 256 AND block < ((SELECT block FROM start) + 1) * 256
    )
    SELECT block, (SELECT before FROM start) + through - files AS before FROM fine
    WHERE (SELECT before FROM start) + through > ${offset}
    ORDER BY block ${dir} LIMIT 1`;
  return start ? { block: start.block, before: Number(start.before) } : null;
}

/**
 * The condition that starts `order`'s list at fine block `block`'s edge: its
 * files and those after it (older, newest first; newer, oldest first).
 */
export function fromBlock(sql: Sql, block: string, order: "asc" | "desc") {
  return order === "asc"
    ? sql`created_at >= 'epoch'::timestamptz + ${block}::bigint * 67108864 * interval '1 microsecond'`
    : sql`created_at < 'epoch'::timestamptz + (${block}::bigint + 1) * 67108864 * interval '1 microsecond'`;
}
