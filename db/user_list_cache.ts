/**
 * The administrators' user list (`GET /api/users`) read through a one-second
 * cache ({@link FreshCache}), so that a dashboard polling it does not read
 * every user each time. Every user write through the same store clears it,
 * before and after the write, so this process never lists what it changed
 * itself; another process's change shows within a second.
 */
import { forgetAround, FreshCache } from "./fresh_cache.ts";
import type { UserRecord } from "./store.ts";

/** One store's cached user list. */
export class UserListCache {
  readonly #list = new FreshCache<UserRecord[]>();

  /** `load()`'s answer, reused for up to a second; a new array each time. */
  async get(load: () => Promise<UserRecord[]>): Promise<UserRecord[]> {
    return [...await this.#list.get("", load)];
  }

  /** Forgets the list: after writes that bypassed the store (a transaction's). */
  forget(): void {
    this.#list.clear();
  }

  /** Runs a user write; a list read before it (or during it) is not used after it. */
  written<T>(write: () => Promise<T>): Promise<T> {
    return forgetAround(() => this.forget(), write);
  }
}
