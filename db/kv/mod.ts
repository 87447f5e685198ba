/**
 * The Deno KV backend, the embedded default: opening the database, bringing
 * its schema up to date, undoing what stopped imports left, and wiring one
 * store per area over it (each in its own module here).
 */
import type { Backend } from "../store.ts";
import { KvApiKeys } from "./api_keys.ts";
import { KvShares } from "./shares.ts";
import { dropSeenMarks, KvVisits } from "./visits.ts";
import { KvUploadRequests } from "./upload_requests.ts";
import { KvChunks } from "./chunks.ts";
import { KvFiles, OWNER_COPIES } from "./files.ts";
import { backfillFileStats } from "./file_stats.ts";
import { backfillFileBlocks, backfillFileIndex } from "./file_index.ts";
import { fillFences } from "./file_fences.ts";
import { fillFenceGroups } from "./file_fence_groups.ts";
import { buildOrders } from "./order_backlog.ts";
import { upgradeSearchIndex } from "./file_search.ts";
import { backfillTaskIndex } from "./file_tasks.ts";
import { backfillViewIndex } from "./file_views.ts";
import { KvFolders } from "./folders.ts";
import { KvInvites } from "./invites.ts";
import { journaled, recoverJournals } from "./journal.ts";
import { BacklogBuilder } from "./search_backlog.ts";
import { KvLeases } from "./leases.ts";
import { KvMetrics } from "./metrics.ts";
import { KvMfa } from "./mfa.ts";
import { KvOauth } from "./oauth.ts";
import { patient } from "./patient.ts";
import { KvRateLimits } from "./rate_limits.ts";
import { KvSessions } from "./sessions.ts";
import { KvSettings } from "./settings.ts";
import { backfillTagScopes, KvTags, listFileTags } from "./tags.ts";
import {
  backfillUrlAges,
  backfillUrlCopies,
  backfillUrlLimits,
  backfillUrlOrphans,
  KvUrls,
  packUrlChunks,
} from "./urls.ts";
import { KvUserExports } from "./user_exports.ts";
import { KvUsers } from "./users.ts";
import { KvWebhooks } from "./webhooks.ts";

/**
 * The KV schema version this code writes. 2: a file's tag links are one list
 * (`listFileTags`, `./tags.ts`), no longer one key per link. 3: each owner's
 * file statistics are counters (`./file_stats.ts`), filled from the files
 * already stored. 4: each owner's files are indexed in every order the files
 * list offers (`./file_index.ts`) and each owner's URLs oldest first
 * (`./urls.ts`), filled from the files and URLs already stored. 5: the search
 * index of names, original names and types (`./file_search.ts`), filled from
 * the files already stored. 6: the search index keeps a name's suffixes at
 * even positions only, half the keys (schema 5's removed, the new ones filled
 * from the files stored; schema 5's own fill is skipped from older schemas).
 * 7: the cleaning tasks' index of files (`./file_tasks.ts`: expiry, exhausted
 * views, pending, thumbnails), filled from the files already stored. 8: an
 * import's files get their search keys after it (`./search_backlog.ts`),
 * listed meanwhile (nothing to fill: no store of an earlier schema lists
 * any; schema 7's code would not see the lists). 9: the URLs with a view
 * limit are listed (`./urls.ts`, for the maxviews task), filled from the
 * URLs already stored. 10: the files list's index has counts per block of
 * the newest-first order (`./file_blocks.ts`, deep pages), filled from the
 * files already stored. 11: unique visitors are HyperLogLog sketches per
 * roll-up hour (`./visits.ts`), the visitor marks that counted them before
 * removed (`dropSeenMarks`; roll-up hours already written keep their exact
 * counts). 14: each owned URL has copies of its record and views in its
 * owner's oldest-first order (the URL list reads them) and each owner a views
 * total (`./urls.ts`, the statistics), filled from the URLs already stored
 * (12 and 13: kept for other changes). 15: the files list's index has counts
 * per block of entries cut by fences in every order but newest first
 * (`./file_fences.ts`, deep pages), filled from the entries stored (the
 * uploads' entries left to the build built first, as schema 14's code
 * wrote them). 16: the URLs without an owner have an index, a count and a
 * views total (`./urls.ts`, the metrics task), filled from the URLs already
 * stored. 18: a removed file's name and original-name search keys are
 * removed after it, noted for a sweep (`./search_sweep.ts`; nothing to
 * fill: no earlier schema's code notes any, and none would sweep them).
 * 19: each tag is a scope of the files list's index (`tag:<id>`,
 * `./file_index.ts`, kept by `./tags.ts`: a tag's page reads a page of
 * entries), filled from the tag links stored (`backfillTagScopes`).
 * 20: the viewed files have an index, most viewed first (`./file_views.ts`,
 * the statistics page), filled from the files already stored.
 * 21: each owner's URL records are packed in chunks in its oldest-first
 * order (`./url_chunks.ts`, the URL list), from the copies schema 14 made,
 * which go. 22: the fences of the files list's index have a second level of
 * counts, groups of fences (`./file_fence_groups.ts`, deep pages), filled
 * from the fences stored. Each upgrade resumes where a stopped one left off.
 */
export const KV_SCHEMA_VERSION = 22;

const SCHEMA_VERSION: Deno.KvKey = ["meta", "schema_version"];

/** Opens (creating when needed) the KV database at `path` (`:memory:` for tests). */
export async function openKvStore(path?: string): Promise<KvStore> {
  const kv = patient(await Deno.openKv(path));
  const version = await kv.get<number>(SCHEMA_VERSION);
  if (version.value === null) await kv.set(SCHEMA_VERSION, KV_SCHEMA_VERSION);
  else if (version.value > KV_SCHEMA_VERSION) {
    kv.close();
    throw new Error(`the KV database is at schema ${version.value}, newer than this program`);
  } else if (version.value < KV_SCHEMA_VERSION) {
    if (version.value < 2) await listFileTags(kv);
    if (version.value < 3) await backfillFileStats(kv, OWNER_COPIES);
    if (version.value < 4) {
      await backfillFileIndex(kv);
      await backfillUrlAges(kv);
    }
    if (version.value < 6) await upgradeSearchIndex(kv, OWNER_COPIES);
    if (version.value < 7) await backfillTaskIndex(kv);
    if (version.value < 9) await backfillUrlLimits(kv);
    // Schema 4's index backfill counts its entries' blocks itself.
    if (version.value >= 4 && version.value < 10) await backfillFileBlocks(kv);
    if (version.value < 11) await dropSeenMarks(kv);
    if (version.value < 14) await backfillUrlCopies(kv);
    if (version.value < 15) {
      while (await buildOrders(kv, { split: false }) > 0) {
        // the uploads' other entries first: the fill counts them
      }
      await fillFences(kv);
    }
    if (version.value < 16) await backfillUrlOrphans(kv);
    if (version.value < 19) await backfillTagScopes(kv);
    if (version.value < 20) await backfillViewIndex(kv);
    if (version.value < 21) await packUrlChunks(kv);
    // After schema 15's fill of the fences, when there was one.
    if (version.value < 22) await fillFenceGroups(kv);
    await kv.set(SCHEMA_VERSION, KV_SCHEMA_VERSION);
  }
  await recoverJournals(kv);
  const shared = path === undefined || path === ":memory:" ? null : path;
  const store = new KvStore(kv, new BacklogBuilder(kv), shared);
  // Search keys an import left to build (a process that stopped before it was done).
  store.backlog?.poke();
  return store;
}

/** {@link Backend} on Deno KV. */
export class KvStore implements Backend {
  readonly kind = "kv";
  readonly users: KvUsers;
  readonly sessions: KvSessions;
  readonly settings: KvSettings;
  readonly rateLimits: KvRateLimits;
  readonly files: KvFiles;
  readonly urls: KvUrls;
  readonly invites: KvInvites;
  readonly mfa: KvMfa;
  readonly webhooks: KvWebhooks;
  readonly oauth: KvOauth;
  readonly metrics: KvMetrics;
  readonly chunks: KvChunks;
  readonly leases: KvLeases;
  readonly folders: KvFolders;
  readonly tags: KvTags;
  readonly userExports: KvUserExports;
  readonly apiKeys: KvApiKeys;
  readonly shares: KvShares;
  readonly uploadRequests: KvUploadRequests;
  readonly visits: KvVisits;

  /**
   * `backlog` builds imported files' search keys in the background (the
   * store's own, not a transaction's view of it); `path` is `kv`'s file,
   * when another thread may open it too (the visits worker's writer).
   */
  constructor(
    private readonly kv: Deno.Kv,
    readonly backlog?: BacklogBuilder,
    path: string | null = null,
  ) {
    this.sessions = new KvSessions(kv);
    this.settings = new KvSettings(kv);
    this.mfa = new KvMfa(kv);
    this.oauth = new KvOauth(kv);
    this.users = new KvUsers(kv, { sessions: this.sessions, mfa: this.mfa, oauth: this.oauth });
    this.leases = new KvLeases(kv);
    this.rateLimits = new KvRateLimits(kv);
    this.files = new KvFiles(kv, backlog);
    this.urls = new KvUrls(kv);
    this.invites = new KvInvites(kv);
    this.webhooks = new KvWebhooks(kv);
    this.metrics = new KvMetrics(kv);
    this.chunks = new KvChunks(kv);
    this.folders = new KvFolders(kv);
    this.tags = new KvTags(kv);
    this.userExports = new KvUserExports(kv);
    this.apiKeys = new KvApiKeys(kv);
    this.shares = new KvShares(kv);
    this.uploadRequests = new KvUploadRequests(kv);
    this.visits = new KvVisits(kv, path === null ? null : { kind: "kv", path });
  }

  async ping(): Promise<void> {
    await this.kv.get(SCHEMA_VERSION);
  }

  /** A Deno KV database is opened in-process: it has no connection to lose. */
  unavailable(): boolean {
    return false;
  }

  async schemaVersion(): Promise<number> {
    return (await this.kv.get<number>(SCHEMA_VERSION)).value ?? 0;
  }

  /** Stops the builds of search keys and list entries at their next commit first. */
  async close(): Promise<void> {
    await this.backlog?.stop();
    this.kv.close();
  }

  /**
   * Writes every search key an import or upload left to build
   * (`./search_backlog.ts`), and every list entry uploads left
   * (`./order_backlog.ts`): the bench, tests.
   */
  async buildSearchKeys(): Promise<void> {
    await this.backlog?.drain();
  }

  /**
   * First undoes what imports of stopped processes left behind
   * (`recoverJournals`); the build of search keys takes no list while it
   * runs (the import's lists are built once committed).
   */
  async transaction<T>(fn: (view: Backend) => Promise<T>): Promise<T> {
    await this.backlog?.hold();
    try {
      await recoverJournals(this.kv);
      return await journaled(this.kv, (view) => fn(new KvStore(view)));
    } finally {
      this.backlog?.release();
    }
  }
}
