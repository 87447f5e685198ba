/**
 * The Deno KV store: the embedded default. Records live under one key each;
 * unique values (usernames, tokens) have index keys that atomic operations
 * check and write together with the record, so a clash is refused by KV
 * itself rather than by a read-then-write race.
 */
import {
  type SessionRecord,
  type SettingsAuditDraft,
  type SettingsAuditQuery,
  type SettingsAuditRecord,
  type Store,
  type UserPatch,
  type UserRecord,
} from "../store.ts";
import { UniqueError } from "../errors.ts";
import { KvMfa } from "./mfa.ts";
import { KvInvites } from "./invites.ts";
import { KvUserExports } from "./user_exports.ts";
import { KvFiles } from "./files.ts";
import { CachedFiles } from "../cached_files.ts";
import { UserCache } from "../user_cache.ts";
import { KvRateLimits } from "./rate_limits.ts";
import { OwnedRateLimits } from "../rate_limit_owner.ts";
import { KvUrls } from "./urls.ts";
import { CachedUrls } from "../url_cache.ts";
import { KvWebhooks } from "./webhooks.ts";
import { KvOauth } from "./oauth.ts";
import { KvMetrics } from "./metrics.ts";
import { KvChunks } from "./chunks.ts";
import { KvLeases } from "./leases.ts";
import { KvFolders } from "./folders.ts";
import { KvTags, listFileTags } from "./tags.ts";
import { journaled, recoverJournals } from "./journal.ts";
import { commitChecked, defined, getAll } from "./helpers.ts";
import { deleteAvatar, readUser, type StoredUser, writeUser } from "./user_avatars.ts";

/**
 * The KV schema version this code writes. 2: a file's tag links are one list
 * (`listFileTags`, `./tags.ts`), no longer one key per link.
 */
export const KV_SCHEMA_VERSION = 2;

const K = {
  user: (id: string) => ["user", id],
  userByName: (name: string) => ["user_by_name", name],
  userByToken: (token: string) => ["user_by_token", token],
  usersExist: ["meta", "users_exist"],
  schemaVersion: ["meta", "schema_version"],
  session: (id: string) => ["session", id],
  userSessions: (userId: string) => ["session_by_user", userId],
  setting: (key: string) => ["setting", key],
} satisfies Record<string, Deno.KvKey | ((...args: string[]) => Deno.KvKey)>;

/** Opens (creating when needed) the KV database at `path` (`:memory:` for tests). */
export async function openKvStore(path?: string): Promise<KvStore> {
  const kv = await Deno.openKv(path);
  const version = await kv.get<number>(K.schemaVersion);
  if (version.value === null) await kv.set(K.schemaVersion, KV_SCHEMA_VERSION);
  else if (version.value > KV_SCHEMA_VERSION) {
    kv.close();
    throw new Error(`the KV database is at schema ${version.value}, newer than this program`);
  } else if (version.value < KV_SCHEMA_VERSION) {
    await listFileTags(kv);
    await kv.set(K.schemaVersion, KV_SCHEMA_VERSION);
  }
  await recoverJournals(kv);
  return new KvStore(kv);
}

/** {@link Store} on Deno KV. */
export class KvStore implements Store {
  readonly kind = "kv";
  readonly rateLimits: OwnedRateLimits;
  readonly files: CachedFiles;
  private readonly users = new UserCache();
  readonly urls: CachedUrls;
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

  constructor(private readonly kv: Deno.Kv) {
    this.leases = new KvLeases(kv);
    this.rateLimits = new OwnedRateLimits(new KvRateLimits(kv), this.leases);
    this.files = new CachedFiles(new KvFiles(kv), true); // KV lists a user's files by reading them all
    this.urls = new CachedUrls(new KvUrls(kv));
    this.invites = new KvInvites(kv);
    this.mfa = new KvMfa(kv);
    this.webhooks = new KvWebhooks(kv);
    this.oauth = new KvOauth(kv);
    this.metrics = new KvMetrics(kv);
    this.chunks = new KvChunks(kv);
    this.folders = new KvFolders(kv);
    this.tags = new KvTags(kv);
    this.userExports = new KvUserExports(kv);
  }

  async ping(): Promise<void> {
    await this.kv.get(K.schemaVersion);
  }

  /** A Deno KV database is opened in-process: it has no connection to lose. */
  unavailable(): boolean {
    return false;
  }

  async schemaVersion(): Promise<number> {
    return (await this.kv.get<number>(K.schemaVersion)).value ?? 0;
  }

  async close(): Promise<void> {
    await this.rateLimits.close();
    await this.urls.close();
    this.kv.close();
  }

  /** First undoes what imports of stopped processes left behind (`recoverJournals`). */
  async transaction<T>(fn: (store: Store) => Promise<T>): Promise<T> {
    await recoverJournals(this.kv);
    try {
      return await journaled(this.kv, (view) => fn(new KvStore(view)));
    } finally {
      // The view wrote around this store's caches.
      this.files.forget();
      this.urls.forget();
      this.users.forget();
    }
  }

  createUser(user: UserRecord): Promise<void> {
    return this.users.written(() => this.storeUser(user));
  }

  private async storeUser(user: UserRecord): Promise<void> {
    await this.insertUser(user, false);
  }

  createFirstUser(user: UserRecord): Promise<boolean> {
    return this.users.written(() => this.storeFirstUser(user));
  }

  private async storeFirstUser(user: UserRecord): Promise<boolean> {
    return await this.insertUser(user, true);
  }

  private async insertUser(user: UserRecord, onlyFirst: boolean): Promise<boolean> {
    const op = this.kv.atomic()
      .check({ key: K.user(user.id), versionstamp: null })
      .check({ key: K.userByName(user.username), versionstamp: null })
      .check({ key: K.userByToken(user.token), versionstamp: null });
    if (onlyFirst) op.check({ key: K.usersExist, versionstamp: null });
    writeUser(op, K.user(user.id), user);
    const result = await op
      .set(K.userByName(user.username), user.id)
      .set(K.userByToken(user.token), user.id)
      .set(K.usersExist, true)
      .commit();
    if (result.ok) return true;
    if (onlyFirst && await this.hasUsers()) return false;
    throw await this.clash(user.username, user.token);
  }

  private async clash(username: string, token: string): Promise<UniqueError> {
    const [name, tok] = await this.kv.getMany([K.userByName(username), K.userByToken(token)]);
    return new UniqueError(name.value !== null ? "username" : tok.value !== null ? "token" : "id");
  }

  async hasUsers(): Promise<boolean> {
    return (await this.kv.get(K.usersExist)).value !== null;
  }

  async getUser(id: string): Promise<UserRecord | null> {
    return await readUser(this.kv, (await this.kv.get<StoredUser>(K.user(id))).value);
  }

  getUserCached(id: string): Promise<UserRecord | null> {
    return this.users.record(id, () => this.getUser(id));
  }

  async getUserByUsername(username: string): Promise<UserRecord | null> {
    return await this.byIndex(K.userByName(username));
  }

  private async byIndex(key: Deno.KvKey): Promise<UserRecord | null> {
    const id = (await this.kv.get<string>(key)).value;
    return id === null ? null : await this.getUser(id);
  }

  listUsersCached(): Promise<UserRecord[]> {
    return this.users.list(() => this.listUsers());
  }

  async listUsers(): Promise<UserRecord[]> {
    const users: UserRecord[] = [];
    for await (const entry of this.kv.list<StoredUser>({ prefix: ["user"] })) {
      users.push((await readUser(this.kv, entry.value))!);
    }
    return users.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  updateUser(id: string, patch: UserPatch, now: Date): Promise<UserRecord | null> {
    return this.users.written(() => this.patchUser(id, patch, now));
  }

  private async patchUser(id: string, patch: UserPatch, now: Date): Promise<UserRecord | null> {
    return await commitChecked<UserRecord | null>(async () => {
      const current = await this.kv.get<StoredUser>(K.user(id));
      if (current.value === null) return { result: null };
      const old = (await readUser(this.kv, current.value))!;
      const next: UserRecord = { ...old, ...defined(patch), updatedAt: now };
      const op = this.kv.atomic().check(current);
      writeUser(op, K.user(id), next, { stored: current.value, avatar: old.avatar });
      if (next.username !== old.username) {
        op.check({ key: K.userByName(next.username), versionstamp: null })
          .delete(K.userByName(old.username))
          .set(K.userByName(next.username), id);
      }
      if (next.token !== old.token) {
        op.check({ key: K.userByToken(next.token), versionstamp: null })
          .delete(K.userByToken(old.token))
          .set(K.userByToken(next.token), id);
      }
      // The record unchanged since the read: an index check failed, a name or token is taken.
      const lost = async () =>
        (await this.kv.get(K.user(id))).versionstamp === current.versionstamp
          ? new UniqueError(next.username !== old.username ? "username" : "token")
          : null;
      return { op, result: next, lost };
    });
  }

  deleteUser(id: string): Promise<UserRecord | null> {
    return this.users.written(() => this.removeUser(id));
  }

  private async removeUser(id: string): Promise<UserRecord | null> {
    const user = await commitChecked<UserRecord | null>(async () => {
      const current = await this.kv.get<StoredUser>(K.user(id));
      if (current.value === null) return { result: null };
      const user = (await readUser(this.kv, current.value))!;
      const op = this.kv.atomic().check(current);
      deleteAvatar(op, current.value);
      op.delete(K.user(id)).delete(K.userByName(user.username)).delete(K.userByToken(user.token));
      return { op, result: user };
    });
    if (user === null) return null;
    await this.deleteUserSessions(id);
    await this.mfa.deleteUserMfa(id);
    await this.oauth.deleteByUser(id);
    return user;
  }

  async createSession(session: SessionRecord): Promise<void> {
    const expireIn = Math.max(1, session.expiresAt.getTime() - Date.now());
    await this.kv.atomic()
      .set(K.session(session.id), session, { expireIn })
      .set([...K.userSessions(session.userId), session.id], true, { expireIn })
      .commit();
  }

  async getSession(id: string): Promise<SessionRecord | null> {
    const session = (await this.kv.get<SessionRecord>(K.session(id))).value;
    return session && withLastSeen(session);
  }

  async touchSession(id: string, at: Date): Promise<void> {
    const entry = await this.kv.get<SessionRecord>(K.session(id));
    if (!entry.value) return;
    const expireIn = Math.max(1, entry.value.expiresAt.getTime() - Date.now());
    // A request that lost the race to another has nothing left to record.
    await this.kv.atomic().check(entry)
      .set(K.session(id), { ...entry.value, lastSeenAt: at }, { expireIn })
      .commit();
  }

  async listSessions(userId: string): Promise<SessionRecord[]> {
    const ids: Deno.KvKey[] = [];
    for await (const entry of this.kv.list({ prefix: K.userSessions(userId) })) {
      ids.push(K.session(entry.key.at(-1) as string));
    }
    const sessions: SessionRecord[] = [];
    for (const entry of await getAll<SessionRecord>(this.kv, ids)) {
      if (entry.value) sessions.push(withLastSeen(entry.value));
    }
    return sessions.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async deleteSession(id: string): Promise<void> {
    const session = await this.getSession(id);
    const op = this.kv.atomic().delete(K.session(id));
    if (session) op.delete([...K.userSessions(session.userId), id]);
    await op.commit();
  }

  async deleteUserSessions(userId: string, keepId?: string): Promise<void> {
    for await (const entry of this.kv.list({ prefix: K.userSessions(userId) })) {
      const id = entry.key.at(-1) as string;
      if (id !== keepId) {
        await this.kv.atomic().delete(entry.key).delete(K.session(id)).commit();
      }
    }
  }

  async getSettings(): Promise<Record<string, unknown>> {
    const values: Record<string, unknown> = {};
    for await (const entry of this.kv.list({ prefix: ["setting"] })) {
      values[entry.key[1] as string] = entry.value;
    }
    return values;
  }

  async updateSettings(values: Record<string, unknown>, audit?: SettingsAuditDraft) {
    return await commitChecked(async () => {
      const current = await this.kv.get<number>(KvStore.SETTINGS_VERSION);
      const version = (current.value ?? 0) + 1;
      const op = this.kv.atomic().check(current).set(KvStore.SETTINGS_VERSION, version);
      for (const [key, value] of Object.entries(values)) op.set(K.setting(key), value);
      if (audit) op.set([...KvStore.SETTINGS_AUDIT, version], { ...audit, id: version });
      return { op, result: version };
    });
  }

  async listSettingsAudit({ limit, before }: SettingsAuditQuery) {
    const prefix = KvStore.SETTINGS_AUDIT;
    const selector = typeof before === "number" ? { prefix, end: [...prefix, before] } : { prefix };
    const records: SettingsAuditRecord[] = [];
    for await (const entry of this.kv.list<SettingsAuditRecord>(selector, { reverse: true })) {
      if (before instanceof Date && entry.value.at >= before) continue;
      records.push(entry.value);
      if (records.length >= limit) break;
    }
    return records;
  }

  /**
   * `kv.watch` reports changes made through this process (and, on Deno
   * Deploy, any isolate); processes sharing a local KV file do not see each
   * other's writes through it, so the version is also polled every 2 seconds.
   */
  watchSettings(onChange: () => void): () => void {
    let last: number | null | undefined;
    const seen = (version: number | null) => {
      if (version !== last) onChange();
      last = version;
    };
    const reader = this.kv.watch<[number]>([KvStore.SETTINGS_VERSION]).getReader();
    (async () => {
      for (let r = await reader.read(); !r.done; r = await reader.read()) seen(r.value[0].value);
    })().catch(() => {});
    const timer = setInterval(() => {
      this.kv.get<number>(KvStore.SETTINGS_VERSION).then((e) => seen(e.value), () => {});
    }, 2000);
    return () => {
      clearInterval(timer);
      reader.cancel().catch(() => {});
    };
  }

  private static readonly SETTINGS_VERSION: Deno.KvKey = ["meta", "settings_version"];
  private static readonly SETTINGS_AUDIT: Deno.KvKey = ["settings_audit"];
}

/** A session written before sessions kept `lastSeenAt` was last seen when it began. */
function withLastSeen(session: SessionRecord): SessionRecord {
  return session.lastSeenAt ? session : { ...session, lastSeenAt: session.createdAt };
}
