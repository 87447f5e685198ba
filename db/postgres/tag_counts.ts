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

/** The most files of a tag {@link tagFirst} reads by id. */
export const TAG_FIRST_MAX = 20_000;

/**
 * `q`, filtered by one tag, with the tag's files given by id when its page
 * lies far into the owner's files: the page's query walks the owner's files
 * in the page's order, probing each for the tag, so that a page 2,400 files
 * deep into a tag held by 1 file in 200 walks some 480,000 of them (0.7–1.2 s
 * at a million), and the first page of a tag of 3 files walks them all.
 * By id, it is the tag's files (at most {@link TAG_FIRST_MAX}) sorted. Taken
 * when the walk, from the nearer end of a `total` known, would pass more
 * than twice as many files as the tag holds; `ownerFiles` counts the owner's.
 */
export async function tagFirst(
  sql: Sql,
  q: FileQuery,
  total: number | undefined,
  ownerFiles: () => Promise<number>,
): Promise<FileQuery> {
  const tags = new Set(q.tagIds ?? []);
  if (tags.size !== 1 || q.ids !== undefined) return q;
  const [tag] = tags;
  const [row] = await sql<{ files: string }[]>`SELECT files FROM tag_file_counts
    WHERE owner = ${q.userId} AND tag = ${tag}`;
  const tagged = row ? Number(row.files) : 0;
  if (tagged > TAG_FIRST_MAX) return q;
  const depth = total === undefined
    ? q.offset
    : Math.min(q.offset, Math.max(0, total - q.offset - q.limit));
  const walk = (depth + q.limit) * await ownerFiles() / Math.max(1, tagged);
  if (walk <= 2 * tagged) return q;
  const links = await sql<{ file_id: string }[]>`SELECT file_id FROM file_tags
    WHERE tag_id = ${tag}`;
  return { ...q, tagIds: undefined, ids: links.map((l) => l.file_id) };
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
