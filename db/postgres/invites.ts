/** Invites on PostgreSQL: a unique code column and conditional updates for uses. */
import type { Sql } from "postgres";
import type { InviteRecord, InviteStore } from "../invites.ts";
import { UniqueError } from "../errors.ts";

interface InviteRow {
  id: string;
  code: string;
  expires_at: Date | null;
  uses: number;
  max_uses: number | null;
  inviter_id: string;
  created_at: Date;
  updated_at: Date;
}

const toInvite = (r: InviteRow): InviteRecord => ({
  id: r.id,
  code: r.code,
  expiresAt: r.expires_at,
  uses: r.uses,
  maxUses: r.max_uses,
  inviterId: r.inviter_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** {@link InviteStore} on PostgreSQL. */
export class PostgresInvites implements InviteStore {
  constructor(private readonly sql: Sql) {}

  async create(i: InviteRecord): Promise<void> {
    const won = await this.sql`INSERT INTO invites ${
      this.sql({
        id: i.id,
        code: i.code,
        expires_at: i.expiresAt,
        uses: i.uses,
        max_uses: i.maxUses,
        inviter_id: i.inviterId,
        created_at: i.createdAt,
        updated_at: i.updatedAt,
      })
    } ON CONFLICT (code) DO NOTHING RETURNING id`;
    if (won.length === 0) throw new UniqueError("code");
  }

  async get(id: string): Promise<InviteRecord | null> {
    const [row] = await this.sql<InviteRow[]>`SELECT * FROM invites WHERE id = ${id}`;
    return row ? toInvite(row) : null;
  }

  async getByCode(code: string): Promise<InviteRecord | null> {
    const [row] = await this.sql<InviteRow[]>`SELECT * FROM invites WHERE code = ${code}`;
    return row ? toInvite(row) : null;
  }

  async list(): Promise<InviteRecord[]> {
    const rows = await this.sql<InviteRow[]>`SELECT * FROM invites ORDER BY created_at, id`;
    return rows.map(toInvite);
  }

  async delete(id: string): Promise<InviteRecord | null> {
    const [row] = await this.sql<InviteRow[]>`DELETE FROM invites WHERE id = ${id} RETURNING *`;
    return row ? toInvite(row) : null;
  }

  async deleteByInviter(inviterId: string): Promise<number> {
    return (await this.sql`DELETE FROM invites WHERE inviter_id = ${inviterId}`).count;
  }

  async use(id: string, now: Date): Promise<InviteRecord | null> {
    const [row] = await this.sql<InviteRow[]>`
      UPDATE invites SET uses = uses + 1, updated_at = ${now}
      WHERE id = ${id} AND (expires_at IS NULL OR expires_at > ${now})
        AND (max_uses IS NULL OR uses < max_uses)
      RETURNING *`;
    return row ? toInvite(row) : null;
  }

  async release(id: string): Promise<void> {
    await this.sql`UPDATE invites SET uses = uses - 1 WHERE id = ${id} AND uses > 0`;
  }
}
