/**
 * Scoped API keys (`core/api_keys.ts`): a user's named keys, each with the
 * scopes it may use and an optional expiry. The store keeps the SHA-256 of a
 * key, never the key, and finds a key by that hash in one read.
 */

/** One API key as stored. */
export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  /** The scopes it may use (`core/api_keys.ts`), in the order given. */
  scopes: string[];
  /** SHA-256 of the key (base64url); unique. */
  hash: string;
  createdAt: Date;
  /** `null`: never expires. */
  expiresAt: Date | null;
  /** When it last authenticated a request, to within a minute; `null`: never. */
  lastUsedAt: Date | null;
}

/** A user's API keys, as each backend stores them. */
export interface ApiKeyStore {
  /** Adds a key; throws `UniqueError("hash")` when its hash is taken. */
  create(key: ApiKeyRecord): Promise<void>;
  /** The key with this id, or `null`. */
  get(id: string): Promise<ApiKeyRecord | null>;
  /** The key with this hash, or `null`: the lookup of every request made with a key. */
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  /** A user's keys, oldest first. */
  listByUser(userId: string): Promise<ApiKeyRecord[]>;
  /** Renames key `id`; the new record, or `null` when there is none. */
  rename(id: string, name: string): Promise<ApiKeyRecord | null>;
  /** Records that key `id` was used at `at` (nothing when it is gone). */
  touch(id: string, at: Date): Promise<void>;
  /** Removes key `id`; the removed record, or `null`. */
  delete(id: string): Promise<ApiKeyRecord | null>;
  /** Removes every key of the user; how many there were. */
  deleteByUser(userId: string): Promise<number>;
}

/**
 * {@link ApiKeyStore} as the service uses it: a backend's behind the serving
 * store (`api_key_cache.ts`), which adds the request's lookup through a
 * one-second cache that every write through it clears, and the marking of a
 * key's use.
 */
export interface ServingApiKeyStore extends ApiKeyStore {
  /**
   * {@link ApiKeyStore.findByHash} as answered at most a second ago: a
   * deleted key is refused by every process within a second, by this one at
   * once.
   */
  findByHashCached(hash: string): Promise<ApiKeyRecord | null>;
  /**
   * Records that `key` was used at `at`: the cached record shows it at once
   * (so concurrent requests do not each write it), then the store.
   */
  markUsed(key: ApiKeyRecord, at: Date): Promise<void>;
}
