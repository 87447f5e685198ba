/**
 * User exports on Deno KV: the record under `["user_export", id]` and a copy
 * under `["user_export_by_user", userId, id]`, stored and removed together
 * with a check on the record. `["user_export_of", userId]` holds the id of the
 * user's one export: creating checks it is free.
 */
import type { UserExportRecord, UserExportStore } from "../user_exports.ts";
import { oldestFirst } from "./order.ts";
import { commitChecked } from "./helpers.ts";

const K = {
  all: ["user_export"],
  record: (id: string) => ["user_export", id],
  byUser: (userId: string, id: string) => ["user_export_by_user", userId, id],
  userExports: (userId: string) => ["user_export_by_user", userId],
  of: (userId: string) => ["user_export_of", userId],
} satisfies Record<string, Deno.KvKey | ((...args: string[]) => Deno.KvKey)>;

/** {@link UserExportStore} on Deno KV. */
export class KvUserExports implements UserExportStore {
  constructor(private readonly kv: Deno.Kv) {}

  async create(record: UserExportRecord): Promise<boolean> {
    // The slot decides races; the scan catches exports kept from before it existed.
    if ((await this.listByUser(record.userId)).length > 0) return false;
    const result = await this.kv.atomic()
      .check({ key: K.of(record.userId), versionstamp: null })
      .set(K.of(record.userId), record.id)
      .set(K.record(record.id), record)
      .set(K.byUser(record.userId, record.id), record)
      .commit();
    return result.ok;
  }

  async get(id: string): Promise<UserExportRecord | null> {
    return (await this.kv.get<UserExportRecord>(K.record(id))).value;
  }

  async listByUser(userId: string): Promise<UserExportRecord[]> {
    const records: UserExportRecord[] = [];
    for await (const e of this.kv.list<UserExportRecord>({ prefix: K.userExports(userId) })) {
      records.push(e.value);
    }
    return records.sort(oldestFirst);
  }

  complete(id: string, size: number, now: Date): Promise<UserExportRecord | null> {
    return this.update(
      id,
      (record) => record.completed ? null : { ...record, size, completed: true, updatedAt: now },
    );
  }

  /**
   * Replaces the record with `change(record)` (both copies, checked); `null`
   * when it is missing or `change` declines.
   */
  private async update(
    id: string,
    change: (record: UserExportRecord) => UserExportRecord | null,
  ): Promise<UserExportRecord | null> {
    return await commitChecked<UserExportRecord | null>(async () => {
      const entry = await this.kv.get<UserExportRecord>(K.record(id));
      const next = entry.value && change(entry.value);
      if (!next) return { result: null };
      const op = this.kv.atomic().check(entry)
        .set(K.record(id), next)
        .set(K.byUser(next.userId, id), next);
      return { op, result: next };
    });
  }

  async touch(id: string, now: Date): Promise<void> {
    await this.update(id, (record) => record.completed ? null : { ...record, updatedAt: now });
  }

  async listUpdatedBefore(before: Date): Promise<UserExportRecord[]> {
    const found: UserExportRecord[] = [];
    for await (const e of this.kv.list<UserExportRecord>({ prefix: K.all })) {
      if (e.value.updatedAt < before) found.push(e.value);
    }
    return found.sort(oldestFirst);
  }

  async delete(id: string): Promise<UserExportRecord | null> {
    return await commitChecked<UserExportRecord | null>(async () => {
      const entry = await this.kv.get<UserExportRecord>(K.record(id));
      if (entry.value === null) return { result: null };
      const slot = await this.kv.get<string>(K.of(entry.value.userId));
      const op = this.kv.atomic().check(entry, slot)
        .delete(K.record(id))
        .delete(K.byUser(entry.value.userId, id));
      if (slot.value === id) op.delete(slot.key);
      return { op, result: entry.value };
    });
  }
}
