/**
 * API keys on Deno KV. The record lives under its hash, so the lookup of a
 * request is one read; the id and the user index point at the hash. A create
 * checks that the hash and the id are free in the same atomic operation.
 */
import type { ApiKeyRecord, ApiKeyStore } from "../api_keys.ts";
import { UniqueError } from "../errors.ts";
import { commitChecked, getAll } from "./helpers.ts";

const K = {
  byHash: (hash: string) => ["api_key", hash],
  byId: (id: string) => ["api_key_by_id", id],
  byUser: (userId: string) => ["api_key_by_user", userId],
};

/** {@link ApiKeyStore} on Deno KV. */
export class KvApiKeys implements ApiKeyStore {
  constructor(private readonly kv: Deno.Kv) {}

  async create(key: ApiKeyRecord): Promise<void> {
    const result = await this.kv.atomic()
      .check({ key: K.byHash(key.hash), versionstamp: null })
      .check({ key: K.byId(key.id), versionstamp: null })
      .set(K.byHash(key.hash), key)
      .set(K.byId(key.id), key.hash)
      .set([...K.byUser(key.userId), key.id], key.hash)
      .commit();
    if (!result.ok) throw new UniqueError("hash");
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    const hash = (await this.kv.get<string>(K.byId(id))).value;
    return hash === null ? null : await this.findByHash(hash);
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | null> {
    return (await this.kv.get<ApiKeyRecord>(K.byHash(hash))).value;
  }

  async listByUser(userId: string): Promise<ApiKeyRecord[]> {
    const hashes: Deno.KvKey[] = [];
    for await (const entry of this.kv.list<string>({ prefix: K.byUser(userId) })) {
      hashes.push(K.byHash(entry.value));
    }
    const keys = (await getAll<ApiKeyRecord>(this.kv, hashes)).flatMap((e) => e.value ?? []);
    return keys.sort((a, b) =>
      a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
    );
  }

  rename(id: string, name: string): Promise<ApiKeyRecord | null> {
    return commitChecked(async () => {
      const entry = await this.entry(id);
      if (!entry) return { result: null };
      const next = { ...entry.value, name };
      return { op: this.kv.atomic().check(entry).set(entry.key, next), result: next };
    });
  }

  async touch(id: string, at: Date): Promise<void> {
    const entry = await this.entry(id);
    // A touch that lost the race to another write has nothing left to record.
    if (entry) {
      await this.kv.atomic().check(entry).set(entry.key, { ...entry.value, lastUsedAt: at })
        .commit();
    }
  }

  /** The record of key `id` with its versionstamp, or `null`. */
  private async entry(id: string): Promise<Deno.KvEntry<ApiKeyRecord> | null> {
    const hash = (await this.kv.get<string>(K.byId(id))).value;
    if (hash === null) return null;
    const entry = await this.kv.get<ApiKeyRecord>(K.byHash(hash));
    return entry.versionstamp === null ? null : entry;
  }

  async delete(id: string): Promise<ApiKeyRecord | null> {
    const key = await this.get(id);
    if (!key) return null;
    await this.kv.atomic().delete(K.byHash(key.hash)).delete(K.byId(key.id))
      .delete([...K.byUser(key.userId), key.id]).commit();
    return key;
  }

  async deleteByUser(userId: string): Promise<number> {
    let count = 0;
    for await (const entry of this.kv.list<string>({ prefix: K.byUser(userId) })) {
      await this.kv.atomic().delete(K.byHash(entry.value))
        .delete(K.byId(entry.key.at(-1) as string)).delete(entry.key).commit();
      count++;
    }
    return count;
  }
}
