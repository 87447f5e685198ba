/**
 * The PostgreSQL backend (postgres.js): connecting, applying migrations, and
 * wiring one store per area over the connection pool (each in its own module
 * here). Uniqueness comes from the schema's UNIQUE constraints; multi-row
 * changes run in one transaction.
 */
import type { Sql, TransactionSql } from "postgres";
import type { Backend } from "../store.ts";
import { PostgresApiKeys } from "./api_keys.ts";
import { PostgresShares } from "./shares.ts";
import { PostgresVisits } from "./visits.ts";
import { PostgresUploadRequests } from "./upload_requests.ts";
import { PostgresChunks } from "./chunks.ts";
import { connectionLost, openClient } from "./client.ts";
import { PostgresFiles } from "./files.ts";
import { PostgresFolders } from "./folders.ts";
import { PostgresInvites } from "./invites.ts";
import { PostgresLeases } from "./leases.ts";
import { PostgresMetrics } from "./metrics.ts";
import { PostgresMfa } from "./mfa.ts";
import { currentVersion, migrate } from "./migrate.ts";
import { PostgresOauth } from "./oauth.ts";
import { PostgresRateLimits } from "./rate_limits.ts";
import { PostgresSessions } from "./sessions.ts";
import { PostgresSettings } from "./settings.ts";
import { PostgresTags } from "./tags.ts";
import { PostgresUrls } from "./urls.ts";
import { PostgresUserExports } from "./user_exports.ts";
import { PostgresUsers } from "./users.ts";
import { PostgresWebhooks } from "./webhooks.ts";

/** Connects to `url`, applies pending migrations, and returns the store. */
export async function openPostgresStore(url: string, options: { max?: number } = {}) {
  const sql = openClient(url, { max: options.max ?? 10 });
  try {
    await migrate(sql);
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  return new PostgresStore(sql, url);
}

/**
 * `tx` as an `Sql` whose `begin` runs inside it, for code made for
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

/** {@link Backend} on PostgreSQL. */
export class PostgresStore implements Backend {
  readonly kind = "postgres";
  readonly users: PostgresUsers;
  readonly sessions: PostgresSessions;
  readonly settings: PostgresSettings;
  readonly rateLimits: PostgresRateLimits;
  readonly files: PostgresFiles;
  readonly urls: PostgresUrls;
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
  readonly apiKeys: PostgresApiKeys;
  readonly shares: PostgresShares;
  readonly uploadRequests: PostgresUploadRequests;
  readonly visits: PostgresVisits;

  /**
   * `url`: the server's, when another thread may connect too (the visits
   * worker's writer); `inTransaction`: a {@link transaction}'s view (its
   * writes are not group-committed).
   */
  constructor(readonly sql: Sql, url: string | null = null, inTransaction = false) {
    this.users = new PostgresUsers(sql);
    this.sessions = new PostgresSessions(sql);
    this.settings = new PostgresSettings(sql);
    this.leases = new PostgresLeases(sql);
    this.rateLimits = new PostgresRateLimits(sql);
    this.files = new PostgresFiles(sql, !inTransaction);
    this.urls = new PostgresUrls(sql);
    this.invites = new PostgresInvites(sql);
    this.mfa = new PostgresMfa(sql);
    this.webhooks = new PostgresWebhooks(sql);
    this.oauth = new PostgresOauth(sql);
    this.metrics = new PostgresMetrics(sql);
    this.chunks = new PostgresChunks(sql);
    this.folders = new PostgresFolders(sql);
    this.tags = new PostgresTags(sql);
    this.userExports = new PostgresUserExports(sql);
    this.apiKeys = new PostgresApiKeys(sql);
    this.shares = new PostgresShares(sql);
    this.uploadRequests = new PostgresUploadRequests(sql);
    this.visits = new PostgresVisits(sql, url === null ? null : { kind: "postgres", url });
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
    await this.sql.end({ timeout: 5 });
  }

  /**
   * One transaction: the view's areas run on it, their own transactions
   * folded into it; any error rolls everything back.
   */
  async transaction<T>(fn: (view: Backend) => Promise<T>): Promise<T> {
    return await this.sql.begin((tx) => fn(new PostgresStore(nested(tx), null, true))) as T;
  }
}
