/**
 * The API key lookup of every request made with a key, as the serving store
 * (`serving.ts`) wraps a backend's {@link ApiKeyStore}: through a one-second
 * cache ({@link FreshCache}, on the serving store's clock), so that a busy key
 * costs no store read per request (as the token's user record does,
 * `user_cache.ts`). Every write through it clears the cache before and after
 * it: this process refuses a key it deleted at once, every other process
 * within a second.
 */
import type { Clock } from "../core/clock.ts";
import type { ApiKeyRecord, ApiKeyStore, ServingApiKeyStore } from "./api_keys.ts";
import { forgetAround, FreshCache } from "./fresh_cache.ts";

/** How long a looked-up key is used (ms). */
export const API_KEYS_FRESH_MS = 1000;

/** {@link ServingApiKeyStore} over a backend's {@link ApiKeyStore}. */
export class CachedApiKeys implements ServingApiKeyStore {
  readonly #lookups = new FreshCache<ApiKeyRecord | null>({
    ttlMs: API_KEYS_FRESH_MS,
    maxEntries: 10_000,
    maxBytes: 4 * 1024 * 1024,
  });

  constructor(private readonly keys: ApiKeyStore, private readonly clock: Clock) {}

  findByHashCached(hash: string): Promise<ApiKeyRecord | null> {
    return this.#lookups.get(hash, this.clock.now(), () => this.keys.findByHash(hash));
  }

  async markUsed(key: ApiKeyRecord, at: Date): Promise<void> {
    const cached = this.#lookups.peek(key.hash, this.clock.now())?.value;
    if (cached?.id === key.id) cached.lastUsedAt = at;
    key.lastUsedAt = at;
    await this.keys.touch(key.id, at);
  }

  /** Forgets every cached lookup: after writes that bypassed this store (a transaction's). */
  forget(): void {
    this.#lookups.clear();
  }

  /** Runs a write; what was looked up before it (or during it) is not used after it. */
  #written<T>(write: () => Promise<T>): Promise<T> {
    return forgetAround(() => this.forget(), write);
  }

  create(key: ApiKeyRecord): Promise<void> {
    return this.#written(() => this.keys.create(key));
  }

  get(id: string): Promise<ApiKeyRecord | null> {
    return this.keys.get(id);
  }

  findByHash(hash: string): Promise<ApiKeyRecord | null> {
    return this.keys.findByHash(hash);
  }

  listByUser(userId: string): Promise<ApiKeyRecord[]> {
    return this.keys.listByUser(userId);
  }

  rename(id: string, name: string): Promise<ApiKeyRecord | null> {
    return this.#written(() => this.keys.rename(id, name));
  }

  touch(id: string, at: Date): Promise<void> {
    return this.keys.touch(id, at);
  }

  delete(id: string): Promise<ApiKeyRecord | null> {
    return this.#written(() => this.keys.delete(id));
  }

  deleteByUser(userId: string): Promise<number> {
    return this.#written(() => this.keys.deleteByUser(userId));
  }
}
