/**
 * The Store: every piece of state the service keeps, in two layers.
 *
 * A {@link Backend} only stores: one per database, `kv/` (Deno KV, the
 * embedded default) and `postgres/`, each area behind its own interface
 * (`users.ts`, `files.ts`, …), and both held to one behaviour by the contract
 * suites in `tests/contract/`. Uniqueness and multi-record changes are
 * enforced there, atomically, so that concurrent requests on any number of
 * server processes can never both win.
 *
 * The {@link Store} the service works with is a backend behind the serving
 * store (`serving.ts`), applied once where the store opens: the same areas,
 * with the hot paths' read caches, the batched URL views and the rate-limit
 * owner in front. Every write through it keeps its caches true; nothing else
 * need know they exist.
 */
import type { ApiKeyStore, ServingApiKeyStore } from "./api_keys.ts";
import type { ChunkStore } from "./chunks.ts";
import type { FileStore, ServingFileStore } from "./files.ts";
import type { FolderStore, ServingFolderStore } from "./folders.ts";
import type { InviteStore } from "./invites.ts";
import type { LeaseStore } from "./leases.ts";
import type { MetricStore } from "./metrics.ts";
import type { MfaStore } from "./mfa.ts";
import type { OauthStore } from "./oauth.ts";
import type { RateLimitBackend, SharedRateLimits } from "./rate_limits.ts";
import type { SessionStore } from "./sessions.ts";
import type { SettingsStore } from "./settings.ts";
import type { ShareStore } from "./shares.ts";
import type { TagStore } from "./tags.ts";
import type { ServingUrlStore, UrlStore } from "./urls.ts";
import type { UploadRequestStore } from "./upload_requests.ts";
import type { UserExportStore } from "./user_exports.ts";
import type { VisitStore } from "./visits.ts";
import type { VisitBatchWriter } from "./visit_batch.ts";
import type { ServingUserStore, UserStore } from "./users.ts";
import type { WebhookStore } from "./webhooks.ts";

/** The areas the serving store passes through as the backend has them. */
export interface PlainAreas {
  /** Login sessions. */
  readonly sessions: SessionStore;
  /** The settings values and their audit trail. */
  readonly settings: SettingsStore;
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
  /** Users' tags and their links to files. */
  readonly tags: TagStore;
  /** Users' exports of their files. */
  readonly userExports: UserExportStore;
  /** Users' share links to their files and folders. */
  readonly shares: ShareStore;
  /** Users' upload requests: links that let anyone send them files. */
  readonly uploadRequests: UploadRequestStore;
  /** Visits of short URLs and files, raw and rolled up per hour. */
  readonly visits: VisitStore & VisitBatchWriter;

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
   * Runs `fn` with a plain view of the backend whose writes all land or none
   * do: a transaction on PostgreSQL, a journal of undoable writes on Deno KV
   * (see `kv/journal.ts`, which also says what concurrent readers see). For
   * changes too large for one atomic write, such as imports. The view is
   * valid only while `fn` runs and must not be closed.
   */
  transaction<T>(fn: (view: Backend) => Promise<T>): Promise<T>;
}

/** What one database stores: every area, plain (`kv/mod.ts`, `postgres/mod.ts`). */
export interface Backend extends PlainAreas {
  /** Users. */
  readonly users: UserStore;
  /** File records and per-user usage counters. */
  readonly files: FileStore;
  /** Short URLs. */
  readonly urls: UrlStore;
  /** Rate-limit windows, only added to. */
  readonly rateLimits: RateLimitBackend;
  /** Users' scoped API keys. */
  readonly apiKeys: ApiKeyStore;
  /** Users' folder trees. */
  readonly folders: FolderStore;
}

/** Everything the service persists, as it reads and writes it: a backend behind `serving.ts`. */
export interface Store extends PlainAreas {
  /** Users, with the authenticated caller's record and the user list cached. */
  readonly users: ServingUserStore;
  /** File records and per-user usage counters, with serving's cached name lookup. */
  readonly files: ServingFileStore;
  /** Short URLs, with the redirect's cached name lookup and batched views. */
  readonly urls: ServingUrlStore;
  /** Rate-limit counters, counted in memory while this process counts alone. */
  readonly rateLimits: SharedRateLimits;
  /** Users' scoped API keys, with the request's cached lookup (`api_key_cache.ts`). */
  readonly apiKeys: ServingApiKeyStore;
  /** Users' folder trees, with public serving's cached read (`folder_cache.ts`). */
  readonly folders: ServingFolderStore;
}
