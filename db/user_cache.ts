/**
 * The user reads of the hot paths, as the serving store (`serving.ts`) wraps
 * a backend's {@link UserStore}, through one-second caches
 * ({@link FreshCache}): the administrators' user list (`GET /api/users`,
 * which a dashboard polls) and each caller's record (every authenticated
 * request reads it, and on Deno KV that read waits behind the commits of
 * uploads in flight). Every user write through it clears both, before and
 * after the write, so this process never answers from what it changed
 * itself; another process's change (a token reset, a new role, a deletion)
 * shows within a second.
 */
import type { Clock } from "../core/clock.ts";
import { forgetAround, FreshCache } from "./fresh_cache.ts";
import type { ServingUserStore, UserPatch, UserRecord, UserStore } from "./users.ts";

/** How long a record or the list is used. */
export const USERS_FRESH_MS = 1000;

/** {@link ServingUserStore} over a backend's {@link UserStore}. */
export class CachedUsers implements ServingUserStore {
  readonly #list = new FreshCache<UserRecord[]>({
    ttlMs: USERS_FRESH_MS,
    maxEntries: 1,
    maxBytes: 16 * 1024 * 1024,
  });
  readonly #records = new FreshCache<UserRecord | null>({
    ttlMs: USERS_FRESH_MS,
    maxEntries: 10_000,
    maxBytes: 16 * 1024 * 1024,
  });

  constructor(private readonly users: UserStore, private readonly clock: Clock) {}

  /** The list of every user, reused for up to a second; a new array each time. */
  async listCached(): Promise<UserRecord[]> {
    return [...await this.#list.get("", this.clock.now(), () => this.users.list())];
  }

  /** The record of user `id` (`null`: none), reused for up to a second; a copy each time. */
  async getCached(id: string): Promise<UserRecord | null> {
    const user = await this.#records.get(id, this.clock.now(), () => this.users.get(id));
    return user && { ...user };
  }

  /** Forgets everything cached: after writes that bypassed the store (a transaction's). */
  forget(): void {
    this.#list.clear();
    this.#records.clear();
  }

  /** Runs a user write; what was read before it (or during it) is not used after it. */
  #written<T>(write: () => Promise<T>): Promise<T> {
    return forgetAround(() => this.forget(), write);
  }

  create(user: UserRecord): Promise<void> {
    return this.#written(() => this.users.create(user));
  }

  createFirst(user: UserRecord): Promise<boolean> {
    return this.#written(() => this.users.createFirst(user));
  }

  update(id: string, patch: UserPatch, now: Date): Promise<UserRecord | null> {
    return this.#written(() => this.users.update(id, patch, now));
  }

  delete(id: string): Promise<UserRecord | null> {
    return this.#written(() => this.users.delete(id));
  }

  any(): Promise<boolean> {
    return this.users.any();
  }

  get(id: string): Promise<UserRecord | null> {
    return this.users.get(id);
  }

  getByUsername(username: string): Promise<UserRecord | null> {
    return this.users.getByUsername(username);
  }

  list(): Promise<UserRecord[]> {
    return this.users.list();
  }
}
