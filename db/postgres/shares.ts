/**
 * Share links on PostgreSQL: `code` is UNIQUE, and the deletion of the
 * user, file or folder a link belongs to cascades to it.
 */
import type { Sql } from "postgres";
import type { ViewResult } from "../files.ts";
import type { ShareRecord, ShareStore, ShareTarget } from "../shares.ts";
import { uniqueViolation } from "./unique.ts";

interface ShareRow {
  id: string;
  code: string;
  user_id: string;
  file_id: string | null;
  folder_id: string | null;
  password: string | null;
  expires_at: Date | null;
  max_views: number | null;
  views: number;
  created_at: Date;
}

const toShare = (r: ShareRow): ShareRecord => ({
  id: r.id,
  code: r.code,
  userId: r.user_id,
  fileId: r.file_id,
  folderId: r.folder_id,
  password: r.password,
  expiresAt: r.expires_at,
  maxViews: r.max_views,
  views: r.views,
  createdAt: r.created_at,
});

/** {@link ShareStore} on PostgreSQL. */
export class PostgresShares implements ShareStore {
  constructor(private readonly sql: Sql) {}

  async create(s: ShareRecord): Promise<void> {
    try {
      await this.sql`INSERT INTO shares ${
        this.sql({
          id: s.id,
          code: s.code,
          user_id: s.userId,
          file_id: s.fileId,
          folder_id: s.folderId,
          password: s.password,
          expires_at: s.expiresAt,
          max_views: s.maxViews,
          views: s.views,
          created_at: s.createdAt,
        })
      }`;
    } catch (error) {
      throw uniqueViolation(error, "code");
    }
  }

  async get(id: string): Promise<ShareRecord | null> {
    const [row] = await this.sql<ShareRow[]>`SELECT * FROM shares WHERE id = ${id}`;
    return row ? toShare(row) : null;
  }

  async getByCode(code: string): Promise<ShareRecord | null> {
    const [row] = await this.sql<ShareRow[]>`SELECT * FROM shares WHERE code = ${code}`;
    return row ? toShare(row) : null;
  }

  async listByUser(userId: string): Promise<ShareRecord[]> {
    const rows = await this.sql<ShareRow[]>`
      SELECT * FROM shares WHERE user_id = ${userId} ORDER BY created_at, id`;
    return rows.map(toShare);
  }

  async addView(id: string): Promise<ViewResult> {
    const [row] = await this.sql<{ id: string }[]>`
      UPDATE shares SET views = views + 1
      WHERE id = ${id} AND (max_views IS NULL OR views < max_views) RETURNING id`;
    if (row) return "counted";
    return (await this.get(id)) ? "exhausted" : "missing";
  }

  async delete(id: string): Promise<ShareRecord | null> {
    const [row] = await this.sql<ShareRow[]>`DELETE FROM shares WHERE id = ${id} RETURNING *`;
    return row ? toShare(row) : null;
  }

  async deleteByTarget(target: ShareTarget): Promise<number> {
    const rows = target.kind === "file"
      ? await this.sql`DELETE FROM shares WHERE file_id = ${target.id} RETURNING id`
      : await this.sql`DELETE FROM shares WHERE folder_id = ${target.id} RETURNING id`;
    return rows.length;
  }

  async deleteByFiles(fileIds: string[]): Promise<number> {
    if (fileIds.length === 0) return 0;
    const rows = await this.sql`DELETE FROM shares WHERE file_id = ANY(${fileIds}) RETURNING id`;
    return rows.length;
  }

  async deleteByUser(userId: string): Promise<number> {
    const rows = await this.sql`DELETE FROM shares WHERE user_id = ${userId} RETURNING id`;
    return rows.length;
  }

  async *iterate(): AsyncIterable<ShareRecord> {
    for await (const rows of this.sql<ShareRow[]>`SELECT * FROM shares`.cursor(500)) {
      yield* rows.map(toShare);
    }
  }
}
