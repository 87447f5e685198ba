/**
 * Chunked uploads on PostgreSQL. Adding a part updates the upload row first
 * (which locks it and fails once it is completing) and inserts the part in the
 * same statement, so a claim and a late part never both succeed. A
 * reservation moves the owner's `file_usage` row in the transaction that
 * writes or removes the upload.
 */
import type postgres from "postgres";
import type { Sql, TransactionSql } from "postgres";
import {
  type ChunkedUploadRecord,
  type ChunkPart,
  type ChunkStore,
  CLAIM_TERM_MS,
  TUS_CLAIM_TERM_MS,
  type TusState,
} from "../chunks.ts";
import type { FileLimits } from "../files.ts";
import { count } from "./files.ts";

interface UploadRow {
  id: string;
  user_id: string | null;
  folder_id: string | null;
  filename: string;
  type: string;
  size: string;
  part_size: string;
  object: string;
  handle: string;
  completing: boolean;
  reserved_by: string | null;
  request_id: string | null;
  tus: TusState | null;
  created_at: Date;
  updated_at: Date;
}

const toUpload = (r: UploadRow): ChunkedUploadRecord => ({
  id: r.id,
  userId: r.user_id,
  folderId: r.folder_id,
  filename: r.filename,
  type: r.type,
  size: Number(r.size),
  partSize: Number(r.part_size),
  object: r.object,
  handle: r.handle,
  reservedBy: r.reserved_by,
  ...(r.request_id === null ? {} : { requestId: r.request_id }),
  ...(r.tus === null ? {} : { tus: r.tus }),
  completing: r.completing,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** {@link ChunkStore} on PostgreSQL. */
export class PostgresChunks implements ChunkStore {
  constructor(private readonly sql: Sql) {}

  async create(u: ChunkedUploadRecord, limits: FileLimits): Promise<void> {
    await this.sql.begin(async (tx) => {
      if (u.reservedBy !== null) await count(tx, u.reservedBy, u.size, 1, limits);
      await tx`
        INSERT INTO chunked_uploads (id, user_id, folder_id, filename, type, size, part_size,
          object, handle, reserved_by, request_id, tus, completing, created_at, updated_at)
        VALUES (${u.id}, ${u.userId}, ${u.folderId}, ${u.filename}, ${u.type}, ${u.size},
          ${u.partSize}, ${u.object}, ${u.handle}, ${u.reservedBy}, ${u.requestId ?? null},
          ${tusJson(tx, u.tus)}, ${u.completing}, ${u.createdAt}, ${u.updatedAt})`;
    });
  }

  async get(id: string): Promise<ChunkedUploadRecord | null> {
    const [row] = await this.sql<UploadRow[]>`SELECT * FROM chunked_uploads WHERE id = ${id}`;
    return row ? toUpload(row) : null;
  }

  async parts(id: string): Promise<ChunkPart[]> {
    const rows = await this.sql<
      { number: number; start_byte: string; end_byte: string; tag: string }[]
    >`
      SELECT number, start_byte, end_byte, tag FROM chunked_upload_parts
      WHERE upload_id = ${id} ORDER BY number`;
    return rows.map((r) => ({
      number: r.number,
      start: Number(r.start_byte),
      end: Number(r.end_byte),
      tag: r.tag,
    }));
  }

  async addPart(id: string, part: ChunkPart, now: Date): Promise<boolean> {
    const rows = await this.sql`
      WITH upload AS (
        UPDATE chunked_uploads SET updated_at = ${now}, completing = false
        WHERE id = ${id} AND (NOT completing OR updated_at <= ${staleBefore(now)}) RETURNING id
      )
      INSERT INTO chunked_upload_parts (upload_id, number, start_byte, end_byte, tag)
      SELECT id, ${part.number}, ${part.start}, ${part.end}, ${part.tag} FROM upload
      ON CONFLICT (upload_id, number) DO UPDATE
        SET start_byte = excluded.start_byte, end_byte = excluded.end_byte, tag = excluded.tag
      RETURNING number`;
    return rows.length === 1;
  }

  async claim(id: string, now: Date): Promise<ChunkedUploadRecord | null> {
    const [row] = await this.sql<UploadRow[]>`
      UPDATE chunked_uploads SET completing = true, updated_at = ${now}
      WHERE id = ${id} AND (NOT completing OR updated_at <= ${staleBefore(now)} OR
        (tus IS NOT NULL AND updated_at <= ${new Date(now.getTime() - TUS_CLAIM_TERM_MS)}))
      RETURNING *`;
    return row ? { ...toUpload(row), completing: false } : null;
  }

  async renew(id: string, now: Date): Promise<void> {
    await this.sql`UPDATE chunked_uploads SET updated_at = ${now} WHERE id = ${id} AND completing`;
  }

  async release(id: string): Promise<void> {
    await this.sql`UPDATE chunked_uploads SET completing = false WHERE id = ${id}`;
  }

  async unreserve(id: string): Promise<void> {
    await this.sql.begin(async (tx) => {
      const [row] = await tx<{ reserved_by: string; size: string }[]>`
        SELECT reserved_by, size FROM chunked_uploads
        WHERE id = ${id} AND reserved_by IS NOT NULL FOR UPDATE`;
      if (!row) return;
      await tx`UPDATE chunked_uploads SET reserved_by = NULL WHERE id = ${id}`;
      await giveBack(tx, row.reserved_by, row.size);
    });
  }

  async delete(id: string): Promise<void> {
    await this.sql.begin(async (tx) => {
      const [row] = await tx<{ reserved_by: string | null; size: string }[]>`
        DELETE FROM chunked_uploads WHERE id = ${id} RETURNING reserved_by, size`;
      if (row?.reserved_by) await giveBack(tx, row.reserved_by, row.size);
    });
  }

  async saveTus(id: string, part: ChunkPart | null, tus: TusState, now: Date): Promise<boolean> {
    return await this.sql.begin(async (tx) => {
      const rows = await tx`
        UPDATE chunked_uploads SET tus = ${tusJson(tx, tus)}, updated_at = ${now}
        WHERE id = ${id} RETURNING id`;
      if (rows.length === 0) return false;
      if (part) {
        await tx`
          INSERT INTO chunked_upload_parts (upload_id, number, start_byte, end_byte, tag)
          VALUES (${id}, ${part.number}, ${part.start}, ${part.end}, ${part.tag})
          ON CONFLICT (upload_id, number) DO UPDATE
            SET start_byte = excluded.start_byte, end_byte = excluded.end_byte, tag = excluded.tag`;
      }
      return true;
    });
  }

  async listByUser(userId: string): Promise<ChunkedUploadRecord[]> {
    const rows = await this.sql<UploadRow[]>`
      SELECT * FROM chunked_uploads WHERE user_id = ${userId} ORDER BY created_at, id`;
    return rows.map(toUpload);
  }

  async listIdle(before: Date): Promise<ChunkedUploadRecord[]> {
    const rows = await this.sql<UploadRow[]>`
      SELECT * FROM chunked_uploads WHERE updated_at < ${before} ORDER BY updated_at, id`;
    return rows.map(toUpload);
  }
}

/** A tus state as a jsonb parameter (`null` stays SQL NULL). */
function tusJson(sql: TransactionSql, tus: TusState | null | undefined) {
  return tus ? sql.json(tus as unknown as postgres.JSONValue) : null;
}

/** Takes a reservation of `size` bytes and one file off the user's counters. */
async function giveBack(tx: TransactionSql, userId: string, size: string): Promise<void> {
  await tx`UPDATE file_usage
    SET bytes = greatest(0, bytes - ${size}::bigint), files = greatest(0, files - 1)
    WHERE user_id = ${userId}`;
}

/** The last `updated_at` of a claim that has lapsed at `now` ({@link CLAIM_TERM_MS}). */
function staleBefore(now: Date): Date {
  return new Date(now.getTime() - CLAIM_TERM_MS);
}
