/**
 * Share links on Deno KV. The record lives under its code, so a visit is one
 * read; the id, user and target indexes point at the code. A create checks
 * that the code and the id are free in the same atomic operation; a view is
 * counted with a check of the record's versionstamp.
 */
import type { ViewResult } from "../files.ts";
import { type ShareRecord, type ShareStore, type ShareTarget, targetOf } from "../shares.ts";
import { UniqueError } from "../errors.ts";
import { commitChecked, getAll } from "./helpers.ts";

const K = {
  byCode: (code: string) => ["share", code],
  byId: (id: string) => ["share_by_id", id],
  byUser: (userId: string) => ["share_by_user", userId],
  byTarget: (t: ShareTarget) => ["share_by_target", t.kind, t.id],
};

/** {@link ShareStore} on Deno KV. */
export class KvShares implements ShareStore {
  constructor(private readonly kv: Deno.Kv) {}

  async create(share: ShareRecord): Promise<void> {
    const result = await this.kv.atomic()
      .check({ key: K.byCode(share.code), versionstamp: null })
      .check({ key: K.byId(share.id), versionstamp: null })
      .set(K.byCode(share.code), share)
      .set(K.byId(share.id), share.code)
      .set([...K.byUser(share.userId), share.id], share.code)
      .set([...K.byTarget(targetOf(share)), share.id], share.code)
      .commit();
    if (!result.ok) throw new UniqueError("code");
  }

  async get(id: string): Promise<ShareRecord | null> {
    return (await this.entry(id))?.value ?? null;
  }

  async getByCode(code: string): Promise<ShareRecord | null> {
    return (await this.kv.get<ShareRecord>(K.byCode(code))).value;
  }

  async listByUser(userId: string): Promise<ShareRecord[]> {
    const shares = await this.listIndexed(K.byUser(userId));
    return shares.sort((a, b) =>
      a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
    );
  }

  addView(id: string): Promise<ViewResult> {
    return commitChecked<ViewResult>(async () => {
      const entry = await this.entry(id);
      if (!entry) return { result: "missing" };
      const share = entry.value;
      if (share.maxViews !== null && share.views >= share.maxViews) {
        return { result: "exhausted" };
      }
      const next = { ...share, views: share.views + 1 };
      return { op: this.kv.atomic().check(entry).set(entry.key, next), result: "counted" };
    });
  }

  async delete(id: string): Promise<ShareRecord | null> {
    const share = await this.get(id);
    if (!share) return null;
    await this.remove(share);
    return share;
  }

  async deleteByTarget(target: ShareTarget): Promise<number> {
    return await this.removeAll(await this.listIndexed(K.byTarget(target)));
  }

  async deleteByFiles(fileIds: string[]): Promise<number> {
    let removed = 0;
    for (const id of fileIds) removed += await this.deleteByTarget({ kind: "file", id });
    return removed;
  }

  async deleteByUser(userId: string): Promise<number> {
    return await this.removeAll(await this.listIndexed(K.byUser(userId)));
  }

  async *iterate(): AsyncIterable<ShareRecord> {
    for await (const e of this.kv.list<ShareRecord>({ prefix: ["share"] }, { batchSize: 500 })) {
      yield e.value;
    }
  }

  /** The record of link `id` with its versionstamp, or `null`. */
  private async entry(id: string): Promise<Deno.KvEntry<ShareRecord> | null> {
    const code = (await this.kv.get<string>(K.byId(id))).value;
    if (code === null) return null;
    const entry = await this.kv.get<ShareRecord>(K.byCode(code));
    return entry.versionstamp === null ? null : entry;
  }

  /** The records an index under `prefix` points at. */
  private async listIndexed(prefix: Deno.KvKey): Promise<ShareRecord[]> {
    const codes: Deno.KvKey[] = [];
    for await (const entry of this.kv.list<string>({ prefix })) codes.push(K.byCode(entry.value));
    return (await getAll<ShareRecord>(this.kv, codes)).flatMap((e) => e.value ?? []);
  }

  private async removeAll(shares: ShareRecord[]): Promise<number> {
    for (const share of shares) await this.remove(share);
    return shares.length;
  }

  /** Removes `share`'s record and every index entry of it. */
  private async remove(share: ShareRecord): Promise<void> {
    await this.kv.atomic()
      .delete(K.byCode(share.code))
      .delete(K.byId(share.id))
      .delete([...K.byUser(share.userId), share.id])
      .delete([...K.byTarget(targetOf(share)), share.id])
      .commit();
  }
}
