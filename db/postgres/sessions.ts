/** Sessions on PostgreSQL: the `sessions` table. */
import type { Sql } from "postgres";
import type { SessionRecord, SessionStore, SignInMethod } from "../sessions.ts";

interface SessionRow {
  id: string;
  user_id: string;
  created_at: Date;
  expires_at: Date;
  last_seen_at: Date;
  method: SignInMethod;
  client: string;
  device: string;
  ua: string;
}

const toSession = (r: SessionRow): SessionRecord => ({
  id: r.id,
  userId: r.user_id,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastSeenAt: r.last_seen_at,
  method: r.method,
  client: r.client,
  device: r.device,
  ua: r.ua,
});

/** {@link SessionStore} on PostgreSQL. */
export class PostgresSessions implements SessionStore {
  constructor(private readonly sql: Sql) {}

  async create(s: SessionRecord): Promise<void> {
    await this.sql`INSERT INTO sessions ${
      this.sql({
        id: s.id,
        user_id: s.userId,
        created_at: s.createdAt,
        expires_at: s.expiresAt,
        last_seen_at: s.lastSeenAt,
        method: s.method,
        client: s.client,
        device: s.device,
        ua: s.ua,
      })
    }`;
  }

  async get(id: string): Promise<SessionRecord | null> {
    const [row] = await this.sql<SessionRow[]>`SELECT * FROM sessions WHERE id = ${id}`;
    return row ? toSession(row) : null;
  }

  async listByUser(userId: string): Promise<SessionRecord[]> {
    const rows = await this.sql<SessionRow[]>`
      SELECT * FROM sessions WHERE user_id = ${userId} ORDER BY created_at, id`;
    return rows.map(toSession);
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.sql`UPDATE sessions SET last_seen_at = ${at} WHERE id = ${id}`;
  }

  async delete(id: string): Promise<void> {
    await this.sql`DELETE FROM sessions WHERE id = ${id}`;
  }

  async deleteByUser(userId: string, keepId?: string): Promise<void> {
    await this.sql`DELETE FROM sessions
      WHERE user_id = ${userId} AND id IS DISTINCT FROM ${keepId ?? null}`;
  }
}
