/**
 * Users on Deno KV. A user lives under one key; its unique values (username,
 * token) have index keys that atomic operations check and write together with
 * the record, so a clash is refused by KV itself rather than by a
 * read-then-write race. An avatar too large for the record is kept in pieces
 * (`user_avatars.ts`).
 */
import { UniqueError } from "../errors.ts";
import type { UserPatch, UserRecord, UserStore } from "../users.ts";
import { commitChecked, defined } from "./helpers.ts";
import type { KvMfa } from "./mfa.ts";
import type { KvOauth } from "./oauth.ts";
import type { KvSessions } from "./sessions.ts";
import { deleteAvatar, readUser, type StoredUser, writeUser } from "./user_avatars.ts";

const K = {
  user: (id: string) => ["user", id],
  userByName: (name: string) => ["user_by_name", name],
  userByToken: (token: string) => ["user_by_token", token],
  usersExist: ["meta", "users_exist"],
} satisfies Record<string, Deno.KvKey | ((...args: string[]) => Deno.KvKey)>;

/** What goes with a deleted user: its sessions, passkeys and OAuth links. */
export interface UserBelongings {
  sessions: KvSessions;
  mfa: KvMfa;
  oauth: KvOauth;
}

/** {@link UserStore} on Deno KV. */
export class KvUsers implements UserStore {
  constructor(private readonly kv: Deno.Kv, private readonly belongings: UserBelongings) {}

  async create(user: UserRecord): Promise<void> {
    await this.insert(user, false);
  }

  async createFirst(user: UserRecord): Promise<boolean> {
    return await this.insert(user, true);
  }

  private async insert(user: UserRecord, onlyFirst: boolean): Promise<boolean> {
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
    if (onlyFirst && await this.any()) return false;
    throw await this.clash(user.username, user.token);
  }

  private async clash(username: string, token: string): Promise<UniqueError> {
    const [name, tok] = await this.kv.getMany([K.userByName(username), K.userByToken(token)]);
    return new UniqueError(name.value !== null ? "username" : tok.value !== null ? "token" : "id");
  }

  async any(): Promise<boolean> {
    return (await this.kv.get(K.usersExist)).value !== null;
  }

  async get(id: string): Promise<UserRecord | null> {
    return await readUser(this.kv, (await this.kv.get<StoredUser>(K.user(id))).value);
  }

  async getByUsername(username: string): Promise<UserRecord | null> {
    const id = (await this.kv.get<string>(K.userByName(username))).value;
    return id === null ? null : await this.get(id);
  }

  async list(): Promise<UserRecord[]> {
    const users: UserRecord[] = [];
    for await (const entry of this.kv.list<StoredUser>({ prefix: ["user"] })) {
      users.push((await readUser(this.kv, entry.value))!);
    }
    return users.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async update(id: string, patch: UserPatch, now: Date): Promise<UserRecord | null> {
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

  async delete(id: string): Promise<UserRecord | null> {
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
    const { sessions, mfa, oauth } = this.belongings;
    await sessions.deleteByUser(id);
    await mfa.deleteUserMfa(id);
    await oauth.deleteByUser(id);
    return user;
  }
}
