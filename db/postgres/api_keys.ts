/** API keys on PostgreSQL: `hash` is UNIQUE, and a user's deletion cascades to its keys. */
import type { Sql } from "postgres";
import type { ApiKeyRecord, ApiKeyStore } from "../api_keys.ts";
import { uniqueViolation } from "./unique.ts";

interface KeyRow {
  id: string;
  user_id: string;
  name: string;
  scopes: string[];
  hash: string;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
}

const toKey = (r: KeyRow): ApiKeyRecord => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  scopes: r.scopes,
  hash: r.hash,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastUsedAt: r.last_used_at,
});

/** {@link ApiKeyStore} on PostgreSQL. */
export class PostgresApiKeys implements ApiKeyStore {
  constructor(private readonly sql: Sql) {}

  async create(k: ApiKeyRecord): Promise<void> {
    try {
      await this.sql`INSERT INTO api_keys ${
        this.sql({
          id: k.id,
          user_id: k.userId,
          name: k.name,
          scopes: this.sql.array(k.scopes),
          hash: k.hash,
          created_at: k.createdAt,
          expires_at: k.expiresAt,
          last_used_at: k.lastUsedAt,
        })
      }`;
    } catch (error) {
      throw uniqueViolation(error, "hash");
    }
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    const [row] = await this.sql<KeyRow[]>`SELECT * FROM api_keys WHERE id = ${id}`;
    return row ? toKey(row) : null;
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | null> {
    const [row] = await this.sql<KeyRow[]>`SELECT * FROM api_keys WHERE hash = ${hash}`;
    return row ? toKey(row) : null;
  }

  async listByUser(userId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.sql<KeyRow[]>`
      SELECT * FROM api_keys WHERE user_id = ${userId} ORDER BY created_at, id`;
    return rows.map(toKey);
  }

  async rename(id: string, name: string): Promise<ApiKeyRecord | null> {
    const [row] = await this.sql<KeyRow[]>`
      UPDATE api_keys SET name = ${name} WHERE id = ${id} RETURNING *`;
    return row ? toKey(row) : null;
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.sql`UPDATE api_keys SET last_used_at = ${at} WHERE id = ${id}`;
  }

  async delete(id: string): Promise<ApiKeyRecord | null> {
    const [row] = await this.sql<KeyRow[]>`DELETE FROM api_keys WHERE id = ${id} RETURNING *`;
    return row ? toKey(row) : null;
  }

  async deleteByUser(userId: string): Promise<number> {
    const rows = await this.sql`DELETE FROM api_keys WHERE user_id = ${userId} RETURNING id`;
    return rows.length;
  }
}
