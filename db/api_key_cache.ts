/**
 * The API key lookup of every request made with a key, through a one-second
 * cache, so that a busy key costs no store read per request (as the token's
 * user record does, `user_cache.ts`). The time comes from the caller's clock
 * (`now`), so a test moves a manual clock instead of sleeping. Every write
 * through this store clears the cache before and after it: this process
 * refuses a key it deleted at once, every other process within a second.
 */
import type { ApiKeyRecord, ApiKeyStore, ServingApiKeyStore } from "./api_keys.ts";
import { forgetAround } from "./fresh_cache.ts";

/** How long a looked-up key is used (ms). */
export const API_KEYS_FRESH_MS = 1000;
/** Lookups kept at most; the oldest go first. */
const MAX_ENTRIES = 10_000;

interface Entry {
  value: Promise<ApiKeyRecord | null>;
  /** When its load began (ms, the caller's clock). */
  since: number;
  /** The record, once it arrived. */
  settled?: ApiKeyRecord | null;
}

/** {@link ServingApiKeyStore} over a backend's {@link ApiKeyStore}. */
export class CachedApiKeys implements ServingApiKeyStore {
  readonly #entries = new Map<string, Entry>();

  constructor(private readonly keys: ApiKeyStore) {}

  findByHashCached(hash: string, now: number): Promise<ApiKeyRecord | null> {
    const hit = this.#entries.get(hash);
    if (hit && now >= hit.since && now - hit.since < API_KEYS_FRESH_MS) return hit.value;
    this.#entries.delete(hash);
    const entry: Entry = { value: this.keys.findByHash(hash), since: now };
    this.#entries.set(hash, entry);
    if (this.#entries.size > MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    entry.value.then((key) => entry.settled = key, () => {
      if (this.#entries.get(hash) === entry) this.#entries.delete(hash);
    });
    return entry.value;
  }

  async markUsed(key: ApiKeyRecord, at: Date): Promise<void> {
    const cached = this.#entries.get(key.hash)?.settled;
    if (cached?.id === key.id) cached.lastUsedAt = at;
    key.lastUsedAt = at;
    await this.keys.touch(key.id, at);
  }

  forget(): void {
    this.#entries.clear();
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
