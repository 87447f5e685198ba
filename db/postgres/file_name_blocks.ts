/**
 * Where a deep page of the name order starts, from the owner's name block
 * counts (migration 043, `file_name_blocks`: per first character, then per
 * first two), summed as the time blocks are (`./file_time_blocks.ts`); the
 * page is then read from the fine block's edge, skipping only the names of
 * that block before it.
 */
import type { Sql } from "postgres";
import { type BlockStart, twoLevelStart } from "./file_time_blocks.ts";

/** The fine name block at offset `offset` of `userId`'s files in `order` of names; `null`: past the end. */
export function nameBlockStart(
  sql: Sql,
  userId: string,
  offset: number,
  order: "asc" | "desc",
): Promise<BlockStart | null> {
  return twoLevelStart(
    sql,
    "file_name_blocks",
    sql`block >= (SELECT block FROM start) AND left(block, 1) = (SELECT block FROM start)`,
    userId,
    offset,
    order,
  );
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
 * The condition that starts `order`'s list at name block `block`'s edge: its
 * names and those after it in `order`. A block of one character holds that
 * one name (longer names are in two-character blocks); every name of a
 * block of two starts with it.
 */
export function fromNameBlock(sql: Sql, block: string, order: "asc" | "desc") {
  if (order === "asc") return sql`name COLLATE "C" >= ${block}`;
  if ([...block].length === 1) return sql`name COLLATE "C" <= ${block}`;
  const after = afterPrefix(block);
  return after === null ? sql`true` : sql`name COLLATE "C" < ${after}`;
}
