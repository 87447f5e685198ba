/**
 * The PostgreSQL store (postgres.js). Uniqueness comes from the schema's
 * UNIQUE constraints; multi-row changes run in one transaction.
 */
import postgres, { type Sql, type TransactionSql } from "postgres";
import {
  type SessionRecord,
  type SettingChange,
  type SettingsAuditDraft,
  type SettingsAuditQuery,
  type SettingsAuditRecord,
  type SignInMethod,
  type Store,
  type UserPatch,
  type UserRecord,
} from "../store.ts";
import { PostgresMfa } from "./mfa.ts";
import { PostgresInvites } from "./invites.ts";
import { PostgresUserExports } from "./user_exports.ts";
import { PostgresFiles } from "./files.ts";
import { CachedFiles } from "../cached_files.ts";
import { UserCache } from "../user_cache.ts";
import { CachedApiKeys } from "../api_key_cache.ts";
import { PostgresApiKeys } from "./api_keys.ts";
import { PostgresRateLimits } from "./rate_limits.ts";
import { OwnedRateLimits } from "../rate_limit_owner.ts";
import { PostgresUrls } from "./urls.ts";
import { CachedUrls } from "../url_cache.ts";
import { PostgresWebhooks } from "./webhooks.ts";
import { PostgresOauth } from "./oauth.ts";
import { PostgresMetrics } from "./metrics.ts";
import { PostgresChunks } from "./chunks.ts";
import { PostgresLeases } from "./leases.ts";
import { PostgresFolders } from "./folders.ts";
import { PostgresTags } from "./tags.ts";
import { currentVersion, migrate } from "./migrate.ts";
import { uniqueViolation } from "./unique.ts";
import { selfHealingClient } from "./client.ts";

/**
 * Seconds before the next attempt to open a connection after `attempt`
 * failures in a row: 0.05, 0.1, 0.2… and at most 1. postgres.js's own delay
 * grows to 20 s, and queries wait for it: after a few seconds of outage a
 * restarted server went unused for 8–16 s (bench/results/soak.md).
 */
export function reconnectDelay(attempt: number): number {
  return Math.min(0.05 * 2 ** attempt, 1);
}

/** Connects to `url`, applies pending migrations, and returns the store. */
export async function openPostgresStore(url: string, options: { max?: number } = {}) {
  const sql = selfHealingClient(() =>
    postgres(url, {
      max: options.max ?? 10,
      onnotice: () => {},
      connection: { application_name: "ferry" },
      backoff: reconnectDelay,
    })
  );
  try {
    await migrate(sql);
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  return new PostgresStore(sql);
}

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

/** The user field a violated unique constraint guards (`users_username_key`: `username`). */
function userField(constraint: string | undefined): string {
  const field = constraint?.match(/^users_(\w+)_key$/)?.[1] ?? constraint ?? "id";
  return field === "pkey" ? "id" : field;
}

/**
 * `tx` as an `Sql` whose `begin` runs inside it, for code written against
 * `Sql`. Not a savepoint: an error aborts the whole transaction, which is what
 * its all-or-nothing callers want, and thousands of savepoints (subtransactions)
 * in one transaction make PostgreSQL slow down sharply.
 */
function nested(tx: TransactionSql): Sql {
  return new Proxy(tx, {
    get(target, prop) {
      if (prop === "begin") return (fn: (tx: TransactionSql) => unknown) => fn(target);
      return Reflect.get(target, prop, target);
    },
  }) as unknown as Sql;
}

/** {@link Store} on PostgreSQL. */
export class PostgresStore implements Store {
  readonly kind = "postgres";
  readonly rateLimits: OwnedRateLimits;
  readonly files: CachedFiles;
  private readonly users = new UserCache();
  readonly urls: CachedUrls;
  readonly invites: PostgresInvites;
  readonly mfa: PostgresMfa;
  readonly webhooks: PostgresWebhooks;
  readonly oauth: PostgresOauth;
  readonly metrics: PostgresMetrics;
  readonly chunks: PostgresChunks;
  readonly leases: PostgresLeases;
  readonly folders: PostgresFolders;
  readonly tags: PostgresTags;
  readonly userExports: PostgresUserExports;
  readonly apiKeys: CachedApiKeys;

  constructor(readonly sql: Sql) {
    this.leases = new PostgresLeases(sql);
    this.rateLimits = new OwnedRateLimits(new PostgresRateLimits(sql), this.leases);
    this.files = new CachedFiles(new PostgresFiles(sql));
    this.urls = new CachedUrls(new PostgresUrls(sql));
    this.invites = new PostgresInvites(sql);
    this.mfa = new PostgresMfa(sql);
    this.webhooks = new PostgresWebhooks(sql);
    this.oauth = new PostgresOauth(sql);
    this.metrics = new PostgresMetrics(sql);
    this.chunks = new PostgresChunks(sql);
    this.folders = new PostgresFolders(sql);
    this.tags = new PostgresTags(sql);
    this.userExports = new PostgresUserExports(sql);
    this.apiKeys = new CachedApiKeys(new PostgresApiKeys(sql));
  }

  async ping(): Promise<void> {
    await this.sql`SELECT 1`;
  }

  unavailable(error: unknown): boolean {
    return connectionLost(error);
  }

  async schemaVersion(): Promise<number> {
    return await currentVersion(this.sql);
  }

  async close(): Promise<void> {
    await this.rateLimits.close();
    await this.urls.close();
    await this.sql.end({ timeout: 5 });
  }

  /**
   * One transaction: the view's sub-stores run on it, their own transactions
   * folded into it; any error rolls everything back.
   */
  async transaction<T>(fn: (store: Store) => Promise<T>): Promise<T> {
    try {
      return await this.sql.begin((tx) => fn(new PostgresStore(nested(tx)))) as T;
    } finally {
      // The view wrote around this store's caches.
      this.files.forget();
      this.urls.forget();
      this.users.forget();
      this.apiKeys.forget();
    }
  }

  private insertUser(sql: TransactionSql, u: UserRecord) {
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

  createUser(user: UserRecord): Promise<void> {
    return this.users.written(() => this.storeUser(user));
  }

  private async storeUser(user: UserRecord): Promise<void> {
    try {
      await this.sql.begin(async (tx) => {
        await this.insertUser(tx, user);
        await tx`INSERT INTO meta (key, value) VALUES ('users_exist', 'true')
          ON CONFLICT (key) DO NOTHING`;
      });
    } catch (error) {
      throw uniqueViolation(error, userField);
    }
  }

  createFirstUser(user: UserRecord): Promise<boolean> {
    return this.users.written(() => this.storeFirstUser(user));
  }

  private async storeFirstUser(user: UserRecord): Promise<boolean> {
    try {
      return await this.sql.begin(async (tx) => {
        const won = await tx`INSERT INTO meta (key, value) VALUES ('users_exist', 'true')
          ON CONFLICT (key) DO NOTHING RETURNING key`;
        if (won.length === 0) return false;
        await this.insertUser(tx, user);
        return true;
      });
    } catch (error) {
      throw uniqueViolation(error, userField);
    }
  }

  async hasUsers(): Promise<boolean> {
    const rows = await this.sql`SELECT 1 FROM meta WHERE key = 'users_exist'`;
    return rows.length > 0;
  }

  async getUser(id: string): Promise<UserRecord | null> {
    const [row] = await this.sql<UserRow[]>`SELECT * FROM users WHERE id = ${id}`;
    return row ? toUser(row) : null;
  }

  getUserCached(id: string): Promise<UserRecord | null> {
    return this.users.record(id, () => this.getUser(id));
  }

  async getUserByUsername(username: string): Promise<UserRecord | null> {
    const [row] = await this.sql<UserRow[]>`SELECT * FROM users WHERE username = ${username}`;
    return row ? toUser(row) : null;
  }

  listUsersCached(): Promise<UserRecord[]> {
    return this.users.list(() => this.listUsers());
  }

  async listUsers(): Promise<UserRecord[]> {
    const rows = await this.sql<UserRow[]>`SELECT * FROM users ORDER BY created_at, id`;
    return rows.map(toUser);
  }

  updateUser(id: string, patch: UserPatch, now: Date): Promise<UserRecord | null> {
    return this.users.written(() => this.patchUser(id, patch, now));
  }

  private async patchUser(id: string, patch: UserPatch, now: Date): Promise<UserRecord | null> {
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

  deleteUser(id: string): Promise<UserRecord | null> {
    return this.users.written(() => this.removeUser(id));
  }

  private async removeUser(id: string): Promise<UserRecord | null> {
    const [row] = await this.sql<UserRow[]>`DELETE FROM users WHERE id = ${id} RETURNING *`;
    return row ? toUser(row) : null;
  }

  async createSession(s: SessionRecord): Promise<void> {
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

  async getSession(id: string): Promise<SessionRecord | null> {
    const [row] = await this.sql<SessionRow[]>`SELECT * FROM sessions WHERE id = ${id}`;
    return row ? toSession(row) : null;
  }

  async listSessions(userId: string): Promise<SessionRecord[]> {
    const rows = await this.sql<SessionRow[]>`
      SELECT * FROM sessions WHERE user_id = ${userId} ORDER BY created_at, id`;
    return rows.map(toSession);
  }

  async touchSession(id: string, at: Date): Promise<void> {
    await this.sql`UPDATE sessions SET last_seen_at = ${at} WHERE id = ${id}`;
  }

  async deleteSession(id: string): Promise<void> {
    await this.sql`DELETE FROM sessions WHERE id = ${id}`;
  }

  async deleteUserSessions(userId: string, keepId?: string): Promise<void> {
    await this.sql`DELETE FROM sessions
      WHERE user_id = ${userId} AND id IS DISTINCT FROM ${keepId ?? null}`;
  }

  async getSettings(): Promise<Record<string, unknown>> {
    const rows = await this.sql<{ key: string; value: unknown }[]>`SELECT key, value FROM settings`;
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }

  async updateSettings(values: Record<string, unknown>, audit?: SettingsAuditDraft) {
    return await this.sql.begin(async (tx) => {
      // The row lock on the version orders concurrent writers.
      const [{ version }] = await tx<{ version: number }[]>`
        UPDATE meta SET value = to_jsonb((value #>> '{}')::integer + 1)
        WHERE key = 'settings_version' RETURNING (value #>> '{}')::integer AS version`;
      for (const [key, value] of Object.entries(values)) {
        const json = tx.json((value ?? null) as postgres.JSONValue);
        await tx`INSERT INTO settings (key, value) VALUES (${key}, ${json})
          ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`;
      }
      if (audit) {
        await tx`INSERT INTO settings_audit ${
          tx({
            id: version,
            at: audit.at,
            user_id: audit.userId,
            username: audit.username,
            changes: tx.json(audit.changes as unknown as postgres.JSONValue),
          })
        }`;
      }
      await tx`SELECT pg_notify(${PostgresStore.SETTINGS_CHANNEL}, ${String(version)})`;
      return version;
    });
  }

  async listSettingsAudit({ limit, before }: SettingsAuditQuery) {
    const where = typeof before === "number"
      ? this.sql`WHERE id < ${before}`
      : before instanceof Date
      ? this.sql`WHERE at < ${before}`
      : this.sql``;
    const rows = await this.sql<
      { id: number; at: Date; user_id: string; username: string; changes: SettingChange[] }[]
    >`SELECT * FROM settings_audit ${where} ORDER BY id DESC LIMIT ${limit}`;
    return rows.map((r): SettingsAuditRecord => ({
      id: r.id,
      at: r.at,
      userId: r.user_id,
      username: r.username,
      changes: r.changes,
    }));
  }

  /** LISTEN on a dedicated connection; `onChange` also runs on each (re)connect, for missed notifications. */
  watchSettings(onChange: () => void): () => void {
    const listening = this.sql.listen(PostgresStore.SETTINGS_CHANNEL, onChange, onChange);
    return () => {
      listening.then((l) => l.unlisten()).catch(() => {});
    };
  }

  private static readonly SETTINGS_CHANNEL = "ferry_settings";
}

/** postgres.js's codes for a connection it could not open or lost. */
const LOST_CONNECTION = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

/**
 * `true` for an error that says the server is out of reach rather than the
 * query wrong: postgres.js's lost or unopened connection, SQLSTATE class 08
 * (connection exception), 57P01–57P03 (shut down, crashed, starting up) and
 * 53300 (too many connections). (A refused or reset socket carries the OS's
 * code, which the error handler treats alike for every service.)
 */
export function connectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  return LOST_CONNECTION.has(code) || code.startsWith("08") || /^57P0[123]$/.test(code) ||
    code === "53300";
}
