/**
 * Chunked uploads on Deno KV: the upload under `["chunked", id]`, each part
 * under `["chunked_part", id, number]`. Adding a part checks the upload's
 * versionstamp (so no part lands once a claim won) and rewrites the upload's
 * `updatedAt` in the same atomic operation. A reservation moves the owner's
 * usage counters (`./files.ts`) in the atomic operation that writes or
 * removes the upload, checked on both.
 */
import {
  type ChunkedUploadRecord,
  type ChunkPart,
  type ChunkStore,
  claimHeld,
  type TusState,
} from "../chunks.ts";
import type { FileLimits, FileUsage } from "../files.ts";
import { checkLimits, NO_USAGE, usageKey } from "./files.ts";
import { commitChecked } from "./helpers.ts";

const K = {
  upload: (id: string) => ["chunked", id],
  part: (id: string, number: number) => ["chunked_part", id, number],
  parts: (id: string) => ["chunked_part", id],
};

/** {@link ChunkStore} on Deno KV. */
export class KvChunks implements ChunkStore {
  constructor(private readonly kv: Deno.Kv) {}

  async create(upload: ChunkedUploadRecord, limits: FileLimits): Promise<void> {
    await commitChecked(async () => {
      const op = this.kv.atomic().check({ key: K.upload(upload.id), versionstamp: null })
        .set(K.upload(upload.id), upload);
      if (upload.reservedBy !== null) {
        const usage = await this.kv.get<FileUsage>(usageKey(upload.reservedBy));
        const { bytes, files } = usage.value ?? NO_USAGE;
        const next = { bytes: bytes + upload.size, files: files + 1 };
        checkLimits(next, limits);
        op.check(usage).set(usageKey(upload.reservedBy), next);
      }
      const lost = async () =>
        (await this.kv.get(K.upload(upload.id))).value !== null
          ? new Error(`chunked upload ${upload.id} exists`)
          : null;
      return { op, result: undefined, lost };
    });
  }

  async get(id: string): Promise<ChunkedUploadRecord | null> {
    return (await this.kv.get<ChunkedUploadRecord>(K.upload(id))).value;
  }

  async parts(id: string): Promise<ChunkPart[]> {
    const parts: ChunkPart[] = [];
    for await (const entry of this.kv.list<ChunkPart>({ prefix: K.parts(id) })) {
      parts.push(entry.value);
    }
    return parts.sort((a, b) => a.number - b.number);
  }

  async addPart(id: string, part: ChunkPart, now: Date): Promise<boolean> {
    return await commitChecked(async () => {
      const current = await this.kv.get<ChunkedUploadRecord>(K.upload(id));
      if (!current.value || claimHeld(current.value, now)) return { result: false };
      const next = { ...current.value, completing: false, updatedAt: now };
      const op = this.kv.atomic().check(current).set(K.upload(id), next)
        .set(K.part(id, part.number), part);
      return { op, result: true };
    });
  }

  async claim(id: string, now: Date): Promise<ChunkedUploadRecord | null> {
    return await this.rewrite(
      id,
      (u) => claimHeld(u, now) ? null : { ...u, completing: true, updatedAt: now },
    );
  }

  async renew(id: string, now: Date): Promise<void> {
    await this.rewrite(id, (u) => u.completing ? { ...u, updatedAt: now } : null);
  }

  async release(id: string): Promise<void> {
    await this.rewrite(id, (u) => u.completing ? { ...u, completing: false } : null);
  }

  async saveTus(id: string, part: ChunkPart | null, tus: TusState, now: Date): Promise<boolean> {
    return await commitChecked(async () => {
      const current = await this.kv.get<ChunkedUploadRecord>(K.upload(id));
      if (!current.value) return { result: false };
      const op = this.kv.atomic().check(current)
        .set(K.upload(id), { ...current.value, tus, updatedAt: now });
      if (part) op.set(K.part(id, part.number), part);
      return { op, result: true };
    });
  }

  /** Writes `change(upload)` unless it is `null`; the upload as it was, or `null` when nothing was stored. */
  private rewrite(
    id: string,
    change: (upload: ChunkedUploadRecord) => ChunkedUploadRecord | null,
  ) {
    return commitChecked<ChunkedUploadRecord | null>(async () => {
      const current = await this.kv.get<ChunkedUploadRecord>(K.upload(id));
      const next = current.value && change(current.value);
      if (!next) return { result: null };
      const op = this.kv.atomic().check(current).set(K.upload(id), next);
      return { op, result: current.value };
    });
  }

  async unreserve(id: string): Promise<void> {
    await commitChecked(async () => {
      const current = await this.kv.get<ChunkedUploadRecord>(K.upload(id));
      if (!current.value?.reservedBy) return { result: undefined };
      const op = this.kv.atomic().check(current)
        .set(K.upload(id), { ...current.value, reservedBy: null });
      await this.giveBack(op, current.value);
      return { op, result: undefined };
    });
  }

  /** Adds to `op` the return of `upload`'s reservation, checked on the counters it read. */
  private async giveBack(op: Deno.AtomicOperation, upload: ChunkedUploadRecord): Promise<void> {
    if (!upload.reservedBy) return;
    const usage = await this.kv.get<FileUsage>(usageKey(upload.reservedBy));
    op.check(usage);
    // No counters: the user is gone (`FileStore.disown`), and its reservations with it.
    if (usage.value === null) return;
    op.set(usageKey(upload.reservedBy), {
      bytes: Math.max(0, usage.value.bytes - upload.size),
      files: Math.max(0, usage.value.files - 1),
    });
  }

  async delete(id: string): Promise<void> {
    // The upload (and its reservation) first, then its parts, a run of keys at a time.
    await commitChecked(async () => {
      const current = await this.kv.get<ChunkedUploadRecord>(K.upload(id));
      if (!current.value) return { result: undefined };
      const op = this.kv.atomic().check(current).delete(K.upload(id));
      await this.giveBack(op, current.value);
      return { op, result: undefined };
    });
    const keys: Deno.KvKey[] = [];
    for await (const entry of this.kv.list({ prefix: K.parts(id) })) keys.push(entry.key);
    for (let i = 0; i < keys.length; i += 1000) {
      const op = this.kv.atomic();
      for (const key of keys.slice(i, i + 1000)) op.delete(key);
      await op.commit();
    }
  }

  async listByUser(userId: string): Promise<ChunkedUploadRecord[]> {
    // Uploads in progress are few and short-lived: a scan beats keeping an index.
    const mine = await this.filter((u) => u.userId === userId);
    return mine.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async listIdle(before: Date): Promise<ChunkedUploadRecord[]> {
    const idle = await this.filter((u) => u.updatedAt < before);
    return idle.sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime());
  }

  /** Every upload `keep` accepts. */
  private async filter(keep: (u: ChunkedUploadRecord) => boolean) {
    const found: ChunkedUploadRecord[] = [];
    for await (const entry of this.kv.list<ChunkedUploadRecord>({ prefix: ["chunked"] })) {
      if (keep(entry.value)) found.push(entry.value);
    }
    return found;
  }
}
