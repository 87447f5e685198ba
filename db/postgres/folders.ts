/**
 * Folders on PostgreSQL. Every change to a user's folders runs in a
 * transaction that first takes a transaction-scoped advisory lock on that
 * user's tree, then reads the tree and checks the change with the same rules
 * as Deno KV (`checkFolder`, `planRemoval`); the UNIQUE (user_id, name)
 * constraint backs the name rule.
 */
import type { Sql, TransactionSql } from "postgres";
import {
  checkFolder,
  type FolderPatch,
  type FolderRecord,
  type FolderRemoval,
  type FolderStore,
  planRemoval,
} from "../folders.ts";
import { uniqueViolation } from "./unique.ts";

interface FolderRow {
  id: string;
  name: string;
  public: boolean;
  allow_uploads: boolean;
  parent_id: string | null;
  user_id: string;
  private: boolean;
  created_at: Date;
  updated_at: Date;
}

const toFolder = (r: FolderRow): FolderRecord => ({
  id: r.id,
  name: r.name,
  public: r.public,
  allowUploads: r.allow_uploads,
  parentId: r.parent_id,
  userId: r.user_id,
  ...(r.private ? { private: true } : {}),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toRow = (f: FolderRecord): FolderRow => ({
  id: f.id,
  name: f.name,
  public: f.public,
  allow_uploads: f.allowUploads,
  parent_id: f.parentId,
  user_id: f.userId,
  private: f.private === true,
  created_at: f.createdAt,
  updated_at: f.updatedAt,
});

/** {@link FolderStore} on PostgreSQL. */
export class PostgresFolders implements FolderStore {
  constructor(private readonly sql: Sql) {}

  async create(folder: FolderRecord): Promise<void> {
    await this.change(folder.userId, async (tx, folders) => {
      checkFolder(folders, folder);
      await tx`INSERT INTO folders ${tx(toRow(folder))}`;
    });
  }

  async get(id: string) {
    const [row] = await this.sql<FolderRow[]>`SELECT * FROM folders WHERE id = ${id}`;
    return row ? toFolder(row) : null;
  }

  async listByName(name: string) {
    const rows = await this.sql<FolderRow[]>`
      SELECT * FROM folders WHERE name = ${name} ORDER BY created_at, id`;
    return rows.map(toFolder);
  }

  async listByUser(userId: string) {
    return await listTree(this.sql, userId);
  }

  async update(id: string, patch: FolderPatch, now: Date) {
    const current = await this.get(id);
    if (!current) return null;
    return await this.change(current.userId, async (tx, folders) => {
      const old = folders.find((f) => f.id === id);
      if (!old) return null;
      const defined = Object.entries(patch).filter(([, v]) => v !== undefined);
      const next: FolderRecord = { ...old, ...Object.fromEntries(defined), updatedAt: now };
      checkFolder(folders, next);
      const { id: _, ...row } = toRow(next);
      await tx`UPDATE folders SET ${tx(row)} WHERE id = ${id}`;
      return next;
    });
  }

  async delete(id: string, removal: FolderRemoval, now: Date) {
    const current = await this.get(id);
    if (!current) return null;
    return await this.change(current.userId, async (tx, folders) => {
      if (!folders.some((f) => f.id === id)) return null;
      const { removed, moved } = planRemoval(folders, id, removal, now);
      const movedIds = moved.map((f) => f.id);
      if (movedIds.length > 0) {
        await tx`UPDATE folders SET parent_id = ${removal.moveTo}, updated_at = ${now}
          WHERE id = ANY(${movedIds})`;
      }
      await tx`DELETE FROM folders WHERE id = ANY(${removed.map((f) => f.id)})`;
      return removed;
    });
  }

  async deleteByUser(userId: string) {
    await this.sql`DELETE FROM folders WHERE user_id = ${userId}`;
  }

  async *iterate(): AsyncIterable<FolderRecord> {
    for await (const rows of this.sql<FolderRow[]>`SELECT * FROM folders`.cursor(500)) {
      yield* rows.map(toFolder);
    }
  }

  /** Runs `fn` in a transaction holding the user's tree lock, with the tree as it stands. */
  private async change<T>(
    userId: string,
    fn: (tx: TransactionSql, folders: FolderRecord[]) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(hashtextextended(${"folders:" + userId}, 0))`;
        return await fn(tx, await listTree(tx, userId));
      }) as T;
    } catch (error) {
      throw uniqueViolation(error, "name");
    }
  }
}

async function listTree(sql: Sql | TransactionSql, userId: string): Promise<FolderRecord[]> {
  const rows = await sql<FolderRow[]>`
    SELECT * FROM folders WHERE user_id = ${userId} ORDER BY created_at, id`;
  return rows.map(toFolder);
}
