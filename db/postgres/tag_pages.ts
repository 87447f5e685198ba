/**
 * The tag filter's pages from the links alone (migration 047: each link of
 * `file_tags` carries its file's list keys, with an index per order by tag
 * and owner): a list filtered by tags walks the links of its rarest tag in
 * the page's order, the other filters (favourite, folder, types) read from
 * the link, each other tag probed by its link, and only the page's files are
 * read. Lists that also search, name ids or ask for private files are not
 * taken here.
 */
import type { PendingQuery, Row, Sql } from "postgres";
import type { FileQuery } from "../files.ts";

/** Whether `q` is a list {@link tagLinks} serves: filtered by tags, with no search, ids or privacy. */
export const byTagLinks = (q: FileQuery) =>
  (q.tagIds?.length ?? 0) > 0 && q.search === undefined && q.ids === undefined &&
  q.private === undefined;

/** A list's rows to walk and their condition, as `listPageQuery` takes them. */
export interface ListSource {
  /** The rows: a table expression with `files`' columns that the list orders by, and `id`. */
  from: PendingQuery<Row[]>;
  where: PendingQuery<Row[]>;
}

/**
 * The links `q` (a list {@link byTagLinks} serves) walks: those of its tag
 * with the fewest files (`tag_file_counts`), of the owner's complete files,
 * kept by the other filters, each other tag's link probed by its primary
 * key.
 */
export async function tagLinks(sql: Sql, q: FileQuery): Promise<ListSource> {
  const tags = [...new Set(q.tagIds)];
  const counts = tags.length === 1 ? [] : await sql<{ tag: string }[]>`
    SELECT tag FROM tag_file_counts WHERE owner = ${q.userId} AND tag = ANY(${tags})
    ORDER BY files, tag`;
  // A tag without a counter has no file of the owner: walking it finds nothing.
  const counted = new Set(counts.map((c) => c.tag));
  const walked = tags.find((t) => !counted.has(t)) ?? counts[0]?.tag ?? tags[0];
  const conditions = [sql`tag_id = ${walked}`, sql`owner = ${q.userId}`];
  if (q.favorite !== undefined) {
    conditions.push(sql.unsafe(q.favorite ? "favorite" : "NOT favorite"));
  }
  if (q.folderId !== undefined) conditions.push(sql`folder_id = ${q.folderId}`);
  if (q.typePrefixes) {
    const patterns = q.typePrefixes.map((p) => p.replace(/[\\%_]/g, "\\$&") + "%");
    conditions.push(sql`type LIKE ANY(${patterns})`);
  }
  for (const tag of tags) {
    if (tag === walked) continue;
    conditions.push(
      sql`EXISTS (SELECT 1 FROM file_tags AS other WHERE other.file_id = links.id
        AND other.tag_id = ${tag})`,
    );
  }
  return {
    from: sql`(SELECT file_id AS id, tag_id, owner, created_at, updated_at, deletes_at, name,
      original_name, size, type, views, favorite, folder_id FROM file_tags) AS links`,
    where: conditions.reduce((all, c) => sql`${all} AND ${c}`),
  };
}

/** How many files the list of `source` holds, counted from its links. */
export async function countLinks(sql: Sql, source: ListSource): Promise<number> {
  const [{ n }] = await sql<{ n: string }[]>`
    SELECT count(*) AS n FROM ${source.from} WHERE ${source.where}`;
  return Number(n);
}
