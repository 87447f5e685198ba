/**
 * Tags on Deno KV. The record lives under `["tag", id]` with a copy under
 * `["tag_by_user", owner, id]`; the per-user name index `["tag_name", owner,
 * name]` is checked and written with the record. Links are kept both ways,
 * `["tag_file", tagId, fileId]` and `["file_tag", fileId, tagId]`, written
 * together. Replacing a file's set checks and rewrites the file's record, so
 * concurrent replacements queue. Readers skip a link whose tag is gone (a link
 * made while its tag was being deleted).
 */
import { UniqueError } from "../store.ts";
import type { TagLink, TagPatch, TagRecord, TagStore } from "../tags.ts";
import { oldestFirst } from "./order.ts";
import { commitChecked, defined } from "./helpers.ts";

/** The key of a file's record (`./files.ts`), which a change of the file's tag set checks. */
const fileRecordKey = (fileId: string) => ["file", fileId];

const K = {
  tag: (id: string) => ["tag", id],
  byUser: (userId: string, id: string) => ["tag_by_user", userId, id],
  userTags: (userId: string) => ["tag_by_user", userId],
  name: (userId: string, name: string) => ["tag_name", userId, name],
  tagFile: (tagId: string, fileId: string) => ["tag_file", tagId, fileId],
  tagFiles: (tagId: string) => ["tag_file", tagId],
  fileTag: (fileId: string, tagId: string) => ["file_tag", fileId, tagId],
  fileTags: (fileId: string) => ["file_tag", fileId],
};

/** The prefix of a file's links to its tags; `KvFiles.delete` removes them with the file. */
export const fileTagsPrefix = K.fileTags;
/** A tag's link to a file, the other direction of a `fileTagsPrefix` key. */
export const tagFileKey = K.tagFile;

/** {@link TagStore} on Deno KV. */
export class KvTags implements TagStore {
  constructor(private readonly kv: Deno.Kv) {}

  async create(tag: TagRecord): Promise<void> {
    const result = await this.kv.atomic()
      .check({ key: K.tag(tag.id), versionstamp: null })
      .check({ key: K.name(tag.userId, tag.name), versionstamp: null })
      .set(K.tag(tag.id), tag)
      .set(K.byUser(tag.userId, tag.id), tag)
      .set(K.name(tag.userId, tag.name), tag.id)
      .commit();
    if (result.ok) return;
    const taken = (await this.kv.get(K.name(tag.userId, tag.name))).value !== null;
    throw new UniqueError(taken ? "name" : "id");
  }

  async get(id: string) {
    return (await this.kv.get<TagRecord>(K.tag(id))).value;
  }

  async listByUser(userId: string) {
    const tags: TagRecord[] = [];
    for await (const e of this.kv.list<TagRecord>({ prefix: K.userTags(userId) })) {
      tags.push(e.value);
    }
    return tags.sort(oldestFirst);
  }

  update(id: string, patch: TagPatch, now: Date) {
    return commitChecked<TagRecord | null>(async () => {
      const current = await this.kv.get<TagRecord>(K.tag(id));
      if (current.value === null) return { result: null };
      const old = current.value;
      const next: TagRecord = { ...old, ...defined(patch), updatedAt: now };
      const op = this.kv.atomic().check(current)
        .set(K.tag(id), next)
        .set(K.byUser(next.userId, id), next);
      if (next.name !== old.name) {
        op.check({ key: K.name(next.userId, next.name), versionstamp: null })
          .delete(K.name(old.userId, old.name))
          .set(K.name(next.userId, next.name), id);
      }
      const lost = async () =>
        next.name !== old.name && (await this.kv.get(K.name(next.userId, next.name))).value !== null
          ? new UniqueError("name")
          : null;
      return { op, result: next, lost };
    });
  }

  async delete(id: string) {
    const tag = await this.get(id);
    if (!tag) return null;
    for await (const e of this.kv.list({ prefix: K.tagFiles(id) })) {
      const fileId = e.key.at(-1) as string;
      await this.kv.atomic().delete(e.key).delete(K.fileTag(fileId, id)).commit();
    }
    await this.kv.atomic()
      .delete(K.tag(id))
      .delete(K.byUser(tag.userId, id))
      .delete(K.name(tag.userId, tag.name))
      .commit();
    return tag;
  }

  async deleteByUser(userId: string) {
    for (const tag of await this.listByUser(userId)) await this.delete(tag.id);
  }

  async setFileTags(fileId: string, tagIds: string[]) {
    // The file's record is the lock, as its row is on Postgres: the operation
    // checks it and rewrites it unchanged (a new versionstamp), so of two
    // concurrent replacements the later commit retries on the earlier's links.
    await commitChecked(async () => {
      const file = await this.kv.get(fileRecordKey(fileId));
      if (file.value === null) return { result: undefined };
      const wanted = new Set(tagIds);
      const op = this.kv.atomic().check(file).set(file.key, file.value);
      for await (const e of this.kv.list({ prefix: K.fileTags(fileId) })) {
        const tagId = e.key.at(-1) as string;
        if (wanted.delete(tagId)) continue;
        op.delete(e.key).delete(K.tagFile(tagId, fileId));
      }
      for (const tagId of wanted) {
        op.set(K.fileTag(fileId, tagId), true).set(K.tagFile(tagId, fileId), true);
      }
      return { op, result: undefined };
    });
  }

  async tagsOfFiles(fileIds: string[]) {
    // One listing per file, all at once: a page of files is one round of reads.
    const tagged = await Promise.all([...new Set(fileIds)].map(async (fileId) => {
      const tags: TagRecord[] = [];
      for await (const e of this.kv.list({ prefix: K.fileTags(fileId) })) {
        const tag = await this.get(e.key.at(-1) as string);
        if (tag) tags.push(tag);
      }
      return [fileId, tags.sort(oldestFirst)] as const;
    }));
    return new Map(tagged.filter(([, tags]) => tags.length > 0));
  }

  async filesOfTags(tagIds: string[]) {
    const result = new Map<string, string[]>();
    for (const tagId of new Set(tagIds)) {
      const files: string[] = [];
      for await (const e of this.kv.list({ prefix: K.tagFiles(tagId) })) {
        files.push(e.key.at(-1) as string);
      }
      if (files.length > 0) result.set(tagId, files);
    }
    return result;
  }

  async *iterate(): AsyncIterable<TagRecord> {
    for await (const e of this.kv.list<TagRecord>({ prefix: ["tag"] }, { batchSize: 500 })) {
      yield e.value;
    }
  }

  async *iterateLinks(): AsyncIterable<TagLink> {
    for await (const e of this.kv.list({ prefix: ["tag_file"] }, { batchSize: 500 })) {
      yield { tagId: e.key[1] as string, fileId: e.key[2] as string };
    }
  }
}
