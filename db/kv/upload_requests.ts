/**
 * Upload requests on Deno KV. The record lives under its id with its
 * counters; the code and the user index point at the id. A reservation reads
 * the record, checks its limits and commits the counted record with a check
 * of the versionstamp it read (`commitChecked`), so of concurrent uploads
 * only those that fit are counted.
 */
import type {
  Reservation,
  UploadRequestPatch,
  UploadRequestRecord,
  UploadRequestStore,
} from "../upload_requests.ts";
import { UniqueError } from "../errors.ts";
import { commitChecked, defined, getAll } from "./helpers.ts";

const K = {
  byId: (id: string) => ["upload_request", id],
  byCode: (code: string) => ["upload_request_code", code],
  byUser: (userId: string) => ["upload_request_by_user", userId],
  access: (id: string, key: string) => ["upload_request_access", id, key],
};

/** {@link UploadRequestStore} on Deno KV. */
export class KvUploadRequests implements UploadRequestStore {
  constructor(private readonly kv: Deno.Kv) {}

  async create(r: UploadRequestRecord): Promise<void> {
    const result = await this.kv.atomic()
      .check({ key: K.byCode(r.code), versionstamp: null })
      .check({ key: K.byId(r.id), versionstamp: null })
      .set(K.byId(r.id), r)
      .set(K.byCode(r.code), r.id)
      .set([...K.byUser(r.userId), r.id], r.id)
      .commit();
    if (!result.ok) throw new UniqueError("code");
  }

  async get(id: string): Promise<UploadRequestRecord | null> {
    return (await this.kv.get<UploadRequestRecord>(K.byId(id))).value;
  }

  async getByCode(code: string): Promise<UploadRequestRecord | null> {
    const id = (await this.kv.get<string>(K.byCode(code))).value;
    return id === null ? null : await this.get(id);
  }

  async listByUser(userId: string): Promise<UploadRequestRecord[]> {
    const keys: Deno.KvKey[] = [];
    for await (const entry of this.kv.list<string>({ prefix: K.byUser(userId) })) {
      keys.push(K.byId(entry.value));
    }
    const found = (await getAll<UploadRequestRecord>(this.kv, keys)).flatMap((e) => e.value ?? []);
    return found.sort((a, b) =>
      a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
    );
  }

  update(id: string, patch: UploadRequestPatch, now: Date): Promise<UploadRequestRecord | null> {
    return this.change(id, (r) => ({ ...r, ...defined(patch), updatedAt: now }));
  }

  async delete(id: string): Promise<UploadRequestRecord | null> {
    const r = await this.get(id);
    if (!r) return null;
    await this.kv.atomic().delete(K.byId(id)).delete(K.byCode(r.code))
      .delete([...K.byUser(r.userId), id]).commit();
    await this.dropGrants(id);
    return r;
  }

  async deleteByUser(userId: string): Promise<number> {
    let count = 0;
    for await (const entry of this.kv.list<string>({ prefix: K.byUser(userId) })) {
      if (await this.delete(entry.value)) count++;
      else await this.kv.delete(entry.key);
    }
    return count;
  }

  reserve(id: string, bytes: number): Promise<Reservation> {
    return commitChecked<Reservation>(async () => {
      const entry = await this.kv.get<UploadRequestRecord>(K.byId(id));
      const r = entry.value;
      if (!r) return { result: { ok: false, reason: "gone" } };
      if (r.maxFiles !== null && r.files + 1 > r.maxFiles) {
        return { result: { ok: false, reason: "files", request: r } };
      }
      if (r.maxBytes !== null && r.bytes + bytes > r.maxBytes) {
        return { result: { ok: false, reason: "bytes", request: r } };
      }
      const next = { ...r, files: r.files + 1, bytes: r.bytes + bytes };
      return {
        op: this.kv.atomic().check(entry).set(entry.key, next),
        result: { ok: true, request: next },
      };
    });
  }

  async release(id: string, files: number, bytes: number): Promise<void> {
    await this.change(id, (r) => ({
      ...r,
      files: Math.max(0, r.files - files),
      bytes: Math.max(0, r.bytes - bytes),
    }));
  }

  async grantAccess(id: string, key: string, expiresAt: Date, now: Date): Promise<void> {
    const expireIn = Math.max(1, expiresAt.getTime() - now.getTime()) + 1000;
    await this.kv.set(K.access(id, key), expiresAt.getTime(), { expireIn });
  }

  async hasAccess(id: string, key: string, now: Date): Promise<boolean> {
    const until = (await this.kv.get<number>(K.access(id, key))).value;
    return until !== null && until > now.getTime();
  }

  /** Writes `next(record)` over request `id`, checked against a concurrent change; `null` when none. */
  private change(
    id: string,
    next: (r: UploadRequestRecord) => UploadRequestRecord,
  ): Promise<UploadRequestRecord | null> {
    return commitChecked(async () => {
      const entry = await this.kv.get<UploadRequestRecord>(K.byId(id));
      if (!entry.value) return { result: null };
      const changed = next(entry.value);
      return { op: this.kv.atomic().check(entry).set(entry.key, changed), result: changed };
    });
  }

  /** Removes the password grants of request `id`. */
  private async dropGrants(id: string): Promise<void> {
    for await (const entry of this.kv.list({ prefix: ["upload_request_access", id] })) {
      await this.kv.delete(entry.key);
    }
  }
}
