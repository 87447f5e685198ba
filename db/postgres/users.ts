/**
 * Users on PostgreSQL: the `users` table, whose UNIQUE constraints refuse a
 * clash (`UniqueError`); a user's sessions, passkeys and OAuth links
 * go with it by `ON DELETE CASCADE`.
 */
import type postgres from "postgres";
import type { Sql, TransactionSql } from "postgres";
import type { UserPatch, UserRecord, UserStore } from "../users.ts";
import { uniqueViolation } from "./unique.ts";

interface UserRow {
  id: string;
  username: string;
  password: string | null;
  role: UserRecord["role"];
  avatar: string | null;
  token: string;
  totp_secret: string | null;
  view: Record<string, unknown>;
  quota: UserRecord["quota"];
  created_at: Date;
  updated_at: Date;
}

const toUser = (r: UserRow): UserRecord => ({
  id: r.id,
  username: r.username,
  password: r.password,
  role: r.role,
  avatar: r.avatar,
  token: r.token,
  totpSecret: r.totp_secret,
  view: r.view,
  quota: r.quota,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const USER_COLUMNS: Record<keyof UserPatch, string> = {
  username: "username",
  password: "password",
  role: "role",
  avatar: "avatar",
  token: "token",
  totpSecret: "totp_secret",
  view: "view",
  quota: "quota",
};

/** The user field a violated unique constraint guards (`users_username_key`: `username`). */
function userField(constraint: string | undefined): string {
  const field = constraint?.match(/^users_(\w+)_key$/)?.[1] ?? constraint ?? "id";
  return field === "pkey" ? "id" : field;
}

/** {@link UserStore} on PostgreSQL. */
export class PostgresUsers implements UserStore {
  constructor(private readonly sql: Sql) {}

  private insert(sql: TransactionSql, u: UserRecord) {
    return sql`INSERT INTO users ${
      sql({
        id: u.id,
        username: u.username,
        password: u.password,
        role: u.role,
        avatar: u.avatar,
        token: u.token,
        totp_secret: u.totpSecret,
        view: sql.json(u.view as postgres.JSONValue),
        quota: u.quota === null ? null : sql.json(u.quota as unknown as postgres.JSONValue),
        created_at: u.createdAt,
        updated_at: u.updatedAt,
      })
    }`;
  }

  async create(user: UserRecord): Promise<void> {
    try {
      await this.sql.begin(async (tx) => {
        await this.insert(tx, user);
        await tx`INSERT INTO meta (key, value) VALUES ('users_exist', 'true')
          ON CONFLICT (key) DO NOTHING`;
      });
    } catch (error) {
      throw uniqueViolation(error, userField);
    }
  }

  async createFirst(user: UserRecord): Promise<boolean> {
    try {
      return await this.sql.begin(async (tx) => {
        const won = await tx`INSERT INTO meta (key, value) VALUES ('users_exist', 'true')
          ON CONFLICT (key) DO NOTHING RETURNING key`;
        if (won.length === 0) return false;
        await this.insert(tx, user);
        return true;
      });
    } catch (error) {
      throw uniqueViolation(error, userField);
    }
  }

  async any(): Promise<boolean> {
    const rows = await this.sql`SELECT 1 FROM meta WHERE key = 'users_exist'`;
    return rows.length > 0;
  }

  async get(id: string): Promise<UserRecord | null> {
    const [row] = await this.sql<UserRow[]>`SELECT * FROM users WHERE id = ${id}`;
    return row ? toUser(row) : null;
  }

  async getByUsername(username: string): Promise<UserRecord | null> {
    const [row] = await this.sql<UserRow[]>`SELECT * FROM users WHERE username = ${username}`;
    return row ? toUser(row) : null;
  }

  async list(): Promise<UserRecord[]> {
    const rows = await this.sql<UserRow[]>`SELECT * FROM users ORDER BY created_at, id`;
    return rows.map(toUser);
  }

  async update(id: string, patch: UserPatch, now: Date): Promise<UserRecord | null> {
    const values: Record<string, unknown> = { updated_at: now };
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      const column = USER_COLUMNS[key as keyof UserPatch];
      values[column] = (key === "view" || key === "quota") && value !== null
        ? this.sql.json(value as postgres.JSONValue)
        : value;
    }
    try {
      const [row] = await this.sql<UserRow[]>`
        UPDATE users SET ${this.sql(values)} WHERE id = ${id} RETURNING *`;
      return row ? toUser(row) : null;
    } catch (error) {
      throw uniqueViolation(error, userField);
    }
  }

  async delete(id: string): Promise<UserRecord | null> {
    const [row] = await this.sql<UserRow[]>`DELETE FROM users WHERE id = ${id} RETURNING *`;
    return row ? toUser(row) : null;
  }
}
