/**
 * The user reads of the hot paths through one-second caches ({@link FreshCache}):
 * the administrators' user list (`GET /api/users`, which a dashboard polls)
 * and each caller's record (every authenticated request reads it, and on
 * Deno KV that read waits behind the commits of uploads in flight). Every user
 * write through the same store clears both, before and after the write, so
 * this process never answers from what it changed itself; another process's
 * change (a token reset, a new role, a deletion) shows within a second.
 */
import { forgetAround, FreshCache } from "./fresh_cache.ts";
import type { UserRecord } from "./store.ts";

/** One store's cached user reads. */
export class UserCache {
  readonly #list = new FreshCache<UserRecord[]>();
  readonly #records = new FreshCache<UserRecord | null>();

  /** `load()`'s list of every user, reused for up to a second; a new array each time. */
  async list(load: () => Promise<UserRecord[]>): Promise<UserRecord[]> {
    return [...await this.#list.get("", load)];
  }

  /** `load()`'s record of user `id` (`null`: none), reused for up to a second; a copy each time. */
  async record(id: string, load: () => Promise<UserRecord | null>): Promise<UserRecord | null> {
    const user = await this.#records.get(id, load);
    return user && { ...user };
  }

  /** Forgets everything cached: after writes that bypassed the store (a transaction's). */
  forget(): void {
    this.#list.clear();
    this.#records.clear();
  }

  /** Runs a user write; what was read before it (or during it) is not used after it. */
  written<T>(write: () => Promise<T>): Promise<T> {
    return forgetAround(() => this.forget(), write);
  }
}
