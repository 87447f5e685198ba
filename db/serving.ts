/**
 * The serving store: one room for the speed. A {@link Backend} only stores;
 * `servingStore(backend, clock)`, applied once where the store opens, puts
 * in front of it everything that makes the hot paths cheap, and nothing else:
 *
 * - files (`cached_files.ts`): public serving's name lookup (lists are read
 *   from each backend's indexes, never cached);
 * - URLs (`url_cache.ts`): the redirect's name lookup, views counted in batches;
 * - users (`user_cache.ts`): each caller's record and the administrators' list;
 * - API keys (`api_key_cache.ts`): the lookup of each request made with a key;
 * - folders (`folder_cache.ts`): whether a served file's folder is private;
 * - rate limits (`rate_limit_owner.ts`): counted in memory while this process
 *   counts alone, in the store while others count too.
 *
 * Each cache is a `FreshCache` (`fresh_cache.ts`) on `clock` (a second, bounded in entries
 * and bytes), and every write through the store forgets what it may have
 * changed, so this process never answers from what it changed itself, and
 * another process's change shows within a second. A write needs nothing else
 * to stay correct: going through the store is enough. The one way around the
 * caches, {@link Store.transaction}, hands out the plain backend and forgets
 * them all once when it ends.
 *
 * The other areas pass through as the backend has them.
 */
import { type Clock, systemTimer, type Timer } from "../core/clock.ts";
import { CachedApiKeys } from "./api_key_cache.ts";
import { CachedFiles } from "./cached_files.ts";
import { CachedFolders } from "./folder_cache.ts";
import { OwnedRateLimits } from "./rate_limit_owner.ts";
import type { Backend, Store } from "./store.ts";
import { CachedUrls } from "./url_cache.ts";
import { CachedUsers } from "./user_cache.ts";

/**
 * `backend` as the service uses it: its caches on `clock`, its rate limits
 * counted by an owner on `timer` (the real one unless a test moves its own).
 * Closing the store writes what waits (batched views, counts in memory) and
 * closes the backend.
 */
export function servingStore(backend: Backend, clock: Clock, timer: Timer = systemTimer): Store {
  const files = new CachedFiles(backend.files, clock);
  const urls = new CachedUrls(backend.urls, clock);
  const users = new CachedUsers(backend.users, clock);
  const apiKeys = new CachedApiKeys(backend.apiKeys, clock);
  const folders = new CachedFolders(backend.folders, clock);
  const rateLimits = new OwnedRateLimits(backend.rateLimits, backend.leases, timer);
  return {
    kind: backend.kind,
    users,
    files,
    urls,
    rateLimits,
    apiKeys,
    sessions: backend.sessions,
    settings: backend.settings,
    invites: backend.invites,
    mfa: backend.mfa,
    webhooks: backend.webhooks,
    oauth: backend.oauth,
    metrics: backend.metrics,
    chunks: backend.chunks,
    leases: backend.leases,
    folders,
    tags: backend.tags,
    userExports: backend.userExports,
    shares: backend.shares,
    uploadRequests: backend.uploadRequests,
    visits: backend.visits,
    ping: () => backend.ping(),
    unavailable: (error) => backend.unavailable(error),
    schemaVersion: () => backend.schemaVersion(),
    async close() {
      await rateLimits.close();
      await urls.close();
      await backend.close();
    },
    async transaction(fn) {
      try {
        return await backend.transaction(fn);
      } finally {
        // The view wrote around the caches.
        files.forget();
        urls.forget();
        users.forget();
        apiKeys.forget();
        folders.forget();
      }
    },
  };
}
