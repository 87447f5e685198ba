/**
 * Tags on PostgreSQL. UNIQUE (user_id, name) keeps names unique per user;
 * `file_tags` holds the links, removed when their tag goes (the foreign key's
 * cascade) or their file (the deletion's trigger, migration 045, which counts
 * them out of the tags' counts).
 */
import type { Sql } from "postgres";
import { uniqueViolation } from "./unique.ts";
import type { TagLink, TagPatch, TagRecord, TagStore } from "../tags.ts";

interface TagRow {
  id: string;
  name: string;
  color: string;
  user_id: string;
  created_at: Date;
  updated_at: Date;
}

const toTag = (r: TagRow): TagRecord => ({
  id: r.id,
  name: r.name,
  color: r.color,
  userId: r.user_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The tag field a violated unique constraint guards. */
const tagField = (constraint: string | undefined) => constraint === "tags_pkey" ? "id" : "name";

/** {@link TagStore} on PostgreSQL. */
export class PostgresTags implements TagStore {
  constructor(private readonly sql: Sql) {}

  async create(tag: TagRecord): Promise<void> {
    try {
      await this.sql`INSERT INTO tags ${
        this.sql({
          id: tag.id,
          name: tag.name,
          color: tag.color,
          user_id: tag.userId,
          created_at: tag.createdAt,
          updated_at: tag.updatedAt,
        })
      }`;
    } catch (error) {
      throw uniqueViolation(error, tagField);
    }
  }

  async get(id: string) {
    const [row] = await this.sql<TagRow[]>`SELECT * FROM tags WHERE id = ${id}`;
    return row ? toTag(row) : null;
  }

  async listByUser(userId: string) {
    const rows = await this.sql<TagRow[]>`
      SELECT * FROM tags WHERE user_id = ${userId} ORDER BY created_at, id`;
    return rows.map(toTag);
  }

  async update(id: string, patch: TagPatch, now: Date) {
    const values: Record<string, unknown> = { updated_at: now };
    if (patch.name !== undefined) values.name = patch.name;
    if (patch.color !== undefined) values.color = patch.color;
    try {
      const [row] = await this.sql<TagRow[]>`
        UPDATE tags SET ${this.sql(values)} WHERE id = ${id} RETURNING *`;
      return row ? toTag(row) : null;
    } catch (error) {
      throw uniqueViolation(error, tagField);
    }
  }

  async delete(id: string) {
    const [row] = await this.sql<TagRow[]>`DELETE FROM tags WHERE id = ${id} RETURNING *`;
    return row ? toTag(row) : null;
  }

  async deleteByUser(userId: string) {
    await this.sql`DELETE FROM tags WHERE user_id = ${userId}`;
  }

  async setFileTags(fileId: string, tagIds: string[]) {
    await this.sql.begin(async (tx) => {
      // Locks the file's row: concurrent replacements of one file's set queue here. Then its
      // owner's usage row, as every write of the owner's files takes it before the counters:
      // the tag counters the links' triggers move (migration 045), taken by the deletion and
      // then the insertion in no one order, are so never waited for both ways.
      const [file] = await tx<{ user_id: string | null }[]>`
        SELECT user_id FROM files WHERE id = ${fileId} FOR UPDATE`;
      if (!file) return;
      if (file.user_id !== null) {
        await tx`SELECT 1 FROM file_usage WHERE user_id = ${file.user_id} FOR NO KEY UPDATE`;
      }
      await tx`DELETE FROM file_tags WHERE file_id = ${fileId}`;
      if (tagIds.length === 0) return;
      await tx`INSERT INTO file_tags (file_id, tag_id)
        SELECT ${fileId}, id FROM tags WHERE id = ANY(${tagIds})`;
    });
  }

  async tagsOfFiles(fileIds: string[]) {
    const rows = await this.sql<(TagRow & { file_id: string })[]>`
      SELECT t.*, ft.file_id FROM file_tags ft JOIN tags t ON t.id = ft.tag_id
      WHERE ft.file_id = ANY(${fileIds}) ORDER BY t.created_at, t.id`;
    const result = new Map<string, TagRecord[]>();
    for (const { file_id, ...row } of rows) {
      result.set(file_id, [...result.get(file_id) ?? [], toTag(row)]);
    }
    return result;
  }

  async filesOfTags(tagIds: string[]) {
    const rows = await this.sql<TagLink[]>`
      SELECT tag_id AS "tagId", file_id AS "fileId" FROM file_tags
      WHERE tag_id = ANY(${tagIds}) ORDER BY file_id COLLATE "C"`;
    const result = new Map<string, string[]>();
    for (const { tagId, fileId } of rows) {
      // Pushed, not copied: a tag of many files would cost the square of their number.
      const files = result.get(tagId) ?? [];
      files.push(fileId);
      result.set(tagId, files);
    }
    return result;
  }

  async *iterate(): AsyncIterable<TagRecord> {
    for await (const rows of this.sql<TagRow[]>`SELECT * FROM tags`.cursor(500)) {
      yield* rows.map(toTag);
    }
  }

  async *iterateLinks(): AsyncIterable<TagLink> {
    const links = this.sql<TagLink[]>`
      SELECT tag_id AS "tagId", file_id AS "fileId" FROM file_tags`.cursor(500);
    for await (const rows of links) yield* rows;
  }
}
