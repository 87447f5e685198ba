/**
 * Where a deep page of the name order starts, from the owner's name block
 * counts (migration 043, `file_name_blocks`: per first character): the blocks
 * summed in the page's order to the one the page starts in. The page is then
 * read from that block's edge, skipping only the names of that block before
 * it, as a newest-first page is from its time block (`./file_time_blocks.ts`).
 */
import type { Sql } from "postgres";
import type { BlockStart } from "./file_time_blocks.ts";

/** The name block at offset `offset` of `userId`'s files in `order` of names; `null`: past the end. */
export async function nameBlockStart(
  sql: Sql,
  userId: string,
  offset: number,
  order: "asc" | "desc",
): Promise<BlockStart | null> {
  const dir = sql.unsafe(order === "asc" ? "ASC" : "DESC");
  const [start] = await sql<{ block: string; before: string }[]>`
    WITH summed AS (
      SELECT block, files, sum(files) OVER (ORDER BY block ${dir}) AS through
      FROM file_name_blocks WHERE owner = ${userId}
    )
    SELECT block, through - files AS before FROM summed WHERE through > ${offset}
    ORDER BY block ${dir} LIMIT 1`;
  return start ? { block: start.block, before: Number(start.before) } : null;
}

/** The code point after `c` (surrogates, which text never holds, skipped); none after U+10FFFF. */
function nextChar(c: string): string | null {
  const code = c.codePointAt(0)!;
  if (code >= 0x10ffff) return null;
  return String.fromCodePoint(code + 1 === 0xd800 ? 0xe000 : code + 1);
}

/**
 * The least string after every string that starts with `prefix` (`null`:
 * none): its last character moved to the next, or the prefix shortened.
 */
export function afterPrefix(prefix: string): string | null {
  const chars = [...prefix];
  while (chars.length > 0) {
    const next = nextChar(chars.pop()!);
    if (next !== null) return chars.join("") + next;
  }
  return null;
}

/**
 * The condition that starts `order`'s list at name block `block`'s edge (a
 * first character; every name of the block starts with it): its names and
 * those after it in `order`.
 */
export function fromNameBlock(sql: Sql, block: string, order: "asc" | "desc") {
  if (order === "asc") return sql`name COLLATE "C" >= ${block}`;
  const after = afterPrefix(block);
  return after === null ? sql`true` : sql`name COLLATE "C" < ${after}`;
}
