/**
 * User exports on PostgreSQL: one row each; completion is a conditional
 * update. Creating locks the user's row, so that of concurrent creates for one
 * user only the first finds no export.
 */
import type { Sql } from "postgres";
import type { UserExportRecord, UserExportStore } from "../user_exports.ts";

interface UserExportRow {
  id: string;
  user_id: string;
  path: string;
  files: number;
  size: string | number;
  completed: boolean;
  created_at: Date;
  updated_at: Date;
}

const toRecord = (r: UserExportRow): UserExportRecord => ({
  id: r.id,
  userId: r.user_id,
  path: r.path,
  files: r.files,
  size: Number(r.size),
  completed: r.completed,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** {@link UserExportStore} on PostgreSQL. */
export class PostgresUserExports implements UserExportStore {
  constructor(private readonly sql: Sql) {}

  async create(e: UserExportRecord): Promise<boolean> {
    return await this.sql.begin(async (tx) => {
      await tx`SELECT 1 FROM users WHERE id = ${e.userId} FOR NO KEY UPDATE`;
      const [taken] = await tx`SELECT 1 FROM user_exports WHERE user_id = ${e.userId} LIMIT 1`;
      if (taken) return false;
      await tx`INSERT INTO user_exports ${
        tx({
          id: e.id,
          user_id: e.userId,
          path: e.path,
          files: e.files,
          size: e.size,
          completed: e.completed,
          created_at: e.createdAt,
          updated_at: e.updatedAt,
        })
      }`;
      return true;
    });
  }

  async get(id: string): Promise<UserExportRecord | null> {
    const [row] = await this.sql<UserExportRow[]>`SELECT * FROM user_exports WHERE id = ${id}`;
    return row ? toRecord(row) : null;
  }

  async listByUser(userId: string): Promise<UserExportRecord[]> {
    const rows = await this.sql<UserExportRow[]>`
      SELECT * FROM user_exports WHERE user_id = ${userId} ORDER BY created_at, id`;
    return rows.map(toRecord);
  }

  async complete(id: string, size: number, now: Date): Promise<UserExportRecord | null> {
    const [row] = await this.sql<UserExportRow[]>`
      UPDATE user_exports SET size = ${size}, completed = true, updated_at = ${now}
      WHERE id = ${id} AND NOT completed RETURNING *`;
    return row ? toRecord(row) : null;
  }

  async touch(id: string, now: Date): Promise<void> {
    await this.sql`UPDATE user_exports SET updated_at = ${now} WHERE id = ${id} AND NOT completed`;
  }

  async listUpdatedBefore(before: Date): Promise<UserExportRecord[]> {
    const rows = await this.sql<UserExportRow[]>`
      SELECT * FROM user_exports WHERE updated_at < ${before} ORDER BY created_at, id`;
    return rows.map(toRecord);
  }

  async delete(id: string): Promise<UserExportRecord | null> {
    const [row] = await this.sql<
      UserExportRow[]
    >`DELETE FROM user_exports WHERE id = ${id} RETURNING *`;
    return row ? toRecord(row) : null;
  }
}
