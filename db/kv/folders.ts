/**
 * Folders on Deno KV. The record lives under `["folder", id]` with a copy
 * under `["folder_by_user", owner, id]` (a user's tree is one prefix scan)
 * and a name index `["folder_by_name", name, id]`.
 * Every change to a user's folders reads the tree, checks it
 * (`checkFolder`, `planRemoval`) and commits with a check on the user's tree
 * version `["folder_tree", owner]`, which it bumps: two concurrent changes to
 * one tree never both land, so names stay unique and the tree acyclic. One
 * change is one atomic operation, so a removal touches at most about 330
 * folders (KV's 1000 mutations).
 */
import {
  checkFolder,
  type FolderPatch,
  type FolderRecord,
  type FolderRemoval,
  type FolderStore,
  planRemoval,
} from "../folders.ts";
import { oldestFirst } from "./order.ts";
import { commitChecked, defined } from "./helpers.ts";

const K = {
  folder: (id: string) => ["folder", id],
  byUser: (userId: string, id: string) => ["folder_by_user", userId, id],
  userFolders: (userId: string) => ["folder_by_user", userId],
  byName: (name: string, id: string) => ["folder_by_name", name, id],
  named: (name: string) => ["folder_by_name", name],
  tree: (userId: string) => ["folder_tree", userId],
};

/** {@link FolderStore} on Deno KV. */
export class KvFolders implements FolderStore {
  constructor(private readonly kv: Deno.Kv) {}

  async create(folder: FolderRecord): Promise<void> {
    await this.change(folder.userId, (folders, op) => {
      checkFolder(folders, folder);
      op.check({ key: K.folder(folder.id), versionstamp: null });
      this.write(op, folder);
    });
  }

  async get(id: string) {
    return (await this.kv.get<FolderRecord>(K.folder(id))).value;
  }

  async listByName(name: string) {
    const found: FolderRecord[] = [];
    for await (const e of this.kv.list({ prefix: K.named(name) })) {
      const folder = await this.get(e.key.at(-1) as string);
      if (folder) found.push(folder);
    }
    return found.sort(oldestFirst);
  }

  async listByUser(userId: string) {
    const folders: FolderRecord[] = [];
    for await (const e of this.kv.list<FolderRecord>({ prefix: K.userFolders(userId) })) {
      folders.push(e.value);
    }
    return folders.sort(oldestFirst);
  }

  async update(id: string, patch: FolderPatch, now: Date) {
    const current = await this.get(id);
    if (!current) return null;
    return await this.change(current.userId, (folders, op) => {
      const old = folders.find((f) => f.id === id);
      if (!old) return null;
      const next: FolderRecord = { ...old, ...defined(patch), updatedAt: now };
      checkFolder(folders, next);
      if (next.name !== old.name) op.delete(K.byName(old.name, id));
      this.write(op, next);
      return next;
    });
  }

  async delete(id: string, removal: FolderRemoval, now: Date) {
    const current = await this.get(id);
    if (!current) return null;
    return await this.change(current.userId, (folders, op) => {
      if (!folders.some((f) => f.id === id)) return null;
      const { removed, moved } = planRemoval(folders, id, removal, now);
      for (const f of removed) this.remove(op, f);
      for (const f of moved) this.write(op, f);
      return removed;
    });
  }

  async deleteByUser(userId: string) {
    await this.change(userId, (folders, op) => {
      for (const f of folders) this.remove(op, f);
    });
    await this.kv.delete(K.tree(userId));
  }

  async *iterate(): AsyncIterable<FolderRecord> {
    for await (const e of this.kv.list<FolderRecord>({ prefix: ["folder"] }, { batchSize: 500 })) {
      yield e.value;
    }
  }

  /**
   * Runs `plan` on the user's tree and commits what it adds to the operation
   * together with a check and bump of the tree version; retries on a
   * concurrent change.
   */
  private change<T>(
    userId: string,
    plan: (folders: FolderRecord[], op: Deno.AtomicOperation) => T,
  ): Promise<T> {
    return commitChecked(async () => {
      const version = await this.kv.get<number>(K.tree(userId));
      const folders = await this.listByUser(userId);
      const op = this.kv.atomic().check(version).set(K.tree(userId), (version.value ?? 0) + 1);
      return { op, result: plan(folders, op) };
    });
  }

  /** Adds the writes of `folder`: record, owner copy and name index. */
  private write(op: Deno.AtomicOperation, folder: FolderRecord): void {
    op.set(K.folder(folder.id), folder).set(K.byUser(folder.userId, folder.id), folder)
      .set(K.byName(folder.name, folder.id), true);
  }

  /** Adds the deletes of `folder`'s keys. */
  private remove(op: Deno.AtomicOperation, folder: FolderRecord): void {
    op.delete(K.folder(folder.id)).delete(K.byUser(folder.userId, folder.id))
      .delete(K.byName(folder.name, folder.id));
  }
}
