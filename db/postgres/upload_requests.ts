/**
 * Upload requests on PostgreSQL: `code` is UNIQUE, a user's deletion cascades
 * to its requests, and a reservation is one conditional UPDATE … RETURNING,
 * which the row lock serialises: of concurrent ones, exactly those that fit
 * are counted.
 */
import type { Sql } from "postgres";
import type {
  Reservation,
  UploadRequestPatch,
  UploadRequestRecord,
  UploadRequestStore,
} from "../upload_requests.ts";
import { uniqueViolation } from "./unique.ts";

interface RequestRow {
  id: string;
  code: string;
  user_id: string;
  name: string;
  message: string | null;
  folder_id: string | null;
  max_files: number | null;
  max_bytes: string | number | null;
  max_file_size: string | number | null;
  expires_at: Date | null;
  password: string | null;
  allowed_types: string[];
  files: number;
  bytes: string | number;
  created_at: Date;
  updated_at: Date;
}

const big = (v: string | number | null) => v === null ? null : Number(v);

const toRequest = (r: RequestRow): UploadRequestRecord => ({
  id: r.id,
  code: r.code,
  userId: r.user_id,
  name: r.name,
  message: r.message,
  folderId: r.folder_id,
  maxFiles: r.max_files,
  maxBytes: big(r.max_bytes),
  maxFileSize: big(r.max_file_size),
  expiresAt: r.expires_at,
  password: r.password,
  allowedTypes: r.allowed_types,
  files: r.files,
  bytes: Number(r.bytes),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const COLUMNS: Record<keyof UploadRequestPatch, string> = {
  name: "name",
  message: "message",
  folderId: "folder_id",
  maxFiles: "max_files",
  maxBytes: "max_bytes",
  maxFileSize: "max_file_size",
  expiresAt: "expires_at",
  password: "password",
  allowedTypes: "allowed_types",
};

/** {@link UploadRequestStore} on PostgreSQL. */
export class PostgresUploadRequests implements UploadRequestStore {
  constructor(private readonly sql: Sql) {}

  async create(r: UploadRequestRecord): Promise<void> {
    try {
      await this.sql`INSERT INTO upload_requests ${
        this.sql({
          id: r.id,
          code: r.code,
          user_id: r.userId,
          name: r.name,
          message: r.message,
          folder_id: r.folderId,
          max_files: r.maxFiles,
          max_bytes: r.maxBytes,
          max_file_size: r.maxFileSize,
          expires_at: r.expiresAt,
          password: r.password,
          allowed_types: this.sql.array(r.allowedTypes),
          files: r.files,
          bytes: r.bytes,
          created_at: r.createdAt,
          updated_at: r.updatedAt,
        })
      }`;
    } catch (error) {
      throw uniqueViolation(error, "code");
    }
  }

  async get(id: string): Promise<UploadRequestRecord | null> {
    const [row] = await this.sql<RequestRow[]>`SELECT * FROM upload_requests WHERE id = ${id}`;
    return row ? toRequest(row) : null;
  }

  async getByCode(code: string): Promise<UploadRequestRecord | null> {
    const [row] = await this.sql<RequestRow[]>`SELECT * FROM upload_requests WHERE code = ${code}`;
    return row ? toRequest(row) : null;
  }

  async listByUser(userId: string): Promise<UploadRequestRecord[]> {
    const rows = await this.sql<RequestRow[]>`
      SELECT * FROM upload_requests WHERE user_id = ${userId} ORDER BY created_at, id`;
    return rows.map(toRequest);
  }

  async update(
    id: string,
    patch: UploadRequestPatch,
    now: Date,
  ): Promise<UploadRequestRecord | null> {
    const set: Record<string, unknown> = { updated_at: now };
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      const column = COLUMNS[key as keyof UploadRequestPatch];
      set[column] = key === "allowedTypes" ? this.sql.array(value as string[]) : value;
    }
    const [row] = await this.sql<RequestRow[]>`
      UPDATE upload_requests SET ${this.sql(set)} WHERE id = ${id} RETURNING *`;
    return row ? toRequest(row) : null;
  }

  async delete(id: string): Promise<UploadRequestRecord | null> {
    const [row] = await this.sql<RequestRow[]>`
      DELETE FROM upload_requests WHERE id = ${id} RETURNING *`;
    return row ? toRequest(row) : null;
  }

  async deleteByUser(userId: string): Promise<number> {
    const rows = await this.sql`DELETE FROM upload_requests WHERE user_id = ${userId} RETURNING id`;
    return rows.length;
  }

  async reserve(id: string, bytes: number): Promise<Reservation> {
    const [row] = await this.sql<RequestRow[]>`
      UPDATE upload_requests SET files = files + 1, bytes = bytes + ${bytes}
      WHERE id = ${id}
        AND (max_files IS NULL OR files + 1 <= max_files)
        AND (max_bytes IS NULL OR bytes + ${bytes} <= max_bytes)
      RETURNING *`;
    if (row) return { ok: true, request: toRequest(row) };
    const request = await this.get(id);
    if (!request) return { ok: false, reason: "gone" };
    const full = request.maxFiles !== null && request.files + 1 > request.maxFiles;
    return { ok: false, reason: full ? "files" : "bytes", request };
  }

  async release(id: string, files: number, bytes: number): Promise<void> {
    await this.sql`
      UPDATE upload_requests
      SET files = GREATEST(0, files - ${files}), bytes = GREATEST(0, bytes - ${bytes})
      WHERE id = ${id}`;
  }

  async grantAccess(id: string, key: string, expiresAt: Date, now: Date): Promise<void> {
    await this.sql.begin(async (tx) => {
      await tx`DELETE FROM upload_request_access WHERE request_id = ${id} AND expires_at < ${now}`;
      await tx`INSERT INTO upload_request_access (request_id, key, expires_at)
        SELECT ${id}, ${key}, ${expiresAt}
        WHERE EXISTS (SELECT 1 FROM upload_requests WHERE id = ${id})
        ON CONFLICT (request_id, key) DO UPDATE SET expires_at = EXCLUDED.expires_at`;
    });
  }

  async hasAccess(id: string, key: string, now: Date): Promise<boolean> {
    const [row] = await this.sql`SELECT 1 FROM upload_request_access
      WHERE request_id = ${id} AND key = ${key} AND expires_at > ${now}`;
    return row !== undefined;
  }
}
