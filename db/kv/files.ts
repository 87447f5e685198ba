/**
 * Files on Deno KV. The record lives under `["file", id]` with a copy under
 * `["file_by_user", owner, id]` (so a user's files are one prefix scan), the
 * name index under `["file_by_name", name]` and the user's counters under
 * `["file_usage", userId]`. Every change checks the versionstamps it read and
 * writes record, copy, index and counters in one atomic operation; a deletion
 * also removes the file's tag links (`./tags.ts`).
 */
import {
  type FileLimits,
  type FilePatch,
  type FileQuery,
  type FileRecord,
  type FileStats,
  type FileStore,
  type FileUsage,
  queryFiles,
  QuotaError,
  type ViewResult,
} from "../files.ts";
import { UniqueError } from "../store.ts";
import { getAll, writeInRuns } from "./many.ts";
import { fileTagsPrefix, tagFileKey } from "./tags.ts";

const K = {
  file: (id: string) => ["file", id],
  byName: (name: string) => ["file_by_name", name],
  byUser: (userId: string | null, id: string) => ["file_by_user", userId ?? "", id],
  userFiles: (userId: string | null) => ["file_by_user", userId ?? ""],
  usage: (userId: string) => usageKey(userId),
  access: (fileId: string, key: string) => ["file_access", fileId, key],
};

/** A user's usage counters; chunked uploads' reservations move them too (`./chunks.ts`). */
export const usageKey = (userId: string): Deno.KvKey => ["file_usage", userId];

/** The counters of a user with none yet. */
export const NO_USAGE: FileUsage = { bytes: 0, files: 0 };

/** Throws {@link QuotaError} when `usage` is past `limits`. */
export function checkLimits(usage: FileUsage, limits: FileLimits): void {
  if (limits.maxFiles !== null && usage.files > limits.maxFiles) throw new QuotaError("files");
  if (limits.maxBytes !== null && usage.bytes > limits.maxBytes) throw new QuotaError("bytes");
}

/** {@link FileStore} on Deno KV. */
export class KvFiles implements FileStore {
  constructor(private readonly kv: Deno.Kv) {}

  async create(file: FileRecord, limits: FileLimits): Promise<void> {
    while (true) {
      const op = this.kv.atomic().check({ key: K.byName(file.name), versionstamp: null })
        .check({ key: K.file(file.id), versionstamp: null });
      if (file.userId !== null) {
        const usage = await this.kv.get<FileUsage>(K.usage(file.userId));
        const next = { ...(usage.value ?? NO_USAGE) };
        next.files += 1;
        next.bytes += file.size;
        checkLimits(next, limits);
        op.check(usage).set(K.usage(file.userId), next);
      }
      const result = await this.write(op, file).commit();
      if (result.ok) return;
      if ((await this.kv.get(K.byName(file.name))).value !== null) throw new UniqueError("name");
      if ((await this.kv.get(K.file(file.id))).value !== null) throw new UniqueError("id");
    }
  }

  async createMany(files: FileRecord[]) {
    await writeInRuns<FileRecord, FileUsage>(this.kv, files, {
      owner: (f) => f.userId,
      cost: () => ({ checks: 1, mutations: 3 }),
      counter: K.usage,
      count: (usage, owned) => ({
        files: (usage ?? NO_USAGE).files + owned.length,
        bytes: (usage ?? NO_USAGE).bytes + owned.reduce((sum, f) => sum + f.size, 0),
      }),
      write: (op, f) => this.write(op.check({ key: K.byName(f.name), versionstamp: null }), f),
      clash: async (run) =>
        (await this.takenNames(run.map((f) => f.name))).size ? new UniqueError("name") : null,
    });
  }

  async takenNames(names: string[]) {
    const entries = await getAll(this.kv, names.map(K.byName));
    return new Set(entries.filter((e) => e.value !== null).map((e) => e.key[1] as string));
  }

  async complete(id: string, size: number, limits: FileLimits, now: Date) {
    while (true) {
      const current = await this.kv.get<FileRecord>(K.file(id));
      if (!current.value?.pending) return null;
      const next: FileRecord = { ...current.value, size, pending: false, updatedAt: now };
      const op = this.kv.atomic().check(current);
      if (next.userId !== null) {
        const usage = await this.kv.get<FileUsage>(K.usage(next.userId));
        const counted = { ...(usage.value ?? NO_USAGE) };
        counted.bytes += size - current.value.size;
        checkLimits(counted, limits);
        op.check(usage).set(K.usage(next.userId), counted);
      }
      if ((await this.write(op, next).commit()).ok) return next;
    }
  }

  async resize(id: string, size: number, now: Date) {
    while (true) {
      const current = await this.kv.get<FileRecord>(K.file(id));
      if (!current.value || current.value.pending) return null;
      const next: FileRecord = { ...current.value, size, updatedAt: now };
      const op = this.kv.atomic().check(current);
      if (next.userId !== null) {
        const usage = await this.kv.get<FileUsage>(K.usage(next.userId));
        const counted = { ...(usage.value ?? NO_USAGE) };
        counted.bytes = Math.max(0, counted.bytes + size - current.value.size);
        op.check(usage).set(K.usage(next.userId), counted);
      }
      if ((await this.write(op, next).commit()).ok) return next;
    }
  }

  async get(id: string) {
    return (await this.kv.get<FileRecord>(K.file(id))).value;
  }

  async getByName(name: string) {
    const id = (await this.kv.get<string>(K.byName(name))).value;
    return id === null ? null : await this.get(id);
  }

  async namedWithPrefix(prefix: string, limit: number) {
    // Keys of one part order by code point: every name starting with `prefix` sorts in
    // [prefix, prefix + U+10FFFF).
    const ids: string[] = [];
    const range = { start: K.byName(prefix), end: K.byName(`${prefix}\u{10FFFF}`) };
    for await (const entry of this.kv.list<string>(range, { limit })) ids.push(entry.value);
    const files = await getAll<FileRecord>(this.kv, ids.map(K.file));
    return files.flatMap((entry) => entry.value === null ? [] : [entry.value]);
  }

  async update(id: string, patch: FilePatch, now: Date) {
    while (true) {
      const current = await this.kv.get<FileRecord>(K.file(id));
      if (current.value === null) return null;
      const old = current.value;
      const defined = Object.entries(patch).filter(([, v]) => v !== undefined);
      const next: FileRecord = { ...old, ...Object.fromEntries(defined), updatedAt: now };
      const op = this.kv.atomic().check(current);
      if (next.name !== old.name) {
        op.check({ key: K.byName(next.name), versionstamp: null }).delete(K.byName(old.name));
      }
      if ((await this.write(op, next).commit()).ok) return next;
      if (next.name !== old.name && (await this.kv.get(K.byName(next.name))).value !== null) {
        throw new UniqueError("name");
      }
    }
  }

  async delete(id: string) {
    while (true) {
      const current = await this.kv.get<FileRecord>(K.file(id));
      if (current.value === null) return null;
      const file = current.value;
      const op = this.kv.atomic().check(current)
        .delete(K.file(id))
        .delete(K.byName(file.name))
        .delete(K.byUser(file.userId, id));
      for await (const link of this.kv.list({ prefix: fileTagsPrefix(id) })) {
        op.delete(link.key).delete(tagFileKey(link.key[2] as string, id));
      }
      if (file.userId !== null) {
        const usage = await this.kv.get<FileUsage>(K.usage(file.userId));
        const left = usage.value ?? NO_USAGE;
        op.check(usage).set(K.usage(file.userId), {
          bytes: Math.max(0, left.bytes - file.size),
          files: Math.max(0, left.files - 1),
        });
      }
      if ((await op.commit()).ok) return file;
    }
  }

  async list(query: FileQuery) {
    return queryFiles(await this.listByUser(query.userId), query);
  }

  async listByUser(userId: string) {
    const files: FileRecord[] = [];
    for await (const entry of this.kv.list<FileRecord>({ prefix: K.userFiles(userId) })) {
      files.push(entry.value);
    }
    return files.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async disown(userId: string) {
    for (const file of await this.listByUser(userId)) {
      const current = await this.kv.get<FileRecord>(K.file(file.id));
      if (current.value?.userId !== userId) continue;
      const next = { ...current.value, userId: null };
      // A concurrent change wins; the next call (or the owner's deletion retry) catches up.
      await this.write(this.kv.atomic().check(current).delete(K.byUser(userId, file.id)), next)
        .commit();
    }
    await this.kv.delete(K.usage(userId));
  }

  async usage(userId: string) {
    return (await this.kv.get<FileUsage>(K.usage(userId))).value ?? { ...NO_USAGE };
  }

  async stats(userId: string): Promise<FileStats> {
    // KV has no aggregates: one pass over the user's prefix, holding only the totals.
    const stats: FileStats = { files: 0, favorites: 0, views: 0, bytes: 0, types: {} };
    const entries = this.kv.list<FileRecord>({ prefix: K.userFiles(userId) }, { batchSize: 500 });
    for await (const { value: f } of entries) {
      if (f.pending) continue;
      stats.files++;
      if (f.favorite) stats.favorites++;
      stats.views += f.views;
      stats.bytes += f.size;
      stats.types[f.type] = (stats.types[f.type] ?? 0) + 1;
    }
    return stats;
  }

  async addView(id: string): Promise<ViewResult> {
    while (true) {
      const current = await this.kv.get<FileRecord>(K.file(id));
      const file = current.value;
      if (!file || file.pending) return "missing";
      if (file.maxViews !== null && file.views >= file.maxViews) return "exhausted";
      const next = { ...file, views: file.views + 1 };
      if ((await this.write(this.kv.atomic().check(current), next).commit()).ok) return "counted";
    }
  }

  async grantAccess(fileId: string, key: string, expiresAt: Date) {
    const expireIn = Math.max(1, expiresAt.getTime() - Date.now()) + 1000;
    await this.kv.set(K.access(fileId, key), expiresAt.getTime(), { expireIn });
  }

  async hasAccess(fileId: string, key: string, now: Date) {
    const until = (await this.kv.get<number>(K.access(fileId, key))).value;
    return until !== null && until > now.getTime();
  }

  async *iterate(): AsyncIterable<FileRecord> {
    for await (const entry of this.kv.list<FileRecord>({ prefix: ["file"] }, { batchSize: 500 })) {
      yield entry.value;
    }
  }

  /** Adds the writes of `file`: record, owner copy and name index. */
  private write(op: Deno.AtomicOperation, file: FileRecord): Deno.AtomicOperation {
    return op.set(K.file(file.id), file)
      .set(K.byUser(file.userId, file.id), file)
      .set(K.byName(file.name), file.id);
  }
}
