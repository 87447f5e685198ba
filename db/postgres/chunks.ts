/**
 * Chunked uploads on PostgreSQL. Adding a part updates the upload row first
 * (which locks it and fails once it is completing) and inserts the part in the
 * same statement, so a claim and a late part never both succeed.
 */
import type { Sql } from "postgres";
import type { ChunkedUploadRecord, ChunkPart, ChunkStore } from "../chunks.ts";

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
  completing: r.completing,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** {@link ChunkStore} on PostgreSQL. */
export class PostgresChunks implements ChunkStore {
  constructor(private readonly sql: Sql) {}

  async create(u: ChunkedUploadRecord): Promise<void> {
    await this.sql`
      INSERT INTO chunked_uploads (id, user_id, folder_id, filename, type, size, part_size,
        object, handle, completing, created_at, updated_at)
      VALUES (${u.id}, ${u.userId}, ${u.folderId}, ${u.filename}, ${u.type}, ${u.size},
        ${u.partSize}, ${u.object}, ${u.handle}, ${u.completing}, ${u.createdAt}, ${u.updatedAt})`;
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
        UPDATE chunked_uploads SET updated_at = ${now}
        WHERE id = ${id} AND NOT completing RETURNING id
      )
      INSERT INTO chunked_upload_parts (upload_id, number, start_byte, end_byte, tag)
      SELECT id, ${part.number}, ${part.start}, ${part.end}, ${part.tag} FROM upload
      ON CONFLICT (upload_id, number) DO UPDATE
        SET start_byte = excluded.start_byte, end_byte = excluded.end_byte, tag = excluded.tag
      RETURNING number`;
    return rows.length === 1;
  }

  async claim(id: string): Promise<ChunkedUploadRecord | null> {
    const [row] = await this.sql<UploadRow[]>`
      UPDATE chunked_uploads SET completing = true WHERE id = ${id} AND NOT completing
      RETURNING *`;
    return row ? { ...toUpload(row), completing: false } : null;
  }

  async release(id: string): Promise<void> {
    await this.sql`UPDATE chunked_uploads SET completing = false WHERE id = ${id}`;
  }

  async delete(id: string): Promise<void> {
    await this.sql`DELETE FROM chunked_uploads WHERE id = ${id}`;
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
