/**
 * The counts of each tag's files (migration 045, `tag_file_counts`: per
 * owner and tag, the owner's complete files carrying it): a tag's list takes
 * its total from them, and the statistics' recount
 * (`PostgresFiles.recountStats`) puts them right with the rest, in the same
 * passes over the owner's files.
 */
import type { PendingQuery, Row, Sql, TransactionSql } from "postgres";
import type { FileQuery } from "../files.ts";

/**
 * How many files a list filtered by one tag and nothing else holds, from the
 * tag's counter; `undefined` for any other list.
 */
export async function tagCount(sql: Sql, q: FileQuery): Promise<number | undefined> {
  const tags = new Set(q.tagIds ?? []);
  if (
    tags.size !== 1 || q.folderId !== undefined || q.favorite !== undefined ||
    q.private !== undefined || q.typePrefixes !== undefined || q.ids !== undefined ||
    q.search !== undefined
  ) return undefined;
  const [tag] = tags;
  const [row] = await sql<{ files: string }[]>`SELECT files FROM tag_file_counts
    WHERE owner = ${q.userId} AND tag = ${tag}`;
  return row ? Number(row.files) : 0;
}

/**
 * The start of `owner`'s recount: each of its tag counters' `touched`
 * copied, with sums of 0 (as `file_recount_sums`' are).
 */
export async function startTagRecount(tx: TransactionSql, owner: string): Promise<void> {
  await tx`DELETE FROM tag_recount_sums WHERE owner = ${owner}`;
  await tx`INSERT INTO tag_recount_sums (owner, tag, touched)
    SELECT owner, tag, touched FROM tag_file_counts WHERE owner = ${owner}`;
}

/**
 * A pass's step, over the `chunk` of the owner's complete files it reads:
 * their links added to the tag sums (none for the files without an owner,
 * whose links count for no one).
 */
export function addTagSums(tx: TransactionSql, owner: string): PendingQuery<Row[]> {
  return tx`INSERT INTO tag_recount_sums AS s (owner, tag, files)
    SELECT ${owner}, l.tag_id, count(*) FROM chunk JOIN file_tags AS l ON l.file_id = chunk.id
    WHERE ${owner} <> '' GROUP BY l.tag_id
    ON CONFLICT (owner, tag) DO UPDATE SET files = s.files + EXCLUDED.files
    RETURNING 1`;
}

/**
 * The end of `owner`'s recount, its statistics' counters locked: with its
 * tag counters locked too (in the triggers' order), sets right those that
 * disagree with the sums and that no write moved meanwhile (`touched` the
 * same), of the tags still there; forgets the sums. Returns how many it set.
 */
export async function endTagRecount(tx: TransactionSql, owner: string): Promise<number> {
  await tx`SELECT 1 FROM tag_file_counts WHERE owner = ${owner} ORDER BY tag FOR UPDATE`;
  const [{ repaired }] = await tx<{ repaired: number }[]>`
    WITH wrong AS (
      SELECT s.tag, s.files FROM tag_recount_sums AS s
      LEFT JOIN tag_file_counts AS c ON c.owner = s.owner AND c.tag = s.tag
      WHERE s.owner = ${owner} AND c.touched IS NOT DISTINCT FROM s.touched
        AND s.files IS DISTINCT FROM c.files AND NOT (c.tag IS NULL AND s.files = 0)
        AND EXISTS (SELECT 1 FROM tags WHERE tags.id = s.tag)
    ), set AS (
      INSERT INTO tag_file_counts AS c (owner, tag, files)
      SELECT ${owner}, tag, files FROM wrong ORDER BY tag
      ON CONFLICT (owner, tag) DO UPDATE SET files = EXCLUDED.files
      RETURNING 1
    )
    SELECT count(*)::integer AS repaired FROM set`;
  await tx`DELETE FROM tag_recount_sums WHERE owner = ${owner}`;
  return repaired;
}
