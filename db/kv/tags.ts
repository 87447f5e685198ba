/**
 * Tags on Deno KV. The record lives under `["tag", id]` with a copy under
 * `["tag_by_user", owner, id]`; the per-user name index `["tag_name", owner,
 * name]` is checked and stored with the record. Links are kept both ways:
 * one key per link under the tag, `["tag_file", tagId, fileId]`, and one
 * list per file of its tags' ids, `["file_tag_ids", fileId]` (absent for a
 * file without tags), stored together; so the tags of a page of files are
 * two reads, not a listing per file. Replacing a file's set checks and
 * rewrites the file's record, so concurrent replacements queue. Readers skip
 * a link whose tag is gone (a link made while its tag was being deleted).
 *
 * Each tag is a scope of the files list's index (`tag:<id>`,
 * `./file_index.ts`: a file's entries in every order, counted, with blocks
 * and fences), changed with the links in the same atomic operation (a
 * file's own writes move its entries in the scopes of the tags they read),
 * so that a page of a tag's files reads a page of entries, not every tagged
 * record. A change of many tags at once goes {@link TAGS_A_STEP} tags a
 * commit (each about 30 writes of the index: KV's 1000 mutations and 80 KiB
 * of keys an operation); schema 19 fills the scopes from the links stored
 * ({@link backfillTagScopes}).
 *
 * Schema 1 kept a file's links as one key each, `["file_tag", fileId,
 * tagId]`; {@link listFileTags} turns them into lists (`./mod.ts` runs it
 * once, on the first open by schema 2).
 */
import { UniqueError } from "../errors.ts";
import type { FileRecord } from "../files.ts";
import type { TagLink, TagPatch, TagRecord, TagStore } from "../tags.ts";
import { oldestFirst } from "./order.ts";
import { commitChecked, defined, getAll, upgradePages } from "./helpers.ts";
import { dropScope, IndexChange, probeKey, tagScope } from "./file_index.ts";

/** The key of a file's record (`./files.ts`), which a change of the file's tag set checks. */
const fileRecordKey = (fileId: string) => ["file", fileId];

const K = {
  tag: (id: string) => ["tag", id],
  byUser: (userId: string, id: string) => ["tag_by_user", userId, id],
  userTags: (userId: string) => ["tag_by_user", userId],
  name: (userId: string, name: string) => ["tag_name", userId, name],
  tagFile: (tagId: string, fileId: string) => ["tag_file", tagId, fileId],
  tagFiles: (tagId: string) => ["tag_file", tagId],
  fileTagIds: (fileId: string) => ["file_tag_ids", fileId],
};

/** The key of a file's list of tag ids; `KvFiles.delete` removes it, and the links, with the file. */
export const fileTagIdsKey = K.fileTagIds;
/** A tag's link to a file, one entry of a `fileTagIdsKey` list seen from the tag. */
export const tagFileKey = K.tagFile;

/** Schema 1's key of one link of a file to a tag: `["file_tag", fileId, tagId]`. */
const SCHEMA_1_LINKS: Deno.KvKey = ["file_tag"];

/** The most schema 1 links one operation of {@link listFileTags} removes. */
const LINKS_PER_OPERATION = 500;

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
    while (await this.#unlinkSome(id) > 0) {
      // the next page of the tag's links
    }
    await this.kv.atomic()
      .delete(K.tag(id))
      .delete(K.byUser(tag.userId, id))
      .delete(K.name(tag.userId, tag.name))
      .commit();
    await dropScope(this.kv, tag.userId, tagScope(id));
    return tag;
  }

  async deleteByUser(userId: string) {
    for (const tag of await this.listByUser(userId)) await this.delete(tag.id);
  }

  /**
   * Removes up to {@link UNLINK_PAGE} links of the tag `tagId`, both ways,
   * with their files' entries in its scope, in one atomic operation checked
   * against the files' records and lists (rewritten, as {@link retag} does).
   * Returns how many it removed.
   */
  async #unlinkSome(tagId: string): Promise<number> {
    return await commitChecked(async () => {
      const links = await Array.fromAsync(
        this.kv.list({ prefix: K.tagFiles(tagId) }, { limit: UNLINK_PAGE }),
      );
      const ids = links.map((e) => e.key.at(-1) as string);
      const files = await getAll<FileRecord>(this.kv, ids.map(fileRecordKey));
      // Read after the records, which a change of the tags rewrites.
      const lists = await getAll<string[]>(this.kv, ids.map(K.fileTagIds));
      if (ids.length === 0) return { result: 0 };
      const op = this.kv.atomic().check(...links, ...files, ...lists);
      const index = new IndexChange();
      for (const [i, fileId] of ids.entries()) {
        const had = lists[i].value ?? [];
        const next = had.filter((t) => t !== tagId);
        op.delete(K.tagFile(tagId, fileId));
        setList(op, fileId, next);
        const file = files[i].value;
        if (file === null) continue;
        op.set(files[i].key, file);
        index.file(file, file, had, next);
      }
      return { op: (await index.prepare(this.kv)).apply(op), result: ids.length };
    });
  }

  setFileTags(fileId: string, tagIds: string[]) {
    const wanted = [...new Set(tagIds)];
    return retag(this.kv, fileId, () => wanted);
  }

  async tagsOfFiles(fileIds: string[]) {
    // Two rounds of reads for any page: the files' lists, then their tags.
    const lists = await getAll<string[]>(this.kv, [...new Set(fileIds)].map(K.fileTagIds));
    const tagIds = [...new Set(lists.flatMap((e) => e.value ?? []))];
    const tags = new Map<string, TagRecord>();
    for (const e of await getAll<TagRecord>(this.kv, tagIds.map(K.tag))) {
      if (e.value) tags.set(e.value.id, e.value);
    }
    const result = new Map<string, TagRecord[]>();
    for (const { key, value } of lists) {
      const found = (value ?? []).flatMap((id) => tags.get(id) ?? []);
      if (found.length > 0) result.set(key[1] as string, found.sort(oldestFirst));
    }
    return result;
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

/**
 * The ids of the files carrying every tag of `tagIds` (the files list's tag
 * filter, `FileQuery.tagIds`), read from each tag's links, keys alone.
 */
export async function taggedFileIds(kv: Deno.Kv, tagIds: string[]): Promise<string[]> {
  let kept: Set<string> | null = null;
  for (const tagId of new Set(tagIds)) {
    const files = new Set<string>();
    for await (const e of kv.list({ prefix: K.tagFiles(tagId) })) {
      const id = e.key.at(-1) as string;
      if (!kept || kept.has(id)) files.add(id);
    }
    kept = files;
    if (kept.size === 0) break;
  }
  return [...kept ?? []];
}

/** Links one commit of a tag's deletion removes (each ~30 writes of the index). */
const UNLINK_PAGE = 12;

/** The most tags one commit of {@link retag} adds or removes (each ~30 writes of the index). */
export const TAGS_A_STEP = 8;

/**
 * Makes `choose(had)` the tags of `fileId` (`had`: its tags now): links both
 * ways and the entries of the tags' scopes of the list index
 * (`./file_index.ts`), {@link TAGS_A_STEP} tags added or removed a commit
 * (one commit for a few; each step leaves a consistent set). The file's
 * record is the lock, as its row is on Postgres: each operation checks it
 * and rewrites it unchanged (a new versionstamp), so of two concurrent
 * replacements the later commit retries on the earlier's links, and a write
 * of the file that read its tags before fails its check.
 */
export async function retag(
  kv: Deno.Kv,
  fileId: string,
  choose: (had: string[]) => string[],
): Promise<void> {
  let done = false;
  while (!done) {
    done = await commitChecked(async () => {
      const [file, listed] = await kv.getMany<[FileRecord, string[]]>([
        fileRecordKey(fileId),
        K.fileTagIds(fileId),
      ]);
      if (file.value === null) return { result: true };
      const had = listed.value ?? [];
      const wanted = choose(had);
      const gone = had.filter((t) => !wanted.includes(t));
      const added = wanted.filter((t) => !had.includes(t));
      const removing = gone.slice(0, TAGS_A_STEP);
      const adding = added.slice(0, TAGS_A_STEP - removing.length);
      const last = removing.length === gone.length && adding.length === added.length;
      const next = last ? wanted : [...had.filter((t) => !removing.includes(t)), ...adding];
      const op = kv.atomic().check(file, listed).set(file.key, file.value);
      for (const tagId of removing) op.delete(K.tagFile(tagId, fileId));
      for (const tagId of adding) op.set(K.tagFile(tagId, fileId), true);
      const index = await new IndexChange().file(file.value, file.value, had, next).prepare(kv);
      return { op: setList(index.apply(op), fileId, next), result: last };
    });
  }
}

/** Where the upgrade to schema 19 stands: the last tag link whose file is in the tag's scope. */
const SCOPES_BACKFILL: Deno.KvKey = ["meta", "tag_scope_backfill"];
/** Links one commit of {@link backfillTagScopes} indexes (about 30 writes and 2 checks each). */
const SCOPES_PAGE = 12;

/**
 * Schema 19's upgrade: each tag link's file entered in the tag's scope of
 * the list index, a page of links a commit ({@link upgradePages}: a stopped
 * upgrade resumes after the last page committed), checked against the
 * files' records and the absence of their entries in the scope (a file a
 * process already at schema 19 tagged meanwhile is left as it wrote it).
 * Links to a deleted tag or a missing file are passed over.
 */
export async function backfillTagScopes(kv: Deno.Kv): Promise<void> {
  await upgradePages(kv, ["tag_file"], SCOPES_BACKFILL, SCOPES_PAGE, async (op, page) => {
    const links = page.map((e) => ({ tagId: e.key[1] as string, fileId: e.key[2] as string }));
    const [files, tags] = await Promise.all([
      getAll<FileRecord>(kv, links.map((l) => fileRecordKey(l.fileId))),
      getAll(kv, [...new Set(links.map((l) => l.tagId))].map(K.tag)),
    ]);
    const live = new Set(tags.flatMap((t) => t.value === null ? [] : [t.key[1]]));
    const todo = links.flatMap((l, i) => {
      const file = files[i].value;
      return file && live.has(l.tagId) ? [{ file, scope: tagScope(l.tagId), tagId: l.tagId }] : [];
    });
    const probes = await getAll(kv, todo.map((t) => probeKey(t.file, t.scope)));
    op.check(...files, ...probes);
    const change = new IndexChange();
    for (const [i, { file, tagId }] of todo.entries()) {
      if (probes[i].value === null) change.file(file, file, [], [tagId]);
    }
    (await change.prepare(kv)).apply(op);
  });
}

/** Adds to `op` the write of `fileId`'s list of tag ids: `tagIds`, or no key when empty. */
function setList(
  op: Deno.AtomicOperation,
  fileId: string,
  tagIds: string[],
): Deno.AtomicOperation {
  return tagIds.length > 0 ? op.set(K.fileTagIds(fileId), tagIds) : op.delete(K.fileTagIds(fileId));
}

/**
 * Schema 1 → 2: each file's links `["file_tag", fileId, tagId]` become its
 * list `["file_tag_ids", fileId]`, merged with any list it has. Each file's
 * list is stored before its old links are removed, so a run stopped half
 * way is finished by the next (which merges what is left).
 */
export async function listFileTags(kv: Deno.Kv): Promise<void> {
  let fileId: string | null = null;
  let links: Deno.KvKey[] = [];
  const convert = async () => {
    if (fileId === null) return;
    const id = fileId;
    const tagIds = links.map((key) => key[2] as string);
    await commitChecked(async () => {
      const listed = await kv.get<string[]>(K.fileTagIds(id));
      const merged = [...new Set([...(listed.value ?? []), ...tagIds])];
      return { op: setList(kv.atomic().check(listed), id, merged), result: undefined };
    });
    for (let i = 0; i < links.length; i += LINKS_PER_OPERATION) {
      const op = kv.atomic();
      for (const key of links.slice(i, i + LINKS_PER_OPERATION)) op.delete(key);
      await op.commit();
    }
  };
  for await (const { key } of kv.list({ prefix: SCHEMA_1_LINKS }, { batchSize: 500 })) {
    if (key[1] !== fileId) {
      await convert();
      fileId = key[1] as string;
      links = [];
    }
    links.push(key);
  }
  await convert();
}
