/**
 * The Store: every piece of state the service keeps, behind one interface with
 * two implementations, `kv/` (Deno KV, the embedded default) and `postgres/`.
 * Both pass `tests/contract/store_test.ts`. Uniqueness and multi-record
 * changes are enforced here, atomically, so that concurrent requests on any
 * number of server processes can never both win.
 */
import type { MfaStore } from "./mfa.ts";
import type { InviteStore } from "./invites.ts";
import type { CachedFiles } from "./cached_files.ts";
import type { SharedRateLimits } from "./rate_limits.ts";
import type { CachedUrlStore } from "./urls.ts";
import type { WebhookStore } from "./webhooks.ts";
import type { OauthStore } from "./oauth.ts";
import type { MetricStore } from "./metrics.ts";
import type { FolderStore } from "./folders.ts";
import type { TagStore } from "./tags.ts";
import type { UserExportStore } from "./user_exports.ts";
import type { ChunkStore } from "./chunks.ts";
import type { LeaseStore } from "./leases.ts";

/** User roles, lowest first. */
export const ROLES = ["USER", "ADMIN", "SUPERADMIN"] as const;
/** A user role. */
export type Role = typeof ROLES[number];

/** A user's quota; `null` fields mean no limit of that kind. */
export interface QuotaRecord {
  id: string;
  filesQuota: "BY_BYTES" | "BY_FILES" | "NONE";
  maxBytes: string | null;
  maxFiles: number | null;
  maxUrls: number | null;
}

/** A user as stored. Secrets (`password`, `token`, `totpSecret`) never leave the server. */
export interface UserRecord {
  id: string;
  username: string;
  /** PHC-format argon2 hash; `null` for accounts without a password. */
  password: string | null;
  role: Role;
  avatar: string | null;
  /** The stored API token; clients hold it encrypted with the server secret. */
  token: string;
  /** Encrypted TOTP secret, `null` while TOTP is off. */
  totpSecret: string | null;
  view: Record<string, unknown>;
  quota: QuotaRecord | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The fields of a user that an update may change. */
export type UserPatch = Partial<
  Pick<
    UserRecord,
    "username" | "password" | "role" | "avatar" | "token" | "totpSecret" | "view" | "quota"
  >
>;

/** A login session. The cookie holds a secret; `id` is its SHA-256, so a store leak gives no sessions. */
export interface SessionRecord {
  id: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
  /** When the session last made a request, to within a few minutes (`core/sessions.ts`). */
  lastSeenAt: Date;
  client: string;
  device: string;
  ua: string;
}

/** Everything the service persists. */
export interface Store {
  /** Rate-limit counters. */
  readonly rateLimits: SharedRateLimits;
  /** File records and per-user usage counters, with serving's cached name lookup. */
  readonly files: CachedFiles;
  /** Short URLs, through the redirect's cache and view batch (`url_cache.ts`). */
  readonly urls: CachedUrlStore;
  /** Invites. */
  readonly invites: InviteStore;
  /** Passkeys, WebAuthn challenges and TOTP replay protection. */
  readonly mfa: MfaStore;
  /** The webhook outbox. */
  readonly webhooks: WebhookStore;
  /** OAuth links of users. */
  readonly oauth: OauthStore;
  /** Metrics snapshots. */
  readonly metrics: MetricStore;
  /** Chunked uploads in progress. */
  readonly chunks: ChunkStore;
  /** Background task leases. */
  readonly leases: LeaseStore;
  /** Users' folder trees. */
  readonly folders: FolderStore;
  /** Users' tags and their links to files. */
  readonly tags: TagStore;
  /** Users' exports of their files. */
  readonly userExports: UserExportStore;

  /** `"kv"` or `"postgres"`, for logs and status. */
  readonly kind: "kv" | "postgres";
  /** Throws when the store cannot be reached. */
  ping(): Promise<void>;
  /**
   * `true` when `error` says the store cannot be reached for now (down,
   * restarting, refusing or dropping connections): the request may succeed
   * later, so it answers 503 rather than 500.
   */
  unavailable(error: unknown): boolean;
  /** The schema version the store is at. */
  schemaVersion(): Promise<number>;
  /** Releases connections and handles. */
  close(): Promise<void>;
  /**
   * Runs `fn` with a view of this store whose writes all land or none do: a
   * transaction on PostgreSQL, a journal of undoable writes on Deno KV (see
   * `kv/journal.ts`, which also says what concurrent readers see). For
   * changes too large for one atomic write, such as imports. The view is
   * valid only while `fn` runs and must not be closed.
   */
  transaction<T>(fn: (store: Store) => Promise<T>): Promise<T>;

  /**
   * Adds a user; throws {@link UniqueError} (`username` or `token`) on a clash.
   * Tokens are looked up by the user id they carry (`core/tokens.ts`); the
   * store only keeps them unique.
   */
  createUser(user: UserRecord): Promise<void>;
  /**
   * Adds `user` only if no user was ever created (first-run setup). Returns
   * `false`, writing nothing, when one already was; atomic across processes.
   */
  createFirstUser(user: UserRecord): Promise<boolean>;
  /** `true` once any user has been created. */
  hasUsers(): Promise<boolean>;
  /** The user with this id, or `null`. */
  getUser(id: string): Promise<UserRecord | null>;
  /**
   * {@link Store.getUser} as answered at most a second ago (every user write
   * through this store clears it): who an authenticated request is.
   */
  getUserCached(id: string): Promise<UserRecord | null>;
  /** The user with exactly this username, or `null`. */
  getUserByUsername(username: string): Promise<UserRecord | null>;
  /** Every user, oldest first. */
  listUsers(): Promise<UserRecord[]>;
  /**
   * {@link Store.listUsers} as answered at most a second ago (every user
   * write through this store clears it): the administrators' list.
   */
  listUsersCached(): Promise<UserRecord[]>;
  /**
   * Applies `patch` and bumps `updatedAt` to `now`; returns the new record, or
   * `null` when the user does not exist. Throws {@link UniqueError} on a clash.
   */
  updateUser(id: string, patch: UserPatch, now: Date): Promise<UserRecord | null>;
  /** Removes the user, its sessions and its passkeys; returns the removed record or `null`. */
  deleteUser(id: string): Promise<UserRecord | null>;

  /** Adds a session. */
  createSession(session: SessionRecord): Promise<void>;
  /** The session with this id, or `null` (expired ones included: the caller checks). */
  getSession(id: string): Promise<SessionRecord | null>;
  /** A user's sessions, oldest first; ones past `expiresAt` may be among them (the caller checks). */
  listSessions(userId: string): Promise<SessionRecord[]>;
  /** Records that the session made a request at `at` (nothing when it is gone). */
  touchSession(id: string, at: Date): Promise<void>;
  /** Removes one session. */
  deleteSession(id: string): Promise<void>;
  /** Removes every session of the user except `keepId`. */
  deleteUserSessions(userId: string, keepId?: string): Promise<void>;

  /** The stored settings values (only keys ever written). */
  getSettings(): Promise<Record<string, unknown>>;
  /**
   * Writes the given keys atomically; other keys keep their values. In the
   * same atomic write it bumps the settings version and, when given, adds the
   * audit record (whose id is the new version). Returns the new version.
   */
  updateSettings(values: Record<string, unknown>, audit?: SettingsAuditDraft): Promise<number>;
  /** Settings audit records, newest first, at most `limit`, before an id or a time. */
  listSettingsAudit(options: SettingsAuditQuery): Promise<SettingsAuditRecord[]>;
  /**
   * Calls `onChange` soon (within seconds) after any process changes the
   * settings, and at least once after watching starts; returns a function
   * that stops watching.
   */
  watchSettings(onChange: () => void): () => void;
}

/** One key's change as the audit trail keeps it; secret values are already masked. */
export interface SettingChange {
  key: string;
  old: unknown;
  new: unknown;
}

/** One settings change by one user. `id` is the settings version the change produced. */
export interface SettingsAuditRecord {
  id: number;
  at: Date;
  userId: string;
  username: string;
  changes: SettingChange[];
}

/** An audit record before the store numbers it. */
export type SettingsAuditDraft = Omit<SettingsAuditRecord, "id">;

/** Which audit records to list: `before` is an id (exclusive) or a time (exclusive). */
export interface SettingsAuditQuery {
  limit: number;
  before?: number | Date;
}
