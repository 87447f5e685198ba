/**
 * Where a deep page of the name order is read from, by the owner's name block
 * counts (migration 043, `file_name_blocks`: per first character): the blocks
 * summed in the page's order to the one the page starts in and the one it
 * ends in. The page is then read from the nearer of their edges, skipping
 * only names of that block, as a newest-first page is from its time block
 * (`./file_time_blocks.ts`).
 */
import type { PendingQuery, Row, Sql } from "postgres";

/**
 * How a page is read from a block edge: the rows `from` keeps, in the page's
 * order (`backwards`: that order reversed, the rows then reversed), `skip`
 * of them skipped first.
 */
export interface BlockRead {
  from: PendingQuery<Row[]>;
  skip: number;
  backwards: boolean;
}

/**
 * How to read the page at `offset` (`limit` rows) of `userId`'s files in
 * `order` of names (`null`: past the end): from the edge of the block it
 * starts in forwards, or, when nearer, from the far edge of the block it ends
 * in backwards, so that no page skips more than half a block.
 */
export async function nameBlockRead(
  sql: Sql,
  userId: string,
  offset: number,
  limit: number,
  order: "asc" | "desc",
): Promise<BlockRead | null> {
  const dir = sql.unsafe(order === "asc" ? "ASC" : "DESC");
  const [span] = await sql<
    { block: string; before: string; end_block: string | null; end_through: string | null }[]
  >`
    WITH summed AS (
      SELECT block, files, sum(files) OVER (ORDER BY block ${dir}) AS through
      FROM file_name_blocks WHERE owner = ${userId}
    )
    SELECT s.block, s.through - s.files AS before, e.block AS end_block,
      e.through AS end_through
    FROM (SELECT * FROM summed WHERE through > ${offset} ORDER BY block ${dir} LIMIT 1) AS s
    LEFT JOIN LATERAL (
      SELECT * FROM summed WHERE through >= ${offset + limit} ORDER BY block ${dir} LIMIT 1
    ) AS e ON true`;
  if (!span) return null;
  const forwards = offset - Number(span.before);
  const backwards = span.end_through === null
    ? Infinity
    : Number(span.end_through) - offset - limit;
  return backwards < forwards
    ? { from: throughNameBlock(sql, span.end_block!, order), skip: backwards, backwards: true }
    : { from: fromNameBlock(sql, span.block, order), skip: forwards, backwards: false };
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
function fromNameBlock(sql: Sql, block: string, order: "asc" | "desc") {
  if (order === "asc") return sql`name COLLATE "C" >= ${block}`;
  const after = afterPrefix(block);
  return after === null ? sql`true` : sql`name COLLATE "C" < ${after}`;
}

/** The condition that ends `order`'s list at name block `block`'s far edge: its names and those before it. */
function throughNameBlock(sql: Sql, block: string, order: "asc" | "desc") {
  if (order === "desc") return sql`name COLLATE "C" >= ${block}`;
  const after = afterPrefix(block);
  return after === null ? sql`true` : sql`name COLLATE "C" < ${after}`;
}
